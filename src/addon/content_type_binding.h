#ifndef SSR_NATIVE_SRC_ADDON_CONTENT_TYPE_BINDING_H_
#define SSR_NATIVE_SRC_ADDON_CONTENT_TYPE_BINDING_H_

#include <napi.h>

namespace ssr_native_addon {

/// Adds scanMediaType to the addon's exports.
void InitContentType(Napi::Env env, Napi::Object exports);

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_CONTENT_TYPE_BINDING_H_
