// The AVX-512 Argon2 block function: the AVX2 layout (argon2_fill_simd.inc) with AVX-512VL's
// vprorq doing each rotation in one instruction instead of a byte shuffle or two shifts.
#include "argon2_internal.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

namespace ssr_native {
namespace argon2_internal {
namespace {

#define SSR_ARGON2_TARGET __attribute__((target("avx2,avx512f,avx512vl")))

SSR_ARGON2_TARGET inline __m256i Rotr32(__m256i x) { return _mm256_ror_epi64(x, 32); }
SSR_ARGON2_TARGET inline __m256i Rotr24(__m256i x) { return _mm256_ror_epi64(x, 24); }
SSR_ARGON2_TARGET inline __m256i Rotr16(__m256i x) { return _mm256_ror_epi64(x, 16); }
SSR_ARGON2_TARGET inline __m256i Rotr63(__m256i x) { return _mm256_ror_epi64(x, 63); }

#include "argon2_fill_simd.inc"

}  // namespace

SSR_ARGON2_TARGET void FillBlockAvx512(const Block& prev, const Block& ref, Block* next,
                                       bool xor_into_next, const NextBlockHint* hint) {
  FillBlockVector(prev, ref, next, xor_into_next, hint);
}

}  // namespace argon2_internal
}  // namespace ssr_native

#else  // not x86: never dispatched to (the CPU check fails), but keep the symbol defined.

namespace ssr_native {
namespace argon2_internal {
void FillBlockAvx512(const Block& prev, const Block& ref, Block* next, bool xor_into_next,
                     const NextBlockHint* hint) {
  FillBlockPortable(prev, ref, next, xor_into_next, hint);
}
}  // namespace argon2_internal
}  // namespace ssr_native

#endif
