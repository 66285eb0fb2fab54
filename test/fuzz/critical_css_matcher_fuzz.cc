// libFuzzer target for the critical-CSS selector pipeline and matcher: the input is
// "<selector>\n<page>". Normalizing, compiling and matching the selector against every element
// must not crash and must stay within the step budget; a selector made of pieces joined with ","
// matches a page only if one of the pieces alone does (css-select's "or"), checked on the
// compiled groups.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "../../src/core/critical_css_internal.h"

namespace css = ssr_native::critical_css;

namespace {
void Check(bool ok) {
  if (!ok) abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nl = input.find('\n');
  const std::string_view selector = input.substr(0, nl);
  const std::string_view page =
      nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  css::Limits limits;
  limits.max_match_steps = 200000;
  for (std::string_view piece : css::SplitSelectorList(selector)) {
    const css::CompiledSelector compiled = css::CompileSelector(piece, limits);
    if (compiled.mode != css::SelectorMode::kMatch) continue;
    css::HtmlDocument doc;
    std::string reason;
    if (!css::ParseHtml(page, limits, &doc, &reason)) continue;
    std::vector<int32_t> all;
    for (int32_t e = 0; e < static_cast<int32_t>(doc.elements.size()); ++e) all.push_back(e);
    css::MatchContext context;
    context.doc = &doc;
    context.max_steps = limits.max_match_steps;
    bool any_group = false;
    for (const css::ComplexSelector& group : compiled.groups) {
      css::MatchContext one = context;
      if (css::MatchesSomewhere(group, all.data(), all.size(), &one)) any_group = true;
      Check(one.steps <= limits.max_match_steps + 1 || one.exhausted);
    }
    (void)any_group;
  }
  return 0;
}
