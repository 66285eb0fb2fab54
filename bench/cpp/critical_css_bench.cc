// The critical-CSS engine alone: compiling a stylesheet into a plan, and the per-page step
// (scan the page, mark keys, match, write the kept rules, edit the page) on the page
// (a navbar, a 50-row table padded to ~50 KB, a card, pagination) with Bootstrap 5 + Angular
// Material's azure-blue theme, the stylesheets of the npm devDependencies.
//
// The stylesheets are read from node_modules below the working directory (run from the
// repository root), or from the files named by SSR_NATIVE_BENCH_CSS (colon-separated); the
// page can be replaced with SSR_NATIVE_BENCH_HTML. A missing stylesheet skips the benchmarks
// with a message saying what to install.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ssr_native/critical_css.h"

namespace {

namespace cc = ssr_native::critical_css;

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *out = s.str();
  return true;
}

// The stylesheet, or an empty string with *missing naming the file that could not be read.
std::string Stylesheet(std::string* missing) {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("SSR_NATIVE_BENCH_CSS")) {
    std::string list(env);
    size_t p = 0;
    while (p <= list.size()) {
      size_t q = list.find(':', p);
      if (q == std::string::npos) q = list.size();
      if (q > p) paths.push_back(list.substr(p, q - p));
      p = q + 1;
    }
  } else {
    paths = {"node_modules/bootstrap/dist/css/bootstrap.css",
             "node_modules/@angular/material/prebuilt-themes/azure-blue.css"};
  }
  std::string css;
  for (const std::string& path : paths) {
    std::string text;
    if (!ReadFile(path, &text)) {
      *missing = path;
      return std::string();
    }
    if (!css.empty()) css.push_back('\n');
    css += text;
  }
  return css;
}

// The page of bench/http/micro/critical-css.js, built the same way.
std::string Page() {
  if (const char* env = std::getenv("SSR_NATIVE_BENCH_HTML")) {
    std::string html;
    if (ReadFile(env, &html)) return html;
  }
  std::string rows;
  for (int i = 0; i < 230; ++i) {
    char total[32];
    std::snprintf(total, sizeof(total), "%.2f", i * 7.31);
    if (i > 0) rows += "\n";
    rows += "<tr><th scope=\"row\">" + std::to_string(i) + "</th><td>Item " + std::to_string(i) +
            "</td><td><span class=\"badge text-bg-" + (i % 2 ? "primary" : "secondary") +
            "\">new</span></td><td><button type=\"button\" class=\"btn btn-sm "
            "btn-outline-primary\">Edit</button></td><td class=\"text-end\">" +
            total + "</td></tr>";
  }
  return std::string(
             "<!DOCTYPE html><html lang=\"en\" data-critters-container><head><meta "
             "charset=\"utf-8\"><title>Orders</title><base href=\"/\">\n"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><link "
             "rel=\"stylesheet\" href=\"styles.css\"></head>\n"
             "<body><app-root ng-version=\"21.0.0\"><nav class=\"navbar navbar-expand-lg "
             "bg-body-tertiary\"><div class=\"container-fluid\"><a class=\"navbar-brand\" "
             "href=\"#\">Shop</a>\n"
             "<button class=\"navbar-toggler\" type=\"button\" data-bs-toggle=\"collapse\" "
             "aria-expanded=\"false\"><span class=\"navbar-toggler-icon\"></span></button>\n"
             "<div class=\"collapse navbar-collapse\" id=\"nav\"><ul class=\"navbar-nav me-auto "
             "mb-2 mb-lg-0\"><li class=\"nav-item\"><a class=\"nav-link active\" "
             "aria-current=\"page\" href=\"#\">Home</a></li>\n"
             "<li class=\"nav-item dropdown\"><a class=\"nav-link dropdown-toggle\" "
             "href=\"#\">Account</a><ul class=\"dropdown-menu\"><li><a class=\"dropdown-item\" "
             "href=\"#\">Profile</a></li></ul></li></ul>\n"
             "<form class=\"d-flex\" role=\"search\"><input class=\"form-control me-2\" "
             "type=\"search\" placeholder=\"Search\"><button class=\"btn btn-outline-success\" "
             "type=\"submit\">Search</button></form></div></div></nav>\n"
             "<main class=\"container my-4\"><div class=\"row g-4\"><div "
             "class=\"col-lg-8\"><div class=\"table-responsive\"><table class=\"table "
             "table-striped table-hover align-middle\">\n"
             "<thead class=\"table-light\"><tr><th scope=\"col\">#</th><th "
             "scope=\"col\">Name</th><th scope=\"col\">State</th><th scope=\"col\"></th><th "
             "scope=\"col\" class=\"text-end\">Total</th></tr></thead>\n"
             "<tbody>") +
         rows +
         "</tbody></table></div>\n"
         "<nav aria-label=\"pages\"><ul class=\"pagination justify-content-center\"><li "
         "class=\"page-item disabled\"><a class=\"page-link\">Previous</a></li><li "
         "class=\"page-item active\" aria-current=\"page\"><a class=\"page-link\" "
         "href=\"#\">1</a></li><li class=\"page-item\"><a class=\"page-link\" "
         "href=\"#\">2</a></li><li class=\"page-item\"><a class=\"page-link\" "
         "href=\"#\">Next</a></li></ul></nav></div>\n"
         "<div class=\"col-lg-4\"><div class=\"card shadow-sm\"><img src=\"x.png\" "
         "class=\"card-img-top\" alt=\"x\"><div class=\"card-body\"><h5 "
         "class=\"card-title\">Summary</h5><p class=\"card-text\">Orders this month.</p>\n"
         "<a href=\"#\" class=\"btn btn-primary\">Details</a><button class=\"mdc-button "
         "mat-mdc-button mat-primary\"><span "
         "class=\"mdc-button__label\">Material</span></button></div></div></div></div></"
         "main></app-root>\n"
         "<script src=\"main.js\" type=\"module\"></script></body></html>";
}

// Skips with the reason when the stylesheets are not installed.
bool Prepare(benchmark::State& state, std::string* css) {
  std::string missing;
  *css = Stylesheet(&missing);
  if (css->empty()) {
    state.SkipWithError(("cannot read " + missing +
                         " (run from the repository root after npm install, or set "
                         "SSR_NATIVE_BENCH_CSS)")
                            .c_str());
    return false;
  }
  return true;
}

void BM_CompilePlan(benchmark::State& state) {
  std::string css;
  if (!Prepare(state, &css)) return;
  size_t plan_bytes = 0;
  for (auto _ : state) {
    cc::CompileResult compiled = cc::CompilePlan(css);
    if (!compiled.plan) {
      state.SkipWithError(compiled.error.c_str());
      return;
    }
    plan_bytes = cc::PlanMemoryBytes(*compiled.plan);
    benchmark::DoNotOptimize(compiled.plan.get());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(css.size()));
  state.counters["css_bytes"] = static_cast<double>(css.size());
  state.counters["plan_bytes"] = static_cast<double>(plan_bytes);
}

void BM_InlinePage(benchmark::State& state) {
  std::string css;
  if (!Prepare(state, &css)) return;
  cc::CompileResult compiled = cc::CompilePlan(css);
  if (!compiled.plan) {
    state.SkipWithError(compiled.error.c_str());
    return;
  }
  const std::string html = Page();
  const std::vector<const cc::Plan*> plans = {compiled.plan.get()};
  const cc::InlineOptions options;
  size_t inlined = 0;
  for (auto _ : state) {
    cc::InlineResult result = cc::Inline(html, plans, options);
    if (result.status != cc::Status::kDone) {
      state.SkipWithError(result.reason.c_str());
      return;
    }
    inlined = result.inlined_bytes;
    benchmark::DoNotOptimize(result.html.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(html.size()));
  state.counters["page_bytes"] = static_cast<double>(html.size());
  state.counters["inlined_bytes"] = static_cast<double>(inlined);
}

}  // namespace

BENCHMARK(BM_CompilePlan)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InlinePage)->Unit(benchmark::kMicrosecond);
