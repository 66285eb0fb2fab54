// Hashing UTF-16 text as the UTF-8 bytes it stands for, without V8's UTF-8 writer: what the ETag
// of a JavaScript string needs when the string holds characters above U+00FF (V8's two-byte
// strings), e.g. an English page with one typographic quote or dash.
#ifndef SSR_NATIVE_UTF16_UTF8_H_
#define SSR_NATIVE_UTF16_UTF8_H_

#include <cstddef>
#include <cstdint>

#include "ssr_native/latin1_utf8.h"

namespace ssr_native {

/// CRC-32 (continuing `crc`) and byte length of the UTF-8 encoding of `size` UTF-16 code units in
/// native byte order, as Buffer.from(string, 'utf8') encodes them: a surrogate pair as one 4-byte
/// character, a lone surrogate as U+FFFD (EF BF BD). Transcoded in stack chunks and hashed chunk
/// by chunk; nothing is allocated, whatever the size.
Utf8Digest Crc32OfUtf16AsUtf8(uint32_t crc, const char16_t* text, size_t size);

/// Whether Crc32OfUtf16AsUtf8 is expected to beat a one-character-at-a-time encoder such as V8's
/// on `text`: always where the AVX-512 VBMI2 transcoder runs; elsewhere only if most of the text
/// is ASCII, since the portable transcoder takes other text one character at a time (slower than
/// V8's writer on a CJK page, much faster on an English page with a dash: docs/performance.md).
bool Utf16TranscoderSuits(const char16_t* text, size_t size);

namespace utf16_utf8_internal {
/// UTF-16 code units transcoded per chunk (exported so tests can aim at its edges).
constexpr size_t kChunkUnits = 4 * 1024;
/// The UTF-8 of `size` code units into `out` (room for 3 * size bytes); returns the bytes written.
/// A high surrogate in the last unit counts as lone: callers cut chunks before one. Dispatched
/// at run time to one of the two below.
size_t Utf16ToUtf8(const char16_t* in, size_t size, uint8_t* out);
/// ASCII runs 16 units a step with the SIMD every x86-64 and arm64 CPU has (SSE2, NEON), the
/// rest one character at a time.
size_t Utf16ToUtf8Portable(const char16_t* in, size_t size, uint8_t* out);
/// 16 units a step whatever their mix of 1-, 2- and 3-byte characters (AVX-512BW + VBMI2's byte
/// compress); steps with a surrogate go one character at a time. Only where the CPU has both.
size_t Utf16ToUtf8Avx512(const char16_t* in, size_t size, uint8_t* out);
/// Whether fewer than a third of a sample of the text's 16-unit steps (every 8th) hold a unit of
/// 0x80 or more: the portable transcoder's side of Utf16TranscoderSuits.
bool MostlyAscii(const char16_t* text, size_t size);
/// Writes the UTF-8 of the character at in[i] to *out and advances it; returns the units used (2
/// for a surrogate pair, else 1). The one-at-a-time step both transcoders share.
size_t EncodeCharacter(const char16_t* in, size_t i, size_t size, uint8_t** out);
}  // namespace utf16_utf8_internal

}  // namespace ssr_native

#endif  // SSR_NATIVE_UTF16_UTF8_H_
