#ifndef SSR_NATIVE_SRC_ADDON_CRITICAL_CSS_BINDING_H_
#define SSR_NATIVE_SRC_ADDON_CRITICAL_CSS_BINDING_H_

#include <napi.h>

namespace ssr_native_addon {

/// Adds criticalCssCompile, criticalCssLinks and criticalCssInline to the addon's exports.
void InitCriticalCss(Napi::Env env, Napi::Object exports);

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_CRITICAL_CSS_BINDING_H_
