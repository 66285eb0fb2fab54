// Content-Type scanning for JavaScript. The result is offsets, not strings: JavaScript slices the
// header it already holds, so the only values crossing the boundary are the header (read once as
// UTF-16) and one number.
//
// scanMediaType(header: string, out: Uint32Array) -> number
//   >= 0: the parameter count; out = [typeBegin, typeEnd, typeHasUpper, then per parameter
//         nameBegin, nameEnd, valueBegin, valueEnd, flags (1: value has escapes, 2: name has
//         upper-case letters)]
//   -1: "invalid media type", -2: "invalid parameter format",
//   -3: valid, but `out` is too small for every parameter (the caller retries with a larger one).
#include "content_type_binding.h"

#include <napi.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "args.h"
#include "ssr_native/content_type.h"

namespace ssr_native_addon {
namespace {

constexpr int32_t kOutTooSmall = -3;
constexpr uint32_t kTypeSlots = 3;
constexpr uint32_t kSlotsPerParameter = 5;

// Writes parameter offsets into the caller's Uint32Array, counting what does not fit.
class OffsetWriter final : public ssr_native::MediaTypeParameterSink {
 public:
  OffsetWriter(uint32_t* out, size_t capacity) : out_(out), capacity_(capacity) {}

  void OnParameter(const ssr_native::MediaTypeParameterSpan& p) override {
    const size_t at = kTypeSlots + count_ * kSlotsPerParameter;
    ++count_;
    if (at + kSlotsPerParameter > capacity_) return;
    out_[at] = p.name_begin;
    out_[at + 1] = p.name_end;
    out_[at + 2] = p.value_begin;
    out_[at + 3] = p.value_end;
    out_[at + 4] = (p.has_escapes ? 1 : 0) | (p.name_has_upper ? 2 : 0);
  }

  size_t count() const { return count_; }
  bool overflowed() const { return kTypeSlots + count_ * kSlotsPerParameter > capacity_; }

 private:
  uint32_t* out_;
  size_t capacity_;
  size_t count_ = 0;
};

napi_value ScanMediaType(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok) return nullptr;
  napi_typedarray_type type;
  size_t capacity = 0;
  void* data = nullptr;
  if (argc < 2 ||
      napi_get_typedarray_info(env, argv[1], &type, &capacity, &data, nullptr, nullptr) !=
          napi_ok ||
      type != napi_uint32_array || capacity < kTypeSlots) {
    ThrowExpectedType(env, "a Uint32Array of at least 3 elements", "out",
                      argc < 2 ? nullptr : argv[1]);
    return nullptr;
  }

  // Headers up to 1023 code units fit the stack buffer; longer ones are read again in full.
  char16_t stack[1024];
  std::vector<char16_t> heap;
  char16_t* units = stack;
  size_t length = 0;
  if (napi_get_value_string_utf16(env, argv[0], stack, sizeof(stack) / sizeof(stack[0]), &length) !=
      napi_ok) {
    ThrowExpectedType(env, "a string", "header", argc < 1 ? nullptr : argv[0]);
    return nullptr;
  }
  if (length + 1 >= sizeof(stack) / sizeof(stack[0])) {
    if (napi_get_value_string_utf16(env, argv[0], nullptr, 0, &length) != napi_ok) return nullptr;
    heap.resize(length + 1);
    if (napi_get_value_string_utf16(env, argv[0], heap.data(), heap.size(), &length) != napi_ok)
      return nullptr;
    units = heap.data();
  }

  uint32_t* out = static_cast<uint32_t*>(data);
  OffsetWriter writer(out, capacity);
  ssr_native::MediaTypeSpan media_type;
  const ssr_native::ContentTypeError error =
      ssr_native::ScanMediaType(std::u16string_view(units, length), &media_type, &writer);
  out[0] = media_type.begin;
  out[1] = media_type.end;
  out[2] = media_type.has_upper ? 1 : 0;
  int32_t result;
  if (error != ssr_native::ContentTypeError::kNone) {
    result = -static_cast<int32_t>(error);
  } else if (writer.overflowed()) {
    result = kOutTooSmall;
  } else {
    result = static_cast<int32_t>(writer.count());
  }
  napi_value value = nullptr;
  napi_create_int32(env, result, &value);
  return value;
}

}  // namespace

void InitContentType(Napi::Env env, Napi::Object exports) {
  napi_value scan;
  NAPI_THROW_IF_FAILED_VOID(env, napi_create_function(env, "scanMediaType", NAPI_AUTO_LENGTH,
                                                      ScanMediaType, nullptr, &scan));
  exports.Set("scanMediaType", Napi::Value(env, scan));
}

}  // namespace ssr_native_addon
