// The one addon binary. Context-aware (Node-API): it can be loaded by the main thread and by any
// number of worker threads; each area keeps no per-process JavaScript state.
#include <napi.h>

#include "argon2_binding.h"
#include "content_type_binding.h"
#include "critical_css_binding.h"
#include "etag_binding.h"
#include "file_cache_binding.h"
#include "response_slots_binding.h"
#include "shared_cache_binding.h"
#include "zstd_dictionary_binding.h"

namespace ssr_native_addon {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  InitEtag(env, exports);
  InitFileCache(env, exports);
  InitContentType(env, exports);
  InitArgon2(env, exports);
  InitResponseSlots(env, exports);
  InitSharedCache(env, exports);
  InitZstdDictionary(env, exports);
  InitCriticalCss(env, exports);
  return exports;
}

}  // namespace ssr_native_addon

// NODE_API_MODULE pastes its second argument into an identifier: it must be unqualified.
static Napi::Object InitSsrNative(Napi::Env env, Napi::Object exports) {
  return ssr_native_addon::Init(env, exports);
}

NODE_API_MODULE(ssr_native, InitSsrNative)
