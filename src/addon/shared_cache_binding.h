#ifndef SSR_NATIVE_SRC_ADDON_SHARED_CACHE_BINDING_H_
#define SSR_NATIVE_SRC_ADDON_SHARED_CACHE_BINDING_H_

#include <napi.h>

namespace ssr_native_addon {

/// Adds the SharedCache class (one response store in shared memory for every process of the
/// machine, used by lib/cache/shared-memory-store.js) to the addon's exports.
void InitSharedCache(Napi::Env env, Napi::Object exports);

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_SHARED_CACHE_BINDING_H_
