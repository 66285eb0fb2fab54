#ifndef SSR_NATIVE_SRC_ADDON_FILE_CACHE_BINDING_H_
#define SSR_NATIVE_SRC_ADDON_FILE_CACHE_BINDING_H_

#include <napi.h>

namespace ssr_native_addon {

/// Adds the FileCache class (the native half of lib/serve-static.js) to the addon's exports.
void InitFileCache(Napi::Env env, Napi::Object exports);

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_FILE_CACHE_BINDING_H_
