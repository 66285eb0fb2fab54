#include "string_bytes.h"

#include <new>
#include <utility>

namespace ssr_native_addon {
namespace {

// One block per thread, kept between calls so hashing a page allocates nothing.
struct ThreadScratch {
  std::unique_ptr<uint8_t[]> data;
  size_t capacity = 0;
};
thread_local ThreadScratch t_scratch;

// Every UTF-16 code unit becomes at most 3 UTF-8 bytes (a surrogate pair: 4 bytes for 2 units;
// a lone surrogate: U+FFFD, 3 bytes).
constexpr size_t kMaxUtf8BytesPerUnit = 3;

}  // namespace

uint8_t* StringBytes::Reserve(size_t bytes) {
  if (bytes <= t_scratch.capacity) return t_scratch.data.get();
  if (bytes <= kMaxRetainedStringScratch) {
    // Grow geometrically (up to the retained limit) so a rising size settles quickly.
    size_t capacity = t_scratch.capacity < 4096 ? 4096 : t_scratch.capacity;
    while (capacity < bytes) capacity *= 2;
    if (capacity > kMaxRetainedStringScratch) capacity = kMaxRetainedStringScratch;
    uint8_t* data = new (std::nothrow) uint8_t[capacity];
    if (data == nullptr) return nullptr;
    t_scratch.data.reset(data);
    t_scratch.capacity = capacity;
    return data;
  }
  large_.reset(new (std::nothrow) uint8_t[bytes]);
  return large_.get();
}

napi_status StringBytes::Encode(napi_env env, napi_value value, StringEncoding encoding) {
  // The length in UTF-16 code units; this call is also the type check.
  size_t units = 0;
  napi_status status = napi_get_value_string_utf16(env, value, nullptr, 0, &units);
  if (status != napi_ok) return status;
  view_ = ByteView{};
  if (units == 0) return napi_ok;
  // Each napi_get_value_string_* call writes a terminator after the bytes: room for one more.
  size_t written = 0;
  switch (encoding) {
    case StringEncoding::kLatin1: {
      uint8_t* out = Reserve(units + 1);
      if (out == nullptr) return napi_generic_failure;
      status = napi_get_value_string_latin1(env, value, reinterpret_cast<char*>(out), units + 1,
                                            &written);
      view_ = ByteView{out, written};
      return status;
    }
    case StringEncoding::kUtf16le: {
      static_assert(sizeof(char16_t) == 2, "UTF-16 code units are two bytes");
      uint8_t* out = Reserve((units + 1) * sizeof(char16_t));
      if (out == nullptr) return napi_generic_failure;
      status = napi_get_value_string_utf16(env, value, reinterpret_cast<char16_t*>(out), units + 1,
                                           &written);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      for (size_t i = 0; i < written; ++i) std::swap(out[2 * i], out[2 * i + 1]);  // to LE
#endif
      view_ = ByteView{out, written * sizeof(char16_t)};
      return status;
    }
    case StringEncoding::kUtf8:
      break;
  }
  // UTF-8. Room for the longest possible encoding means one pass and no length scan; beyond
  // the retained scratch, ask for the exact length first rather than hold 3x the string.
  size_t capacity = units * kMaxUtf8BytesPerUnit + 1;
  if (capacity > kMaxRetainedStringScratch) {
    size_t exact = 0;
    status = napi_get_value_string_utf8(env, value, nullptr, 0, &exact);
    if (status != napi_ok) return status;
    capacity = exact + 1;
  }
  uint8_t* out = Reserve(capacity);
  if (out == nullptr) return napi_generic_failure;
  status = napi_get_value_string_utf8(env, value, reinterpret_cast<char*>(out), capacity, &written);
  view_ = ByteView{out, written};
  return status;
}

}  // namespace ssr_native_addon
