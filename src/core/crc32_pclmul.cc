// CRC-32 by 128-bit carry-less-multiply folding (SSE4.1 + PCLMULQDQ), after Intel's white paper
// "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction" (Gopal et al.,
// 2009), with eight accumulators where the input allows. Compiled with portable flags: every
// function here carries the target attribute and is reached only through the dispatcher's CPU
// check.
#include "crc32_internal.h"

#if defined(__x86_64__) || defined(__i386__)

#define SSR_TARGET_PCLMUL __attribute__((target("sse4.1,pclmul")))

namespace ssr_native {
namespace crc32_internal {
namespace {

// Folds `x` forward over the distance its constants encode: low half by the (d+32) constant,
// high half by the (d-32) one, then adds the data that sits at that distance.
SSR_TARGET_PCLMUL inline __m128i Fold(__m128i x, __m128i constants, __m128i data) {
  const __m128i lo = _mm_clmulepi64_si128(x, constants, 0x00);
  const __m128i hi = _mm_clmulepi64_si128(x, constants, 0x11);
  return _mm_xor_si128(_mm_xor_si128(lo, hi), data);
}

SSR_TARGET_PCLMUL inline __m128i Load(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

SSR_TARGET_PCLMUL inline __m128i Pair(uint64_t hi, uint64_t lo) {
  return _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo));
}

// Reduces a 128-bit folded remainder to the 32-bit CRC register (not inverted).
SSR_TARGET_PCLMUL uint32_t Reduce128(__m128i x) {
  const __m128i mask32 = _mm_setr_epi32(-1, 0, -1, 0);
  // 128 -> 96 bits: the low 64 bits times x^96, added to the high 64 bits.
  const __m128i k96 = Pair(kFold<96>, 0);
  x = _mm_xor_si128(_mm_srli_si128(x, 8), _mm_clmulepi64_si128(x, k96, 0x10));
  // 96 -> 64 bits: the low 32 bits times x^64, added to the upper 64 bits.
  const __m128i k64 = Pair(0, kFold<64>);
  const __m128i upper = _mm_srli_si128(x, 4);
  x = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, mask32), k64, 0x00), upper);
  // Barrett reduction 64 -> 32 bits: q = floor(x * mu / x^64); crc = x - q * P.
  const __m128i poly_mu = Pair(kMuReflected, kPolyReflected);
  __m128i q = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), poly_mu, 0x10);
  q = _mm_clmulepi64_si128(_mm_and_si128(q, mask32), poly_mu, 0x00);
  x = _mm_xor_si128(x, q);
  return static_cast<uint32_t>(_mm_extract_epi32(x, 1));
}

}  // namespace

SSR_TARGET_PCLMUL uint32_t FinishPclmul(__m128i x, const uint8_t* p, size_t n) {
  const __m128i k128 = Pair(kFold<128 - 32>, kFold<128 + 32>);
  for (; n >= 16; p += 16, n -= 16) x = Fold(x, k128, Load(p));
  // The register is the CRC without zlib's final inversion; the portable path finishes the tail.
  return ExtendPortable(~Reduce128(x), p, n);
}

SSR_TARGET_PCLMUL uint32_t ExtendPclmul(uint32_t crc, const uint8_t* p, size_t n) {
  if (n < kPclmulMinSize) return ExtendPortable(crc, p, n);  // setup costs more than it saves

  const __m128i initial = _mm_cvtsi32_si128(static_cast<int>(~crc));
  // Short bodies: one accumulator, folded a block at a time. The reduction's latency is paid
  // once, and still beats the portable tables' byte-serial lookups.
  if (n < 64) return FinishPclmul(_mm_xor_si128(Load(p), initial), p + 16, n - 16);
  const __m128i k512 = Pair(kFold<512 - 32>, kFold<512 + 32>);
  __m128i x0, x1, x2, x3;
  if (n >= 128) {
    // Eight independent accumulators: a multiply's latency (5-7 cycles) is hidden behind seven
    // others, so the loop runs at the multiplier's throughput rather than its latency.
    __m128i a[8];
    for (int i = 0; i < 8; ++i) a[i] = Load(p + 16 * i);
    a[0] = _mm_xor_si128(a[0], initial);
    p += 128;
    n -= 128;
    const __m128i k1024 = Pair(kFold<1024 - 32>, kFold<1024 + 32>);
    for (; n >= 128; p += 128, n -= 128) {
      for (int i = 0; i < 8; ++i) a[i] = Fold(a[i], k1024, Load(p + 16 * i));
    }
    // Lanes 0-3 forward by 512 bits onto lanes 4-7: four accumulators over the last 64 bytes.
    x0 = Fold(a[0], k512, a[4]);
    x1 = Fold(a[1], k512, a[5]);
    x2 = Fold(a[2], k512, a[6]);
    x3 = Fold(a[3], k512, a[7]);
  } else {
    x0 = _mm_xor_si128(Load(p), initial);
    x1 = Load(p + 16);
    x2 = Load(p + 32);
    x3 = Load(p + 48);
    p += 64;
    n -= 64;
  }
  // Four accumulators, 64 bytes a step (at most once after the eight-lane loop).
  for (; n >= 64; p += 64, n -= 64) {
    x0 = Fold(x0, k512, Load(p));
    x1 = Fold(x1, k512, Load(p + 16));
    x2 = Fold(x2, k512, Load(p + 32));
    x3 = Fold(x3, k512, Load(p + 48));
  }

  // A tree rather than a chain: 0 and 1 forward by 256 bits onto 2 and 3, then 128 bits.
  const __m128i k256 = Pair(kFold<256 - 32>, kFold<256 + 32>);
  const __m128i k128 = Pair(kFold<128 - 32>, kFold<128 + 32>);
  const __m128i y0 = Fold(x0, k256, x2);
  const __m128i y1 = Fold(x1, k256, x3);
  return FinishPclmul(Fold(y0, k128, y1), p, n);
}

}  // namespace crc32_internal
}  // namespace ssr_native

#else  // not x86: never dispatched to, but keep the symbols defined.

namespace ssr_native {
namespace crc32_internal {
uint32_t ExtendPclmul(uint32_t crc, const uint8_t* p, size_t n) {
  return ExtendPortable(crc, p, n);
}
}  // namespace crc32_internal
}  // namespace ssr_native

#endif
