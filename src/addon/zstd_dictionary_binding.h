#ifndef SSR_NATIVE_SRC_ADDON_ZSTD_DICTIONARY_BINDING_H_
#define SSR_NATIVE_SRC_ADDON_ZSTD_DICTIONARY_BINDING_H_

#include <napi.h>

namespace ssr_native_addon {

/// Adds zstdDictionaryStatus, zstdTrainDictionary, zstdDictionaryEncoder, dczEncode,
/// dczEncodeAsync and dczDecode to the addon's exports.
void InitZstdDictionary(Napi::Env env, Napi::Object exports);

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_ZSTD_DICTIONARY_BINDING_H_
