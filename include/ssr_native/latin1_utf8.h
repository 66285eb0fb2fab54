// Hashing Latin-1 text as the UTF-8 bytes it stands for, without writing the UTF-8 out: what
// the ETag of a JavaScript string needs when V8 hands over its one-byte (Latin-1) storage.
#ifndef SSR_NATIVE_LATIN1_UTF8_H_
#define SSR_NATIVE_LATIN1_UTF8_H_

#include <cstddef>
#include <cstdint>

namespace ssr_native {

/// Whether every byte is below 0x80 (so Latin-1 and UTF-8 spell the text the same way).
/// Dispatched at run time (AVX2 where the CPU has it).
bool IsAscii(const uint8_t* data, size_t size);

/// CRC-32 and byte length of the UTF-8 encoding of `size` Latin-1 characters.
struct Utf8Digest {
  uint32_t crc;   ///< extends the `crc` passed in, as Crc32() does
  uint64_t size;  ///< UTF-8 bytes: `size` plus one per character of 0x80 or more
};

/// The ASCII prefix is hashed in place, piece by piece (each piece checked as it is hashed, or
/// checked and then hashed while it is still in L1); from the first non-ASCII piece on, the text is
/// expanded to UTF-8 in small stack chunks. Nothing is allocated, whatever the size.
Utf8Digest Crc32OfLatin1AsUtf8(uint32_t crc, const uint8_t* latin1, size_t size);

namespace latin1_utf8_internal {
// Sizes the implementation works in, exported so tests can aim at their boundaries.
constexpr size_t kAsciiChunk = 16 * 1024;  ///< checked-then-hashed piece of the ASCII prefix
constexpr size_t kExpandChunk = 4 * 1024;  ///< Latin-1 bytes expanded per step
bool IsAsciiPortable(const uint8_t* data, size_t size);
/// If every byte is ASCII, extends `*crc` over them and returns true; otherwise returns false and
/// leaves `*crc`. One pass where the CRC path can check as it folds (vpclmul512), else two.
bool Crc32IfAscii(uint32_t* crc, const uint8_t* data, size_t size);
bool IsAsciiAvx2(const uint8_t* data, size_t size);  ///< only where the CPU has AVX2
/// Latin-1 to UTF-8 into `out` (room for 2 * size bytes); returns the bytes written.
size_t ExpandLatin1Portable(const uint8_t* in, size_t size, uint8_t* out);
/// The same with AVX-512BW + VBMI2: only where the CPU has both.
size_t ExpandLatin1Avx512(const uint8_t* in, size_t size, uint8_t* out);
}  // namespace latin1_utf8_internal

}  // namespace ssr_native

#endif  // SSR_NATIVE_LATIN1_UTF8_H_
