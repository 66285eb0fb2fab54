// Borrowing the bytes of a JavaScript value without copying (main thread only: the pointers
// stay valid only while the value is alive and the call has not returned).
#ifndef SSR_NATIVE_SRC_ADDON_BYTES_H_
#define SSR_NATIVE_SRC_ADDON_BYTES_H_

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ssr_native_addon {

struct ByteView {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

/// The bytes of a Buffer, any TypedArray or a DataView, honouring its offset and length.
/// Returns false (and touches nothing) for any other value.
bool ViewOfArrayBufferView(napi_env env, napi_value value, ByteView* out);

/// The bytes of `value`: an ArrayBufferView is borrowed; a string is encoded as UTF-8 into
/// `scratch` (lone surrogates become U+FFFD, as Buffer.from does). Throws a TypeError for
/// anything else.
ByteView BytesOf(const Napi::Value& value, std::string* scratch, const char* what);

/// The bytes of a Buffer, any TypedArray or a DataView, borrowed (no string). Throws a TypeError
/// for anything else, in args.h's wording.
ByteView ViewBytesOf(const Napi::Value& value, const char* what);
/// The same, of `min_size` to `max_size` bytes (a RangeError otherwise): a hash of 32 bytes, a
/// dictionary of 1 byte to 8 MiB.
ByteView ViewBytesOf(const Napi::Value& value, const char* what, size_t min_size, size_t max_size);
/// An array of Buffers, TypedArrays or DataViews, each copied (for work on libuv's pool, where
/// the caller's buffers may be collected). A bad element is named "<what>[<index>]".
std::vector<std::string> ViewCopiesOf(const Napi::Value& value, const char* what);

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_BYTES_H_
