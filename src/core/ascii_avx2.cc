// The ASCII check with 256-bit registers. Compiled with portable flags: the function carries
// the target attribute and is reached only when the CPU reports AVX2 (see latin1_utf8.cc).
#include "ssr_native/latin1_utf8.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

namespace ssr_native {
namespace latin1_utf8_internal {

__attribute__((target("avx2"))) bool IsAsciiAvx2(const uint8_t* p, size_t n) {
  // OR 128 bytes per step into four registers; the high bit of any byte survives to the end.
  __m256i a = _mm256_setzero_si256(), b = a, c = a, d = a;
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    a = _mm256_or_si256(a, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)));
    b = _mm256_or_si256(b, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 32)));
    c = _mm256_or_si256(c, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 64)));
    d = _mm256_or_si256(d, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 96)));
  }
  for (; i + 32 <= n; i += 32) {
    a = _mm256_or_si256(a, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i)));
  }
  const __m256i all = _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d));
  if (_mm256_movemask_epi8(all) != 0) return false;
  return IsAsciiPortable(p + i, n - i);
}

}  // namespace latin1_utf8_internal
}  // namespace ssr_native

#else

namespace ssr_native {
namespace latin1_utf8_internal {
bool IsAsciiAvx2(const uint8_t* p, size_t n) { return IsAsciiPortable(p, n); }
}  // namespace latin1_utf8_internal
}  // namespace ssr_native

#endif
