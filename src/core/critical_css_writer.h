// The CSS writer: the rules a page keeps, written as beasties' serializeStylesheet drives postcss
// (its stringifier over the source's own spacing; compress: its builder's trimmed pieces).
#ifndef SSR_NATIVE_CRITICAL_CSS_WRITER_H_
#define SSR_NATIVE_CRITICAL_CSS_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "critical_css_plan.h"

namespace ssr_native {
namespace critical_css {

// The plan's stylesheet less the nodes `removed` flags (one byte per node). A style rule with a
// `selector_slot` k > 0 is written with the selector text written[k - 1]; one with 0 keeps the
// selector postcss parsed. `compress`: beasties' `compress` option.
std::string WriteKeptRules(const Plan& plan, const std::vector<uint8_t>& removed,
                           const std::vector<uint32_t>& selector_slot,
                           const std::vector<std::string_view>& written, bool compress);

// postcss's Rule#selectors setter: `parts` joined with the first ",\s*" of the `current`
// selector, or "," + `between` (the raws between the selector and "{") when it has none.
std::string JoinLikePostcss(const std::vector<std::string_view>& parts, std::string_view current,
                            std::string_view between);

}  // namespace critical_css
}  // namespace ssr_native

#endif  // SSR_NATIVE_CRITICAL_CSS_WRITER_H_
