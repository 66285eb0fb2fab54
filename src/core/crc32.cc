// CRC-32 dispatch and the portable zlib path.
#include "ssr_native/crc32.h"

#include <zlib.h>

#include <climits>

#include "crc32_internal.h"
#include "ssr_native/cpu_features.h"

namespace ssr_native {
namespace crc32_internal {

uint32_t ExtendZlib(uint32_t crc, const uint8_t* data, size_t size) {
  uLong value = crc;
  // zlib takes a uInt length: feed it at most 1 GiB at a time.
  constexpr size_t kChunk = size_t{1} << 30;
  while (size > 0) {
    const size_t n = size < kChunk ? size : kChunk;
    value = ::crc32(value, data, static_cast<uInt>(n));
    data += n;
    size -= n;
  }
  return static_cast<uint32_t>(value);
}

}  // namespace crc32_internal

namespace {

using Extend = uint32_t (*)(uint32_t, const uint8_t*, size_t);

bool PathSupported(Crc32Path path) {
  const CpuFeatures& cpu = GetCpuFeatures();
  switch (path) {
    case Crc32Path::kZlib:
      return true;
    case Crc32Path::kPclmul:
      return cpu.sse41 && cpu.pclmulqdq;
    case Crc32Path::kVpclmul512:
      return cpu.sse41 && cpu.pclmulqdq && cpu.avx512f && cpu.avx512bw && cpu.avx512vl &&
             cpu.vpclmulqdq;
  }
  return false;
}

Extend ExtendFor(Crc32Path path) {
  switch (path) {
    case Crc32Path::kVpclmul512:
      return crc32_internal::ExtendVpclmul512;
    case Crc32Path::kPclmul:
      return crc32_internal::ExtendPclmul;
    case Crc32Path::kZlib:
      break;
  }
  return crc32_internal::ExtendZlib;
}

Crc32Path ChooseFastestPath() {
  if (PathSupported(Crc32Path::kVpclmul512)) return Crc32Path::kVpclmul512;
  if (PathSupported(Crc32Path::kPclmul)) return Crc32Path::kPclmul;
  return Crc32Path::kZlib;
}

// Resolved once, on first use (thread-safe static initialisation).
struct Dispatch {
  Crc32Path path;
  Extend extend;
};
const Dispatch& ActiveDispatch() {
  static const Dispatch dispatch = [] {
    const Crc32Path path = ChooseFastestPath();
    return Dispatch{path, ExtendFor(path)};
  }();
  return dispatch;
}

}  // namespace

uint32_t Crc32(uint32_t crc, const void* data, size_t size) {
  return ActiveDispatch().extend(crc, static_cast<const uint8_t*>(data), size);
}

Crc32Path Crc32ActivePath() { return ActiveDispatch().path; }

bool Crc32PathAvailable(Crc32Path path) { return PathSupported(path); }

uint32_t Crc32WithPath(Crc32Path path, uint32_t crc, const void* data, size_t size) {
  const Extend extend = PathSupported(path) ? ExtendFor(path) : crc32_internal::ExtendZlib;
  return extend(crc, static_cast<const uint8_t*>(data), size);
}

const char* Crc32PathName(Crc32Path path) {
  switch (path) {
    case Crc32Path::kZlib:
      return "zlib";
    case Crc32Path::kPclmul:
      return "pclmul";
    case Crc32Path::kVpclmul512:
      return "vpclmul512";
  }
  return "unknown";
}

}  // namespace ssr_native
