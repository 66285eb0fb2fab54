// CRC-32 by 256-bit carry-less-multiply folding (AVX2 + VPCLMULQDQ on ymm registers, VEX
// encoded): the 128-bit algorithm of crc32_pclmul.cc on two 128-bit lanes per register and four
// registers at a time (128 bytes per iteration). This is the widest fold of CPUs with VPCLMULQDQ
// but no AVX-512 (AMD Zen 3, Intel Alder Lake and later client cores). The target attribute names
// no AVX-512 feature, so the compiler can only emit VEX instructions here; reached only after the
// dispatcher's CPU check (crc32.cc).
#include "crc32_internal.h"

#if defined(__x86_64__) || defined(__i386__)

#define SSR_TARGET_VPCLMUL256 __attribute__((target("avx2,vpclmulqdq,pclmul,sse4.1")))

namespace ssr_native {
namespace crc32_internal {
namespace {

SSR_TARGET_VPCLMUL256 inline __m256i Fold(__m256i x, __m256i constants, __m256i data) {
  const __m256i lo = _mm256_clmulepi64_epi128(x, constants, 0x00);
  const __m256i hi = _mm256_clmulepi64_epi128(x, constants, 0x11);
  return _mm256_xor_si256(_mm256_xor_si256(lo, hi), data);
}

SSR_TARGET_VPCLMUL256 inline __m256i Load(const uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// The (d+32, d-32) constant pair of a fold over `Distance` bits, in both lanes.
template <unsigned Distance>
SSR_TARGET_VPCLMUL256 inline __m256i Broadcast() {
  return _mm256_broadcastsi128_si256(_mm_set_epi64x(static_cast<long long>(kFold<Distance - 32>),
                                                    static_cast<long long>(kFold<Distance + 32>)));
}

}  // namespace

SSR_TARGET_VPCLMUL256 uint32_t ExtendVpclmul256(uint32_t crc, const uint8_t* p, size_t n) {
  // Below this the four-register setup and the final folds cost more than the 128-bit path.
  if (n < kVpclmul256MinSize) return ExtendPclmul(crc, p, n);

  const __m256i initial = _mm256_zextsi128_si256(_mm_cvtsi32_si128(static_cast<int>(~crc)));
  __m256i y0 = _mm256_xor_si256(Load(p), initial);
  __m256i y1 = Load(p + 32);
  __m256i y2 = Load(p + 64);
  __m256i y3 = Load(p + 96);
  p += 128;
  n -= 128;

  // Each register moves 4 x 256 bits forward per step.
  const __m256i k1024 = Broadcast<1024>();
  // Two steps per iteration: the same chains, but half the loop overhead, and a loop body whose
  // speed measured far less sensitive to where the compiler happens to place it.
  for (; n >= 256; p += 256, n -= 256) {
    y0 = Fold(y0, k1024, Load(p));
    y1 = Fold(y1, k1024, Load(p + 32));
    y2 = Fold(y2, k1024, Load(p + 64));
    y3 = Fold(y3, k1024, Load(p + 96));
    y0 = Fold(y0, k1024, Load(p + 128));
    y1 = Fold(y1, k1024, Load(p + 160));
    y2 = Fold(y2, k1024, Load(p + 192));
    y3 = Fold(y3, k1024, Load(p + 224));
  }
  if (n >= 128) {
    y0 = Fold(y0, k1024, Load(p));
    y1 = Fold(y1, k1024, Load(p + 32));
    y2 = Fold(y2, k1024, Load(p + 64));
    y3 = Fold(y3, k1024, Load(p + 96));
    p += 128;
    n -= 128;
  }

  const __m256i k256 = Broadcast<256>();
  __m256i y = Fold(y0, k256, y1);
  y = Fold(y, k256, y2);
  y = Fold(y, k256, y3);
  for (; n >= 32; p += 32, n -= 32) y = Fold(y, k256, Load(p));

  // The low lane (the earlier 16 bytes) folded forward by 128 bits onto the high lane.
  const __m128i k128 = _mm_set_epi64x(static_cast<long long>(kFold<128 - 32>),
                                      static_cast<long long>(kFold<128 + 32>));
  const __m128i low = _mm256_castsi256_si128(y);
  const __m128i x = _mm_xor_si128(
      _mm_xor_si128(_mm_clmulepi64_si128(low, k128, 0x00), _mm_clmulepi64_si128(low, k128, 0x11)),
      _mm256_extracti128_si256(y, 1));
  return FinishPclmul(x, p, n);
}

}  // namespace crc32_internal
}  // namespace ssr_native

#else  // not x86: never dispatched to, but keep the symbol defined.

namespace ssr_native {
namespace crc32_internal {
uint32_t ExtendVpclmul256(uint32_t crc, const uint8_t* p, size_t n) {
  return ExtendPortable(crc, p, n);
}
}  // namespace crc32_internal
}  // namespace ssr_native

#endif
