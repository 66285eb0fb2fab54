// CRC-32 (ISO-HDLC, the polynomial and chaining of zlib's crc32), dispatched at run time to the
// fastest path this CPU supports.
#ifndef SSR_NATIVE_CRC32_H_
#define SSR_NATIVE_CRC32_H_

#include <cstddef>
#include <cstdint>

namespace ssr_native {

/// The implementations; each is bit-identical to zlib's crc32().
enum class Crc32Path {
  kPortable = 0,    ///< slicing-by-16 tables: any CPU, the fallback
  kPclmul = 1,      ///< 128-bit carry-less-multiply folding (SSE4.1 + PCLMULQDQ)
  kVpclmul512 = 2,  ///< 512-bit folding (AVX-512 + VPCLMULQDQ)
  kArmCrc32 = 3,    ///< ARMv8 CRC32 instructions, 8 bytes each (AArch64 with HWCAP_CRC32)
  kVpclmul256 = 4,  ///< 256-bit folding (AVX2 + VPCLMULQDQ, VEX encoded: no AVX-512 needed)
  kArmPmull = 5,    ///< PMULL folding, CRC32 instructions for the tail (HWCAP_PMULL + _CRC32)
};
constexpr int kCrc32PathCount = 6;

/// Extends `crc` (0 to start, or a previous result to chain) over `size` bytes, exactly as
/// zlib's `crc32(crc, data, size)` does, using the path chosen for this CPU.
uint32_t Crc32(uint32_t crc, const void* data, size_t size);

/// The path Crc32() uses on this machine.
Crc32Path Crc32ActivePath();

/// Whether `path` can run on this machine.
bool Crc32PathAvailable(Crc32Path path);

/// Runs one specific path (for tests and benchmarks). Falls back to the portable path when `path`
/// is not available here, so it never executes an unsupported instruction.
uint32_t Crc32WithPath(Crc32Path path, uint32_t crc, const void* data, size_t size);

/// "portable", "pclmul", "vpclmul512", "armv8_crc32", "vpclmul256" or "armv8_pmull".
const char* Crc32PathName(Crc32Path path);

}  // namespace ssr_native

#endif  // SSR_NATIVE_CRC32_H_
