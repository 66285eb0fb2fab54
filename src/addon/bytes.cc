#include "bytes.h"

#include <cstdio>

#include "args.h"

namespace ssr_native_addon {
namespace {

// Bytes per element, or 0 for a kind these headers do not name here: newer headers add kinds
// (Node 24.22's add napi_float16_array), and an addon built against older ones still meets them
// at run time. The caller then asks the view itself (ByteLengthOfView).
size_t ElementSize(napi_typedarray_type type) {
  switch (type) {
    case napi_int8_array:
    case napi_uint8_array:
    case napi_uint8_clamped_array:
      return 1;
    case napi_int16_array:
    case napi_uint16_array:
      return 2;
    case napi_int32_array:
    case napi_uint32_array:
    case napi_float32_array:
      return 4;
    case napi_float64_array:
    case napi_bigint64_array:
    case napi_biguint64_array:
      return 8;
    default:
      return 0;
  }
}

// The `byteLength` of a typed array of a kind ElementSize does not know. The property can be
// redefined by the caller, so it is believed only when it is a whole number of `length` elements
// that fits in the ArrayBuffer past the view's offset: a lie never reads outside the buffer.
bool ByteLengthOfView(napi_env env, napi_value view, size_t length, napi_value buffer,
                      size_t offset, size_t* out) {
  napi_value property;
  double byte_length = -1;
  if (napi_get_named_property(env, view, "byteLength", &property) != napi_ok ||
      napi_get_value_double(env, property, &byte_length) != napi_ok) {
    bool pending = false;
    napi_value ignored;  // a throwing getter: reported as "not a view", not as its own error
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
      napi_get_and_clear_last_exception(env, &ignored);
    }
    return false;
  }
  void* buffer_data = nullptr;
  size_t buffer_length = 0;
  if (napi_get_arraybuffer_info(env, buffer, &buffer_data, &buffer_length) != napi_ok) return false;
  if (!(byte_length >= 0) || offset > buffer_length ||
      byte_length > static_cast<double>(buffer_length - offset)) {
    return false;
  }
  const size_t bytes = static_cast<size_t>(byte_length);
  if (static_cast<double>(bytes) != byte_length) return false;
  if (length == 0 ? bytes != 0 : bytes % length != 0) return false;
  *out = bytes;
  return true;
}

constexpr const char* kViewTypes = "a Buffer, TypedArray or DataView";

}  // namespace

bool ViewOfArrayBufferView(napi_env env, napi_value value, ByteView* out) {
  bool is_typed_array = false;
  if (napi_is_typedarray(env, value, &is_typed_array) != napi_ok) return false;
  if (is_typed_array) {
    napi_typedarray_type type;
    size_t length = 0;
    void* data = nullptr;  // already advanced by the view's byte offset
    napi_value buffer;
    size_t offset = 0;
    if (napi_get_typedarray_info(env, value, &type, &length, &data, &buffer, &offset) != napi_ok) {
      return false;
    }
    const size_t element_size = ElementSize(type);
    size_t size = length * element_size;
    if (element_size == 0 && !ByteLengthOfView(env, value, length, buffer, offset, &size)) {
      return false;
    }
    out->data = static_cast<const uint8_t*>(data);
    out->size = size;
    return true;
  }
  bool is_data_view = false;
  if (napi_is_dataview(env, value, &is_data_view) != napi_ok || !is_data_view) return false;
  size_t length = 0;
  void* data = nullptr;
  if (napi_get_dataview_info(env, value, &length, &data, nullptr, nullptr) != napi_ok) {
    return false;
  }
  out->data = static_cast<const uint8_t*>(data);
  out->size = length;
  return true;
}

ByteView BytesOf(const Napi::Value& value, std::string* scratch, const char* what) {
  napi_env env = value.Env();
  ByteView view;
  if (ViewOfArrayBufferView(env, value, &view)) return view;
  if (value.IsString()) {
    size_t length = 0;
    napi_get_value_string_utf8(env, value, nullptr, 0, &length);
    scratch->resize(length + 1);  // room for the terminator napi always writes
    napi_get_value_string_utf8(env, value, &(*scratch)[0], length + 1, &length);
    scratch->resize(length);
    view.data = reinterpret_cast<const uint8_t*>(scratch->data());
    view.size = length;
    return view;
  }
  throw ArgTypeError(env,
                     ExpectedMessage(env, "a string, Buffer, TypedArray or DataView", what, value));
}

ByteView ViewBytesOf(const Napi::Value& value, const char* what) {
  ByteView view;
  if (!ViewOfArrayBufferView(value.Env(), value, &view)) {
    throw ArgTypeError(value.Env(), ExpectedMessage(value.Env(), kViewTypes, what, value));
  }
  return view;
}

ByteView ViewBytesOf(const Napi::Value& value, const char* what, size_t min_size, size_t max_size) {
  const ByteView view = ViewBytesOf(value, what);
  if (view.size < min_size || view.size > max_size) {
    char expected[128];
    if (min_size == max_size) {
      std::snprintf(expected, sizeof(expected), "%s of %zu bytes", kViewTypes, min_size);
    } else {
      std::snprintf(expected, sizeof(expected), "%s of %zu to %zu bytes", kViewTypes, min_size,
                    max_size);
    }
    throw ArgRangeError(value.Env(), ExpectedMessage(value.Env(), expected, what, value));
  }
  return view;
}

std::vector<std::string> ViewCopiesOf(const Napi::Value& value, const char* what) {
  if (!value.IsArray()) {
    throw ArgTypeError(
        value.Env(),
        ExpectedMessage(value.Env(), "an array of Buffers, TypedArrays or DataViews", what, value));
  }
  const Napi::Array array = value.As<Napi::Array>();
  const uint32_t length = array.Length();
  std::vector<std::string> copies;
  copies.reserve(length);
  for (uint32_t i = 0; i < length; i++) {
    const Napi::Value element = array.Get(i);
    ByteView view;
    if (!ViewOfArrayBufferView(value.Env(), element, &view)) {
      const std::string name = std::string(what) + "[" + std::to_string(i) + "]";
      throw ArgTypeError(value.Env(), ExpectedMessage(value.Env(), kViewTypes, name, element));
    }
    copies.emplace_back(reinterpret_cast<const char*>(view.data), view.size);
  }
  return copies;
}

}  // namespace ssr_native_addon
