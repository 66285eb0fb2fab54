// CRC-32 dispatch: picks the fastest path this CPU supports, once.
#include "ssr_native/crc32.h"

#include "crc32_internal.h"
#include "ssr_native/cpu_features.h"

namespace ssr_native {

namespace {

using Extend = uint32_t (*)(uint32_t, const uint8_t*, size_t);

bool PathSupported(Crc32Path path) {
  const CpuFeatures& cpu = GetCpuFeatures();
  switch (path) {
    case Crc32Path::kPortable:
      return true;
    case Crc32Path::kPclmul:
      return cpu.sse41 && cpu.pclmulqdq;
    case Crc32Path::kVpclmul512:
      return cpu.sse41 && cpu.pclmulqdq && cpu.avx512f && cpu.avx512bw && cpu.avx512vl &&
             cpu.vpclmulqdq;
    case Crc32Path::kArmCrc32:
      return cpu.arm_crc32;
  }
  return false;
}

Extend ExtendFor(Crc32Path path) {
  switch (path) {
    case Crc32Path::kVpclmul512:
      return crc32_internal::ExtendVpclmul512;
    case Crc32Path::kPclmul:
      return crc32_internal::ExtendPclmul;
    case Crc32Path::kArmCrc32:
      return crc32_internal::ExtendArmCrc32;
    case Crc32Path::kPortable:
      break;
  }
  return crc32_internal::ExtendPortable;
}

Crc32Path ChooseFastestPath() {
  if (PathSupported(Crc32Path::kVpclmul512)) return Crc32Path::kVpclmul512;
  if (PathSupported(Crc32Path::kPclmul)) return Crc32Path::kPclmul;
  if (PathSupported(Crc32Path::kArmCrc32)) return Crc32Path::kArmCrc32;
  return Crc32Path::kPortable;
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
  const Extend extend = PathSupported(path) ? ExtendFor(path) : crc32_internal::ExtendPortable;
  return extend(crc, static_cast<const uint8_t*>(data), size);
}

const char* Crc32PathName(Crc32Path path) {
  switch (path) {
    case Crc32Path::kPortable:
      return "portable";
    case Crc32Path::kPclmul:
      return "pclmul";
    case Crc32Path::kVpclmul512:
      return "vpclmul512";
    case Crc32Path::kArmCrc32:
      return "armv8_crc32";
  }
  return "unknown";
}

}  // namespace ssr_native
