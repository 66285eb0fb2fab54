// The bytes Buffer.from(string, encoding) would hold, without a heap copy per call: they are
// written into a scratch block that each thread reuses (a string is read on the JS thread that
// owns it, and nothing runs JavaScript while the block is in use, so one block per thread is
// never shared).
#ifndef SSR_NATIVE_SRC_ADDON_STRING_BYTES_H_
#define SSR_NATIVE_SRC_ADDON_STRING_BYTES_H_

#include <node_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "bytes.h"

namespace ssr_native_addon {

/// How to turn a string into bytes. The values are the codes lib/etag.js passes; encodings
/// not listed (base64, base64url, hex) are decoded in JavaScript with Buffer.from.
enum class StringEncoding : int32_t {
  kUtf8 = 0,     ///< utf8: lone surrogates become U+FFFD (EF BF BD), as in Buffer.from
  kLatin1 = 1,   ///< latin1, binary and ascii: the low byte of each UTF-16 code unit
  kUtf16le = 2,  ///< utf16le, ucs2: each code unit as two little-endian bytes
};

/// Scratch blocks up to this size stay with their thread for the next call; a longer string
/// gets a block of its own that is freed when the StringBytes goes.
constexpr size_t kMaxRetainedStringScratch = size_t{1} << 20;

/// The raw bytes of a string in one of the encodings above, read into scratch memory.
class StringBytes {
 public:
  /// Writes the bytes of `value` as `encoding`. Returns napi_string_expected if
  /// `value` is not a string, napi_generic_failure if memory cannot be had, napi_ok otherwise. The
  /// view stays valid until this object dies or this thread encodes another string.
  napi_status Encode(napi_env env, napi_value value, StringEncoding encoding);

  ByteView view() const { return view_; }

 private:
  // Room for `bytes` bytes: the thread's scratch (grown if needed) or large_.
  uint8_t* Reserve(size_t bytes);

  std::unique_ptr<uint8_t[]> large_;
  ByteView view_;
};

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_STRING_BYTES_H_
