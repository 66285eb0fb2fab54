// Private to the CRC-32 implementation files.
#ifndef SSR_NATIVE_SRC_CORE_CRC32_INTERNAL_H_
#define SSR_NATIVE_SRC_CORE_CRC32_INTERNAL_H_

#include <cstddef>
#include <cstdint>

#include "ssr_native/cpu_features.h"
#include "ssr_native/crc32.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ssr_native {
namespace crc32_internal {

// Whether `path` can run on a CPU with `cpu`'s features, and the one the dispatcher picks there
// (pure functions of the features, so tests can ask about CPUs other than this one).
bool PathRunsOn(Crc32Path path, const CpuFeatures& cpu);
Crc32Path FastestPathFor(const CpuFeatures& cpu);

// The portable path: slicing-by-16, our own code (crc32_portable.cc). No zlib: the addon must
// not depend on a crc32 symbol the host runtime may or may not export.
uint32_t ExtendPortable(uint32_t crc, const uint8_t* data, size_t size);

// Entry `byte` of slicing table `slice` (0..15), for tests against the published table.
uint32_t PortableTableEntry(int slice, int byte);

// SIMD paths: only call after checking the CPU supports them.
uint32_t ExtendPclmul(uint32_t crc, const uint8_t* data, size_t size);
uint32_t ExtendVpclmul256(uint32_t crc, const uint8_t* data, size_t size);
uint32_t ExtendVpclmul512(uint32_t crc, const uint8_t* data, size_t size);
// ExtendVpclmul512 that also sets bit 7 of `*seen` if any byte it read is 0x80 or more: the ASCII
// check of Latin-1 text fused into the CRC's own pass over it.
uint32_t ExtendVpclmul512SeeingBytes(uint32_t crc, const uint8_t* data, size_t size, uint8_t* seen);
uint32_t ExtendArmCrc32(uint32_t crc, const uint8_t* data, size_t size);
// The CRC32X/W/H/B chain over `size` bytes on a register `c` as it is (not inverted): the main
// loop's word tail, and how the PMULL path finishes its last 0-127 bytes.
uint32_t ArmCrc32Words(uint32_t c, const uint8_t* data, size_t size);
// PMULL folding with the CRC32 instructions for the reduction and the tail (HWCAP_PMULL and
// HWCAP_CRC32).
uint32_t ExtendArmPmull(uint32_t crc, const uint8_t* data, size_t size);

// Sizes below which a path hands the input to the next narrower one (measured with
// bench/cpp/crc32_bench.cc: the crossovers of BM_Crc32 between neighbouring paths).
constexpr size_t kPclmulMinSize = 16;       // shorter: the portable tables
constexpr size_t kVpclmul256MinSize = 128;  // shorter: the 128-bit fold
constexpr size_t kVpclmul512MinSize = 256;  // shorter: the 256-bit fold
constexpr size_t kArmPmullMinSize = 128;    // shorter: the CRC32 instructions alone

#if defined(__x86_64__) || defined(__i386__)
// Shared tail of both folding paths: folds the remaining whole 16-byte blocks into `folded`,
// reduces it to 32 bits (Barrett) and finishes the last 0-15 bytes with the portable path.
uint32_t FinishPclmul(__m128i folded, const uint8_t* data, size_t size);
#endif

// Folding constant for a distance of `bits`: reflect32(x^bits mod P) << 1, the form a reflected
// carry-less multiply needs (see Intel's "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ"). Computed rather than tabulated so each distance is obviously the one named.
constexpr uint64_t FoldConstant(unsigned bits) {
  // x^bits mod P in the reflected domain: start from x^0 (bit 31 in reflected form) and
  // multiply by x `bits` times; each step is a right shift with a conditional reduction.
  uint32_t r = 0x80000000u;
  for (unsigned i = 0; i < bits; ++i) r = (r & 1u) ? (r >> 1) ^ 0xEDB88320u : r >> 1;
  return static_cast<uint64_t>(r) << 1;
}

// Evaluated at compile time: kFold<544> is the constant for a 512-bit fold's low half.
template <unsigned Bits>
inline constexpr uint64_t kFold = FoldConstant(Bits);

// Barrett reduction constants: P(x) with its x^32 term, and mu = floor(x^64 / P(x)), both
// reflected (33-bit values).
constexpr uint64_t kPolyReflected = 0x1DB710641ull;
constexpr uint64_t kMuReflected = 0x1F7011641ull;

}  // namespace crc32_internal
}  // namespace ssr_native

#endif  // SSR_NATIVE_SRC_CORE_CRC32_INTERNAL_H_
