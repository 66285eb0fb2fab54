#include "ssr_native/cpu_features.h"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define SSR_NATIVE_X86 1
#endif

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#define SSR_NATIVE_ARM64_LINUX 1
// From <asm/hwcap.h>; spelled out for C libraries that do not define them.
#ifndef HWCAP_PMULL
#define HWCAP_PMULL (1UL << 4)
#endif
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1UL << 7)
#endif
#endif

namespace ssr_native {
namespace {

#if defined(SSR_NATIVE_X86)
// XGETBV without needing -mxsave for the whole file.
uint64_t ReadXcr0() {
  uint32_t eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<uint64_t>(edx) << 32) | eax;
}
#endif

CpuFeatures Detect() {
  CpuFeatures f;
#if defined(SSR_NATIVE_X86)
  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return f;
  f.sse41 = (ecx & (1u << 19)) != 0;
  f.pclmulqdq = (ecx & (1u << 1)) != 0;
  const bool osxsave = (ecx & (1u << 27)) != 0;
  const bool avx = (ecx & (1u << 28)) != 0;
  // The OS must save YMM (bits 1-2) and, for AVX-512, opmask and ZMM state (bits 5-7).
  const uint64_t xcr0 = osxsave ? ReadXcr0() : 0;
  const bool os_avx = avx && (xcr0 & 0x6) == 0x6;
  const bool os_avx512 = os_avx && (xcr0 & 0xE0) == 0xE0;
  if (__get_cpuid_max(0, nullptr) >= 7) {
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    f.avx2 = os_avx && (ebx & (1u << 5)) != 0;
    f.avx512f = os_avx512 && (ebx & (1u << 16)) != 0;
    f.avx512bw = os_avx512 && (ebx & (1u << 30)) != 0;
    f.avx512vl = os_avx512 && (ebx & (1u << 31)) != 0;
    f.vpclmulqdq = os_avx && (ecx & (1u << 10)) != 0;
    f.avx512vbmi2 = os_avx512 && (ecx & (1u << 6)) != 0;
  }
#endif
#if defined(SSR_NATIVE_ARM64_LINUX)
  // The kernel reports what user space may execute; reading ID registers directly would trap
  // on older kernels.
  const unsigned long hwcap = getauxval(AT_HWCAP);
  f.arm_crc32 = (hwcap & HWCAP_CRC32) != 0;
  f.arm_pmull = (hwcap & HWCAP_PMULL) != 0;
#endif
  return f;
}

}  // namespace

const CpuFeatures& GetCpuFeatures() {
  static const CpuFeatures features = Detect();
  return features;
}

}  // namespace ssr_native
