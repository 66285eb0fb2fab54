// Run-time CPU feature detection shared by every SIMD path of the core.
#ifndef SSR_NATIVE_CPU_FEATURES_H_
#define SSR_NATIVE_CPU_FEATURES_H_

namespace ssr_native {

/// What the CPU *and* the operating system support (AVX state enabled in XCR0).
struct CpuFeatures {
  bool sse41 = false;
  bool pclmulqdq = false;
  bool avx2 = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512vl = false;
  bool vpclmulqdq = false;
  bool avx512vbmi2 = false;  ///< byte compress/expand (vpcompressb), Ice Lake and later
  // AArch64 (Linux getauxval(AT_HWCAP)): the CRC32 instructions and 64-bit polynomial multiply.
  bool arm_crc32 = false;
  bool arm_pmull = false;
};

/// Detected once, on first use; thread-safe. Only the current architecture's flags can be true.
const CpuFeatures& GetCpuFeatures();

}  // namespace ssr_native

#endif  // SSR_NATIVE_CPU_FEATURES_H_
