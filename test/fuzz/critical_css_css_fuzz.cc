// libFuzzer target for the critical-CSS stylesheet parser and plan compiler (build: cmake
// -DSSR_NATIVE_FUZZ=ON with clang; run: node scripts/fuzz.js [seconds]). Any bytes as a
// stylesheet: compiling must not crash, and inlining it into a fixed page must either succeed
// with the page's own bytes still in place around the added <style>, or skip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ssr_native/critical_css.h"

namespace css = ssr_native::critical_css;

namespace {
void Check(bool ok) {
  if (!ok) abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  css::CompileResult compiled = css::CompilePlan(input);
  if (!compiled.plan) return 0;
  Check(css::PlanMemoryBytes(*compiled.plan) > 0);
  static const std::string page =
      "<!doctype html><html><head><link rel=stylesheet href=a.css></head><body class=\"a b\">"
      "<div id=x class=c><p class=a>t</p><span title=y></span></div></body></html>";
  for (bool compress : {false, true}) {
    css::InlineOptions options;
    options.compress = compress;
    const css::InlineResult result = css::Inline(page, {compiled.plan.get()}, options);
    if (result.status != css::Status::kDone) continue;
    Check(result.html.size() >= page.size());
    Check(result.html.compare(0, 15, page, 0, 15) == 0);
    Check(result.html.find("<body class=\"a b\">") != std::string::npos);
  }
  return 0;
}
