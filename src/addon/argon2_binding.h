#ifndef SSR_NATIVE_SRC_ADDON_ARGON2_BINDING_H_
#define SSR_NATIVE_SRC_ADDON_ARGON2_BINDING_H_

#include <napi.h>

namespace ssr_native_addon {

/// Adds argon2Hash, argon2Configure and argon2PoolStats to the addon's exports.
void InitArgon2(Napi::Env env, Napi::Object exports);

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_ARGON2_BINDING_H_
