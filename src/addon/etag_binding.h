#ifndef SSR_NATIVE_SRC_ADDON_ETAG_BINDING_H_
#define SSR_NATIVE_SRC_ADDON_ETAG_BINDING_H_

#include <napi.h>

namespace ssr_native_addon {

/// Adds crc32, entityTag, crc32WithPath, crc32Paths and cpuFeatures to the addon's exports.
void InitEtag(Napi::Env env, Napi::Object exports);

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_ETAG_BINDING_H_
