#include "ssr_native/etag.h"

#include "ssr_native/crc32.h"

namespace ssr_native {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

}  // namespace

size_t FormatEntityTag(uint64_t byte_length, uint32_t crc, bool weak, char* out) {
  char* p = out;
  if (weak) {
    *p++ = 'W';
    *p++ = '/';
  }
  *p++ = '"';
  // Length in minimal hex ("0" for empty), as the etag package and Express write it.
  int shift = 60;
  while (shift > 0 && ((byte_length >> shift) & 0xF) == 0) shift -= 4;
  for (; shift >= 0; shift -= 4) *p++ = kHexDigits[(byte_length >> shift) & 0xF];
  *p++ = '-';
  for (int s = 28; s >= 0; s -= 4) *p++ = kHexDigits[(crc >> s) & 0xF];
  *p++ = '"';
  return static_cast<size_t>(p - out);
}

std::string EntityTag(const void* data, size_t size, bool weak) {
  char buffer[kMaxEntityTagLength];
  const size_t n = FormatEntityTag(size, Crc32(0, data, size), weak, buffer);
  return std::string(buffer, n);
}

}  // namespace ssr_native
