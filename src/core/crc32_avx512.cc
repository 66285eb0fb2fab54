// CRC-32 by 512-bit carry-less-multiply folding (AVX-512 + VPCLMULQDQ): the 128-bit algorithm
// of crc32_pclmul.cc applied to four 128-bit lanes per register and four registers at a time
// (256 bytes per iteration). Compiled with portable flags; reached only after a CPU check.
#include "crc32_internal.h"

#if defined(__x86_64__) || defined(__i386__)

// GCC 12's AVX-512 headers start some intrinsics from _mm512_undefined_*() and then warn about it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define SSR_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512vl,vpclmulqdq,pclmul,sse4.1")))

namespace ssr_native {
namespace crc32_internal {
namespace {

SSR_TARGET_AVX512 inline __m512i Fold(__m512i x, __m512i constants, __m512i data) {
  const __m512i lo = _mm512_clmulepi64_epi128(x, constants, 0x00);
  const __m512i hi = _mm512_clmulepi64_epi128(x, constants, 0x11);
  return _mm512_ternarylogic_epi64(lo, hi, data, 0x96);  // lo ^ hi ^ data
}

SSR_TARGET_AVX512 inline __m512i Load(const uint8_t* p) { return _mm512_loadu_si512(p); }

// The same (d+32, d-32) constant pair in each of the four lanes.
template <unsigned Distance>
SSR_TARGET_AVX512 inline __m512i Broadcast() {
  return _mm512_broadcast_i32x4(_mm_set_epi64x(static_cast<long long>(kFold<Distance - 32>),
                                               static_cast<long long>(kFold<Distance + 32>)));
}

uint8_t OrOfBytes(const uint8_t* p, size_t n) {
  uint8_t all = 0;
  for (size_t i = 0; i < n; ++i) all |= p[i];
  return all;
}

// The fold, optionally ORing every byte it reads into `seen` on the way (the ASCII check of
// Latin-1 text, at one more instruction per 128 bytes instead of a second pass over the text).
template <bool kSeeBytes>
SSR_TARGET_AVX512 inline uint32_t Extend512(uint32_t crc, const uint8_t* p, size_t n,
                                            uint8_t* seen) {
  if (n < kVpclmul512MinSize) {
    // Short bodies: the 256-bit fold sets up faster (every CPU with AVX-512 and VPCLMULQDQ has
    // AVX2 too), and below its own threshold it hands on to the 128-bit one.
    if (kSeeBytes) *seen = OrOfBytes(p, n);
    return ExtendVpclmul256(crc, p, n);
  }

  const __m128i initial = _mm_cvtsi32_si128(static_cast<int>(~crc));
  __m512i z0 = Load(p);
  __m512i z1 = Load(p + 64);
  __m512i z2 = Load(p + 128);
  __m512i z3 = Load(p + 192);
  __m512i any = _mm512_ternarylogic_epi64(z0, z1, _mm512_or_si512(z2, z3), 0xFE);  // a | b | c
  z0 = _mm512_xor_si512(z0, _mm512_inserti32x4(_mm512_setzero_si512(), initial, 0));
  p += 256;
  n -= 256;

  const __m512i k2048 = Broadcast<2048>();
  for (; n >= 256; p += 256, n -= 256) {
    const __m512i d0 = Load(p), d1 = Load(p + 64), d2 = Load(p + 128), d3 = Load(p + 192);
    if (kSeeBytes) {
      any = _mm512_ternarylogic_epi64(any, d0, d1, 0xFE);
      any = _mm512_ternarylogic_epi64(any, d2, d3, 0xFE);
    }
    z0 = Fold(z0, k2048, d0);
    z1 = Fold(z1, k2048, d1);
    z2 = Fold(z2, k2048, d2);
    z3 = Fold(z3, k2048, d3);
  }

  const __m512i k512 = Broadcast<512>();
  __m512i z = Fold(z0, k512, z1);
  z = Fold(z, k512, z2);
  z = Fold(z, k512, z3);
  for (; n >= 64; p += 64, n -= 64) {
    const __m512i d = Load(p);
    if (kSeeBytes) any = _mm512_or_si512(any, d);
    z = Fold(z, k512, d);
  }
  if (kSeeBytes) {
    // Bit 7 of any byte read so far, then the last 0-63 bytes.
    const bool high = _mm512_movepi8_mask(any) != 0;
    *seen = static_cast<uint8_t>((high ? 0x80 : 0) | OrOfBytes(p, n));
  }

  // Lanes 0..2 are folded forward by 384, 256 and 128 bits onto lane 3 and summed.
  const __m512i lanes = _mm512_set_epi64(
      0, 0,  // lane 3: kept as is
      static_cast<long long>(kFold<128 - 32>), static_cast<long long>(kFold<128 + 32>),
      static_cast<long long>(kFold<256 - 32>), static_cast<long long>(kFold<256 + 32>),
      static_cast<long long>(kFold<384 - 32>), static_cast<long long>(kFold<384 + 32>));
  const __m512i folded = Fold(z, lanes, _mm512_maskz_mov_epi64(0xC0, z));
  const __m256i halves =
      _mm256_xor_si256(_mm512_castsi512_si256(folded), _mm512_extracti64x4_epi64(folded, 1));
  const __m128i x =
      _mm_xor_si128(_mm256_castsi256_si128(halves), _mm256_extracti128_si256(halves, 1));
  return FinishPclmul(x, p, n);
}

}  // namespace

SSR_TARGET_AVX512 uint32_t ExtendVpclmul512(uint32_t crc, const uint8_t* p, size_t n) {
  return Extend512<false>(crc, p, n, nullptr);
}

SSR_TARGET_AVX512 uint32_t ExtendVpclmul512SeeingBytes(uint32_t crc, const uint8_t* p, size_t n,
                                                       uint8_t* seen) {
  return Extend512<true>(crc, p, n, seen);
}

}  // namespace crc32_internal
}  // namespace ssr_native

#else

namespace ssr_native {
namespace crc32_internal {
uint32_t ExtendVpclmul512(uint32_t crc, const uint8_t* p, size_t n) {
  return ExtendPortable(crc, p, n);
}
uint32_t ExtendVpclmul512SeeingBytes(uint32_t crc, const uint8_t* p, size_t n, uint8_t* seen) {
  uint8_t all = 0;
  for (size_t i = 0; i < n; ++i) all |= p[i];
  *seen = all;
  return ExtendPortable(crc, p, n);
}
}  // namespace crc32_internal
}  // namespace ssr_native

#endif
