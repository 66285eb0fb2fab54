// CRC-32 dispatch: picks the fastest path this CPU supports, once.
#include "ssr_native/crc32.h"

#include "crc32_internal.h"
#include "ssr_native/cpu_features.h"

namespace ssr_native {
namespace crc32_internal {

bool PathRunsOn(Crc32Path path, const CpuFeatures& cpu) {
  switch (path) {
    case Crc32Path::kPortable:
      return true;
    case Crc32Path::kPclmul:
      return cpu.sse41 && cpu.pclmulqdq;
    case Crc32Path::kVpclmul512:
      // avx2 too: inputs under kVpclmul512MinSize go to the 256-bit fold.
      return cpu.sse41 && cpu.pclmulqdq && cpu.avx2 && cpu.avx512f && cpu.avx512bw &&
             cpu.avx512vl && cpu.vpclmulqdq;
    case Crc32Path::kVpclmul256:
      // VEX-encoded VPCLMULQDQ needs the CPUID bit and the OS saving YMM state (vpclmulqdq
      // and avx2 are only set when XCR0 says so), not AVX-512.
      return cpu.sse41 && cpu.pclmulqdq && cpu.avx2 && cpu.vpclmulqdq;
    case Crc32Path::kArmCrc32:
      return cpu.arm_crc32;
    case Crc32Path::kArmPmull:
      return cpu.arm_crc32 && cpu.arm_pmull;
  }
  return false;
}

// Fastest first, as measured by bench/cpp/crc32_bench.cc at 1 KB and above (x86 and arm64 paths
// never both run on one CPU). Where AVX-512 is present, vpclmul512 itself hands inputs shorter
// than kVpclmul512MinSize to the 256-bit fold, which measured faster there.
Crc32Path FastestPathFor(const CpuFeatures& cpu) {
  constexpr Crc32Path kFastestFirst[] = {Crc32Path::kVpclmul512, Crc32Path::kVpclmul256,
                                         Crc32Path::kPclmul,     Crc32Path::kArmPmull,
                                         Crc32Path::kArmCrc32,   Crc32Path::kPortable};
  for (const Crc32Path path : kFastestFirst) {
    if (PathRunsOn(path, cpu)) return path;
  }
  return Crc32Path::kPortable;
}

}  // namespace crc32_internal

namespace {

using Extend = uint32_t (*)(uint32_t, const uint8_t*, size_t);

bool PathSupported(Crc32Path path) { return crc32_internal::PathRunsOn(path, GetCpuFeatures()); }

Extend ExtendFor(Crc32Path path) {
  switch (path) {
    case Crc32Path::kVpclmul512:
      return crc32_internal::ExtendVpclmul512;
    case Crc32Path::kVpclmul256:
      return crc32_internal::ExtendVpclmul256;
    case Crc32Path::kPclmul:
      return crc32_internal::ExtendPclmul;
    case Crc32Path::kArmCrc32:
      return crc32_internal::ExtendArmCrc32;
    case Crc32Path::kArmPmull:
      return crc32_internal::ExtendArmPmull;
    case Crc32Path::kPortable:
      break;
  }
  return crc32_internal::ExtendPortable;
}

// Resolved once, on first use (thread-safe static initialisation).
struct Dispatch {
  Crc32Path path;
  Extend extend;
};
const Dispatch& ActiveDispatch() {
  static const Dispatch dispatch = [] {
    const Crc32Path path = crc32_internal::FastestPathFor(GetCpuFeatures());
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
    case Crc32Path::kVpclmul256:
      return "vpclmul256";
    case Crc32Path::kArmPmull:
      return "armv8_pmull";
  }
  return "unknown";
}

}  // namespace ssr_native
