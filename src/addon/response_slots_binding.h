#ifndef SSR_NATIVE_SRC_ADDON_RESPONSE_SLOTS_BINDING_H_
#define SSR_NATIVE_SRC_ADDON_RESPONSE_SLOTS_BINDING_H_

#include <napi.h>

namespace ssr_native_addon {

/// Adds the ResponseSlots class (the response cache's stored responses, used by
/// lib/cache/memory-store.js) to the addon's exports.
void InitResponseSlots(Napi::Env env, Napi::Object exports);

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_RESPONSE_SLOTS_BINDING_H_
