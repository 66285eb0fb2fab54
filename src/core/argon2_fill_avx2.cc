// The AVX2 Argon2 block function (see argon2_fill_simd.inc for the layout).
#include "argon2_internal.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

namespace ssr_native {
namespace argon2_internal {
namespace {

#define SSR_ARGON2_TARGET __attribute__((target("avx2")))

SSR_ARGON2_TARGET inline __m256i Rotr32(__m256i x) {
  return _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
}

SSR_ARGON2_TARGET inline __m256i Rotr24(__m256i x) {
  const __m256i m = _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10, 3, 4, 5,
                                     6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10);
  return _mm256_shuffle_epi8(x, m);
}

SSR_ARGON2_TARGET inline __m256i Rotr16(__m256i x) {
  const __m256i m = _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9, 2, 3, 4,
                                     5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9);
  return _mm256_shuffle_epi8(x, m);
}

SSR_ARGON2_TARGET inline __m256i Rotr63(__m256i x) {
  return _mm256_xor_si256(_mm256_srli_epi64(x, 63), _mm256_add_epi64(x, x));
}

#include "argon2_fill_simd.inc"

}  // namespace

SSR_ARGON2_TARGET void FillBlockAvx2(const Block& prev, const Block& ref, Block* next,
                                     bool xor_into_next, const NextBlockHint* hint) {
  FillBlockVector(prev, ref, next, xor_into_next, hint);
}

}  // namespace argon2_internal
}  // namespace ssr_native

#else  // not x86: never dispatched to (the CPU check fails), but keep the symbol defined.

namespace ssr_native {
namespace argon2_internal {
void FillBlockAvx2(const Block& prev, const Block& ref, Block* next, bool xor_into_next,
                   const NextBlockHint* hint) {
  FillBlockPortable(prev, ref, next, xor_into_next, hint);
}
}  // namespace argon2_internal
}  // namespace ssr_native

#endif
