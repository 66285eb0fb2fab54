// A Buffer over bytes a shared_ptr keeps alive, without copying them: the Buffer holds a
// reference until V8 collects it, so the owner may drop or replace the bytes meanwhile.
// Where a runtime refuses external buffers, the bytes are copied instead.
#ifndef SSR_NATIVE_SRC_ADDON_SHARED_BUFFER_H_
#define SSR_NATIVE_SRC_ADDON_SHARED_BUFFER_H_

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ssr_native_addon {

template <typename Owner>
void ReleaseSharedBuffer(napi_env /*env*/, void* /*data*/, void* hint) {
  delete static_cast<std::shared_ptr<const Owner>*>(hint);
}

/// `size` bytes at `data`, which `owner` keeps alive.
template <typename Owner>
Napi::Value SharedBuffer(Napi::Env env, const std::shared_ptr<const Owner>& owner,
                         const uint8_t* data, size_t size) {
  if (size == 0) return Napi::Buffer<uint8_t>::New(env, 0);
  auto* hint = new std::shared_ptr<const Owner>(owner);
  napi_value result = nullptr;
  const napi_status status = napi_create_external_buffer(env, size, const_cast<uint8_t*>(data),
                                                         ReleaseSharedBuffer<Owner>, hint, &result);
  if (status != napi_ok) {
    delete hint;
    return Napi::Buffer<uint8_t>::Copy(env, data, size);
  }
  return Napi::Value(env, result);
}

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_SHARED_BUFFER_H_
