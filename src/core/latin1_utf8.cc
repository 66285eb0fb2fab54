// Latin-1 text hashed as UTF-8: the ASCII check (portable path + dispatch) and the expansion.
#include "ssr_native/latin1_utf8.h"

#include <cstring>

#include "crc32_internal.h"
#include "ssr_native/cpu_features.h"
#include "ssr_native/crc32.h"

namespace ssr_native {
namespace latin1_utf8_internal {
namespace {

constexpr uint64_t kHighBits = 0x8080808080808080ull;

uint64_t Load64(const uint8_t* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

}  // namespace

// Latin-1 to UTF-8: bytes below 0x80 as they are, the others as two bytes (C2/C3 + 80..BF).
// Returns the number of bytes written to `out` (room for 2 * n).
size_t ExpandLatin1Portable(const uint8_t* in, size_t n, uint8_t* out) {
  uint8_t* o = out;
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n && (Load64(in + i) & kHighBits) == 0) {  // a run of ASCII: 8 at once
      std::memcpy(o, in + i, 8);
      o += 8;
      i += 8;
      continue;
    }
    const uint8_t byte = in[i++];
    if (byte < 0x80) {
      *o++ = byte;
    } else {
      *o++ = static_cast<uint8_t>(0xC0 | (byte >> 6));
      *o++ = static_cast<uint8_t>(0x80 | (byte & 0x3F));
    }
  }
  return static_cast<size_t>(o - out);
}

bool Crc32IfAscii(uint32_t* crc, const uint8_t* data, size_t size) {
  static const bool fused = Crc32ActivePath() == Crc32Path::kVpclmul512;
  if (fused) {
    uint8_t seen = 0;
    const uint32_t extended = crc32_internal::ExtendVpclmul512SeeingBytes(*crc, data, size, &seen);
    if (seen & 0x80) return false;
    *crc = extended;
    return true;
  }
  if (!IsAscii(data, size)) return false;
  *crc = Crc32(*crc, data, size);
  return true;
}

bool IsAsciiPortable(const uint8_t* p, size_t n) {
  // Four independent words per step, so the compiler can keep several loads in flight.
  uint64_t a = 0, b = 0, c = 0, d = 0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a |= Load64(p + i);
    b |= Load64(p + i + 8);
    c |= Load64(p + i + 16);
    d |= Load64(p + i + 24);
  }
  uint64_t tail = 0;
  for (; i < n; ++i) tail |= p[i];
  return ((a | b | c | d | tail) & kHighBits) == 0;
}

}  // namespace latin1_utf8_internal

bool IsAscii(const uint8_t* data, size_t size) {
  static const bool avx2 = GetCpuFeatures().avx2;
  return avx2 ? latin1_utf8_internal::IsAsciiAvx2(data, size)
              : latin1_utf8_internal::IsAsciiPortable(data, size);
}

Utf8Digest Crc32OfLatin1AsUtf8(uint32_t crc, const uint8_t* latin1, size_t size) {
  using latin1_utf8_internal::kAsciiChunk;
  using latin1_utf8_internal::kExpandChunk;
  size_t pos = 0;
  // ASCII prefix: its UTF-8 bytes are the Latin-1 bytes.
  while (pos < size) {
    const size_t n = size - pos < kAsciiChunk ? size - pos : kAsciiChunk;
    if (!latin1_utf8_internal::Crc32IfAscii(&crc, latin1 + pos, n)) break;
    pos += n;
  }
  uint64_t utf8_size = pos;
  static const bool vbmi2 = GetCpuFeatures().avx512bw && GetCpuFeatures().avx512vbmi2;
  uint8_t expanded[2 * kExpandChunk];
  while (pos < size) {
    const size_t n = size - pos < kExpandChunk ? size - pos : kExpandChunk;
    const size_t m = vbmi2 ? latin1_utf8_internal::ExpandLatin1Avx512(latin1 + pos, n, expanded)
                           : latin1_utf8_internal::ExpandLatin1Portable(latin1 + pos, n, expanded);
    crc = Crc32(crc, expanded, m);
    utf8_size += m;
    pos += n;
  }
  return Utf8Digest{crc, utf8_size};
}

}  // namespace ssr_native
