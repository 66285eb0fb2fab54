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
#include <vector>

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
    // The combinator memo (kept across the groups, as a page keeps it across selectors) must
    // answer as the plain walk does.
    std::vector<uint32_t> stamps(doc.elements.size(), 0);
    std::vector<uint8_t> values(doc.elements.size(), 0);
    css::MatchContext memo = context;
    memo.chain_stamp = stamps.data();
    memo.chain_value = values.data();
    bool any_group = false;
    for (const css::ComplexSelector& group : compiled.groups) {
      css::MatchContext one = context;
      const bool plain = css::MatchesSomewhere(group, all.data(), all.size(), &one);
      if (plain) any_group = true;
      Check(one.steps <= limits.max_match_steps + 1 || one.exhausted);
      memo.steps = 0;
      memo.exhausted = false;
      const bool memoized = css::MatchesSomewhere(group, all.data(), all.size(), &memo);
      Check(memoized == plain || one.exhausted || memo.exhausted);
      // Per element too: the memo's answers persist across searches under fresh query ids.
      const int32_t checked = static_cast<int32_t>(all.size() < 64 ? all.size() : 64);
      for (int32_t e = 0; e < checked && !one.exhausted; ++e) {
        css::MatchContext single = context;
        memo.steps = 0;
        const bool a = css::MatchesElement(group, e, &single);
        const bool b = css::MatchesElement(group, e, &memo);
        Check(a == b || single.exhausted || memo.exhausted);
      }
    }
    (void)any_group;
  }
  return 0;
}
