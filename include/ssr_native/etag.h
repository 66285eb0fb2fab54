// Entity tags from a body's length and CRC-32: W/"<length hex>-<crc32 as 8 hex digits>".
#ifndef SSR_NATIVE_ETAG_H_
#define SSR_NATIVE_ETAG_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace ssr_native {

/// Longest tag FormatEntityTag writes: W/" + 16 hex digits + - + 8 hex digits + ".
constexpr size_t kMaxEntityTagLength = 3 + 16 + 1 + 8 + 1;

/// Writes the tag for a body of `byte_length` bytes whose CRC-32 is `crc` into `out` (room for
/// kMaxEntityTagLength chars, not NUL-terminated) and returns its length. Lowercase hex; the
/// weak form starts with W/.
size_t FormatEntityTag(uint64_t byte_length, uint32_t crc, bool weak, char* out);

/// The tag of `size` bytes at `data`: CRC-32 (dispatched) plus FormatEntityTag.
std::string EntityTag(const void* data, size_t size, bool weak);

}  // namespace ssr_native

#endif  // SSR_NATIVE_ETAG_H_
