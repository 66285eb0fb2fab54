// UTF-16 text hashed as UTF-8: the portable transcoder (ASCII runs with the SIMD every x86-64
// and arm64 CPU has, SSE2 or NEON; everything else one character at a time), the dispatch and
// the digest.
#include "ssr_native/utf16_utf8.h"

#include "ssr_native/cpu_features.h"
#include "ssr_native/crc32.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON) && defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace ssr_native {
namespace utf16_utf8_internal {
namespace {

bool IsHighSurrogate(char16_t c) { return c >= 0xD800 && c <= 0xDBFF; }
bool IsLowSurrogate(char16_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

// Units per SIMD step; where a step finds a unit of 0x80 or more, that many units (and the low
// half of a pair that starts in the last of them) go one at a time.
constexpr size_t kStepUnits = 16;

// If the 16 units at `in` are all ASCII, writes them as 16 bytes and returns true.
bool AsciiStep(const char16_t* in, uint8_t* out) {
#if defined(__SSE2__)
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 8));
  const __m128i high =
      _mm_and_si128(_mm_or_si128(a, b), _mm_set1_epi16(static_cast<short>(0xFF80)));
  if (_mm_movemask_epi8(_mm_cmpeq_epi16(high, _mm_setzero_si128())) != 0xFFFF) return false;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(a, b));
  return true;
#elif defined(__ARM_NEON) && defined(__aarch64__)
  const uint16x8_t a = vld1q_u16(reinterpret_cast<const uint16_t*>(in));
  const uint16x8_t b = vld1q_u16(reinterpret_cast<const uint16_t*>(in + 8));
  if (vmaxvq_u16(vorrq_u16(a, b)) >= 0x80) return false;
  vst1q_u8(out, vcombine_u8(vmovn_u16(a), vmovn_u16(b)));
  return true;
#else
  char16_t any = 0;
  for (size_t k = 0; k < kStepUnits; ++k) any |= in[k];
  if (any >= 0x80) return false;
  for (size_t k = 0; k < kStepUnits; ++k) out[k] = static_cast<uint8_t>(in[k]);
  return true;
#endif
}

// The 16 units at `in`, none a surrogate: one character at a time, but with no surrogate tests;
// on CJK text between ASCII markup this beat both EncodeOne and a vector-built, branch-free
// variant (CONTRIBUTING.md).
uint8_t* EncodeBmpStep(const char16_t* in, uint8_t* o) {
  for (size_t k = 0; k < kStepUnits; ++k) {
    const uint32_t c = in[k];
    if (c < 0x80) {
      *o++ = static_cast<uint8_t>(c);
    } else if (c < 0x800) {
      *o++ = static_cast<uint8_t>(0xC0 | (c >> 6));
      *o++ = static_cast<uint8_t>(0x80 | (c & 0x3F));
    } else {
      *o++ = static_cast<uint8_t>(0xE0 | (c >> 12));
      *o++ = static_cast<uint8_t>(0x80 | ((c >> 6) & 0x3F));
      *o++ = static_cast<uint8_t>(0x80 | (c & 0x3F));
    }
  }
  return o;
}

bool HasSurrogate(const char16_t* in) {
  uint32_t any = 0;
  for (size_t k = 0; k < kStepUnits; ++k) any |= (in[k] & 0xF800u) == 0xD800u;
  return any != 0;
}

// The AVX-512 transcoder runs where the CPU has what it needs.
bool HasVbmi2Transcoder() {
  static const bool vbmi2 =
      GetCpuFeatures().avx512bw && GetCpuFeatures().avx512vl && GetCpuFeatures().avx512vbmi2;
  return vbmi2;
}

}  // namespace

size_t EncodeCharacter(const char16_t* in, size_t i, size_t size, uint8_t** out) {
  uint8_t* o = *out;
  const uint32_t c = in[i];
  size_t used = 1;
  if (c < 0x80) {
    *o++ = static_cast<uint8_t>(c);
  } else if (c < 0x800) {
    *o++ = static_cast<uint8_t>(0xC0 | (c >> 6));
    *o++ = static_cast<uint8_t>(0x80 | (c & 0x3F));
  } else if (IsHighSurrogate(static_cast<char16_t>(c)) && i + 1 < size &&
             IsLowSurrogate(in[i + 1])) {
    const uint32_t cp = 0x10000 + ((c - 0xD800) << 10) + (in[i + 1] - 0xDC00u);
    *o++ = static_cast<uint8_t>(0xF0 | (cp >> 18));
    *o++ = static_cast<uint8_t>(0x80 | ((cp >> 12) & 0x3F));
    *o++ = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
    *o++ = static_cast<uint8_t>(0x80 | (cp & 0x3F));
    used = 2;
  } else {
    // A lone surrogate becomes U+FFFD, as Buffer.from does; other characters take 3 bytes.
    const uint32_t cp = (c >= 0xD800 && c <= 0xDFFF) ? 0xFFFD : c;
    *o++ = static_cast<uint8_t>(0xE0 | (cp >> 12));
    *o++ = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
    *o++ = static_cast<uint8_t>(0x80 | (cp & 0x3F));
  }
  *out = o;
  return used;
}

size_t Utf16ToUtf8(const char16_t* in, size_t size, uint8_t* out) {
  return HasVbmi2Transcoder() ? Utf16ToUtf8Avx512(in, size, out)
                              : Utf16ToUtf8Portable(in, size, out);
}

bool MostlyAscii(const char16_t* text, size_t size) {
  constexpr size_t kStride = 8 * kStepUnits;
  size_t sampled = 0;
  size_t non_ascii = 0;
  for (size_t i = 0; i + kStepUnits <= size; i += kStride) {
    char16_t any = 0;
    for (size_t k = 0; k < kStepUnits; ++k) any |= text[i + k];
    non_ascii += any >= 0x80;
    ++sampled;
  }
  return 3 * non_ascii < sampled || sampled == 0;
}

size_t Utf16ToUtf8Portable(const char16_t* in, size_t size, uint8_t* out) {
  uint8_t* o = out;
  size_t i = 0;
  while (i + kStepUnits <= size) {
    if (AsciiStep(in + i, o)) {
      o += kStepUnits;
      i += kStepUnits;
      continue;
    }
    if (!HasSurrogate(in + i)) {
      o = EncodeBmpStep(in + i, o);
      i += kStepUnits;
      continue;
    }
    for (const size_t stop = i + kStepUnits; i < stop;) i += EncodeCharacter(in, i, size, &o);
  }
  while (i < size) i += EncodeCharacter(in, i, size, &o);
  return static_cast<size_t>(o - out);
}

}  // namespace utf16_utf8_internal

bool Utf16TranscoderSuits(const char16_t* text, size_t size) {
  return utf16_utf8_internal::HasVbmi2Transcoder() || utf16_utf8_internal::MostlyAscii(text, size);
}

Utf8Digest Crc32OfUtf16AsUtf8(uint32_t crc, const char16_t* text, size_t size) {
  using utf16_utf8_internal::kChunkUnits;
  uint8_t utf8[3 * kChunkUnits];
  uint64_t utf8_size = 0;
  size_t pos = 0;
  while (pos < size) {
    size_t n = size - pos < kChunkUnits ? size - pos : kChunkUnits;
    // Never cut a surrogate pair: a chunk that would end on a high surrogate leaves it to the next.
    if (pos + n < size && text[pos + n - 1] >= 0xD800 && text[pos + n - 1] <= 0xDBFF) --n;
    const size_t m = utf16_utf8_internal::Utf16ToUtf8(text + pos, n, utf8);
    crc = Crc32(crc, utf8, m);
    utf8_size += m;
    pos += n;
  }
  return Utf8Digest{crc, utf8_size};
}

}  // namespace ssr_native
