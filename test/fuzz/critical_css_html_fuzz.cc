// libFuzzer target for the critical-CSS page scanner (htmlparser2's states) and the in-place
// rewrite: any bytes as a page with a fixed stylesheet. Finding links and inlining must not
// crash; a processed page keeps every byte of the source in order (the engine only inserts
// and replaces link attributes), checked as a subsequence for pages without stylesheet links.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ssr_native/critical_css.h"

namespace css = ssr_native::critical_css;

namespace {
void Check(bool ok) {
  if (!ok) abort();
}

bool IsSubsequence(std::string_view small, std::string_view big) {
  size_t j = 0;
  for (char c : big) {
    if (j < small.size() && small[j] == c) ++j;
  }
  return j == small.size();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<const css::Plan> plan =
      css::CompilePlan(
          ".a{color:red}.b .c{x:y}#x>p{z:1}[title]{t:1}*{u:2}@media print{.a{v:3}}"
          "@font-face{font-family:F;src:url(f.woff)}.c{font-family:F}")
          .plan;
  const std::string_view page(reinterpret_cast<const char*>(data), size);
  const css::LinksResult links = css::FindLinks(page);
  if (links.status != css::Status::kDone) return 0;
  std::vector<const css::Plan*> plans;
  for (const css::PageLink& link : links.links)
    plans.push_back(link.fetched ? plan.get() : nullptr);
  // both loaders (Angular 21's onload, Angular 22.2's media-script): the page's bytes stay, in
  // order, around what the engine inserts, whatever the input
  for (const bool media_script : {false, true}) {
    css::InlineOptions options;
    options.media_script = media_script;
    const css::InlineResult result = css::Inline(page, plans, options);
    if (result.status != css::Status::kDone) continue;
    if (links.links.empty()) Check(IsSubsequence(page, result.html));
    Check(result.html.size() >= page.size() || !links.links.empty());
  }
  return 0;
}
