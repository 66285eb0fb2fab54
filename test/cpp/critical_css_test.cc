// Known answers for the critical-CSS engine, each taken from beasties 0.5.4 with Angular's
// options (the differential test in test/js/critical-css-diff.test.js checks thousands more),
// and the hostile inputs it must survive in linear time.
#include "ssr_native/critical_css.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "../../src/core/critical_css_internal.h"

namespace css = ssr_native::critical_css;

namespace {

std::string Inline(const std::string& stylesheet, const std::string& page, bool compress = false,
                   bool media_script = false, bool beasties_0_4 = false) {
  css::CompileResult compiled = css::CompilePlan(stylesheet);
  EXPECT_TRUE(compiled.plan) << compiled.error;
  css::LinksResult links = css::FindLinks(page);
  std::vector<const css::Plan*> plans;
  for (const css::PageLink& l : links.links)
    plans.push_back(l.fetched ? compiled.plan.get() : nullptr);
  css::InlineOptions options;
  options.compress = compress;
  options.media_script = media_script;
  options.beasties_0_4 = beasties_0_4;
  css::InlineResult result = css::Inline(page, plans, options);
  EXPECT_EQ(result.status, css::Status::kDone) << result.reason;
  return result.html;
}

std::string StyleOf(const std::string& html) {
  const size_t b = html.find("<style>");
  const size_t e = html.find("</style>");
  if (b == std::string::npos || e == std::string::npos) return "<none>";
  return html.substr(b + 7, e - b - 7);
}

const char kPage[] =
    "<!doctype html><html><head><link rel=\"stylesheet\" href=\"styles.css\"></head>"
    "<body><div class=\"card\"><p class=\"card-text\">x</p></div></body></html>";

TEST(CriticalCssSelector, NormalizesLikeBeasties) {
  EXPECT_EQ(css::NormalizeSelector(".btn:hover"), ".btn");
  EXPECT_EQ(css::NormalizeSelector(".a:not(.b) .c::before"), ".a .c");
  EXPECT_EQ(css::NormalizeSelector(".table > :not(caption) > * > *"), ".table > *> * > *");
  EXPECT_EQ(css::NormalizeSelector(".md\\:flex:hover"), ".md\\:flex");
  EXPECT_EQ(css::NormalizeSelector("a:is(.x, .y) + b"), "a + b");
  EXPECT_EQ(css::NormalizeSelector("a >"), "a > *");
  EXPECT_EQ(css::NormalizeSelector("::-webkit-scrollbar"), "");
  EXPECT_EQ(css::NormalizeSelector("[data-x=\"a:b\"]"), "[data-x=\"a\"]");
}

TEST(CriticalCssSelector, SplitsLikePostcssListComma) {
  const auto parts = css::SplitSelectorList("a, b:is(c, d) ,e,");
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0], "a");
  EXPECT_EQ(parts[1], "b:is(c, d)");
  EXPECT_EQ(parts[2], "e");
  EXPECT_EQ(parts[3], "");
}

TEST(CriticalCssSelector, ModesFollowBeastiesAndCssSelect) {
  css::Limits limits;
  EXPECT_EQ(css::CompileSelector("html", limits).mode, css::SelectorMode::kAlways);
  EXPECT_EQ(css::CompileSelector("::after", limits).mode, css::SelectorMode::kAlways);
  EXPECT_EQ(css::CompileSelector(".a", limits).mode, css::SelectorMode::kFastPath);
  EXPECT_EQ(css::CompileSelector("[class=a]", limits).mode, css::SelectorMode::kFastPath);
  EXPECT_EQ(css::CompileSelector("[class~=a]", limits).mode, css::SelectorMode::kFastPath);
  EXPECT_EQ(css::CompileSelector("#a, .b", limits).mode, css::SelectorMode::kFastPath);
  // beasties' cache reads these as the whole class / id `a`; the browser does not
  for (const char* partial : {"[class*=a]", "[class^=a]", "[class$=a]", "[class|=a]", "[class]",
                              "[class~=a i]", "[id^=a]", ".b, [class*=a]"}) {
    EXPECT_EQ(css::CompileSelector(partial, limits).mode, css::SelectorMode::kMatch) << partial;
  }
  EXPECT_EQ(css::CompileSelector("div.a", limits).mode, css::SelectorMode::kMatch);
  // pseudo-elements alone apply as `*::x`: kept, as `::before` is
  EXPECT_EQ(css::CompileSelector("::placeholder", limits).mode, css::SelectorMode::kAlways);
  EXPECT_EQ(css::CompileSelector("::file-selector-button", limits).mode,
            css::SelectorMode::kAlways);
  EXPECT_EQ(css::CompileSelector("::-webkit-datetime-edit", limits).mode,
            css::SelectorMode::kAlways);
  EXPECT_EQ(css::CompileSelector(":hover", limits).mode, css::SelectorMode::kNever);
  // emptied by the normalization but the browser applies them: the document element with
  // pseudo-classes, and :is() / :where() read as their list (left out by beasties)
  for (const char* root :
       {":root:not([data-theme=dark])", ":root:not([data-theme])", ":where(:root)", ":where(html)",
        ":is(:root, .a)", ":where(:root,[data-theme])", ":where(:is(:root))"}) {
    EXPECT_EQ(css::CompileSelector(root, limits).mode, css::SelectorMode::kAlways) << root;
  }
  // compounds of pseudo-classes alone before an :is() / :where() subject: `* ~ h1`, `* ~ h2`
  const css::CompiledSelector chain = css::CompileSelector(":where(p, ul) ~ :is(h1, h2)", limits);
  EXPECT_EQ(chain.mode, css::SelectorMode::kMatch);
  EXPECT_EQ(chain.groups.size(), 2u);
  // a first compound of pseudo-classes alone reads as any element (`* > code`), not `:scope >`
  EXPECT_EQ(css::CompileSelector(":not(pre) > code", limits).mode, css::SelectorMode::kMatch);
  EXPECT_FALSE(css::CompileSelector(":not(pre) > code", limits).groups[0].scope_child);
  const css::CompiledSelector list = css::CompileSelector(":where(.a, [data-x], #b)", limits);
  EXPECT_EQ(list.mode, css::SelectorMode::kMatch);
  EXPECT_EQ(list.groups.size(), 3u);
  for (const char* never : {":not(.a)", ":root :not(.a)", ":where()", ":where(:hover)", ":where(",
                            ":nth-child(2)", ":not(.a) :hover"}) {
    EXPECT_EQ(css::CompileSelector(never, limits).mode, css::SelectorMode::kNever) << never;
  }
  // a pseudo-class whose parentheses close on another line: read as on one line (beasties'
  // normalization leaves `(.fas,\n.fab)` and drops it; the browser applies it)
  const css::CompiledSelector lines = css::CompileSelector(":is(.fas,\n.fab)::before", limits);
  EXPECT_EQ(lines.mode, css::SelectorMode::kMatch);
  EXPECT_EQ(lines.groups.size(), 2u);
  EXPECT_EQ(css::CompileSelector(".a:not(.b,\r\n.c) p", limits).mode, css::SelectorMode::kMatch);
  EXPECT_EQ(css::CompileSelector(":where(:root,\n[data-theme])", limits).mode,
            css::SelectorMode::kAlways);
  EXPECT_EQ(css::CompileSelector(":is(:hover,\n:focus)", limits).mode, css::SelectorMode::kNever);
  EXPECT_EQ(css::CompileSelector("a[href^='']", limits).mode, css::SelectorMode::kNever);
  // a namespace reads as any (the browser applies `svg|a`; css-select refuses it)
  EXPECT_EQ(css::CompileSelector("svg|a", limits).mode, css::SelectorMode::kMatch);
  EXPECT_EQ(css::CompileSelector("a[", limits).mode, css::SelectorMode::kNever);
}

TEST(CriticalCssInline, KeepsMatchingRulesAndDefersTheLink) {
  const std::string out = Inline(
      ".card{a:1}\n.btn{b:2}\n.card .card-text, .x{c:3}\n@media "
      "(min-width:1px){.card{d:4}.y{e:5}}\n",
      kPage);
  EXPECT_EQ(StyleOf(out),
            ".card{a:1}\n.card .card-text{c:3}\n@media (min-width:1px){.card{d:4}}\n");
  EXPECT_NE(out.find("<html data-beasties-container>"), std::string::npos);
  EXPECT_NE(out.find("<link rel=\"stylesheet\" href=\"styles.css\" media=\"print\" "
                     "onload=\"this.media='all'\"><noscript><link rel=\"stylesheet\" "
                     "href=\"styles.css\"></noscript>"),
            std::string::npos);
}

// The document element is matched as the subject too (css-select searches below it, the
// browser applies these to it); :where() lists are matched as their selectors.
TEST(CriticalCssInline, TheDocumentElementIsASubject) {
  const std::string page =
      "<!doctype html><html lang=en data-bs-theme=dark class=\"h\"><head>"
      "<link rel=\"stylesheet\" href=\"styles.css\"></head><body><p class=a>x</p></body></html>";
  const std::string sheet =
      "[data-bs-theme=dark]{a:1}html[lang]{b:2}[data-x]{c:3}:where([data-bs-theme]){d:4}"
      ":root:not([data-theme=dark]){e:5}html[lang] body .a{f:6}[lang=fr]{g:7}"
      ":where(.a, .zz){h:8}:where(.zz){i:9}html.h{j:10}html.zz{k:11}p[lang]{l:12}";
  for (bool v04 : {false, true}) {
    SCOPED_TRACE(v04 ? "beasties 0.4" : "beasties 0.5");
    EXPECT_EQ(StyleOf(Inline(sheet, page, false, false, v04)),
              "[data-bs-theme=dark]{a:1}html[lang]{b:2}:where([data-bs-theme]){d:4}"
              ":root:not([data-theme=dark]){e:5}html[lang] body .a{f:6}:where(.a, .zz){h:8}"
              "html.h{j:10}");
  }
  // a first compound of pseudo-classes alone: any element there
  EXPECT_EQ(StyleOf(Inline(":not(pre) > code{a:1}:hover ~ code{b:2}:not(.q) + .zz{c:3}",
                           "<html><head><link rel=stylesheet href=a.css></head><body>"
                           "<p><i></i><code>x</code></p></body></html>")),
            ":not(pre) > code{a:1}:hover ~ code{b:2}");
  EXPECT_EQ(StyleOf(Inline(":where(p, ul) ~ :is(h1, h2){a:1}:where(p) + :is(h3){b:2}",
                           "<html><head><link rel=stylesheet href=a.css></head><body>"
                           "<p>x</p><h2>t</h2></body></html>")),
            ":where(p, ul) ~ :is(h1, h2){a:1}");
  // the compounds before the subject stay: an h2 with no sibling before it is not `* ~ h2`
  EXPECT_EQ(StyleOf(Inline(":where(p) ~ :is(h2){a:1}.b{c:2}",
                           "<html><head><link rel=stylesheet href=a.css></head><body>"
                           "<div><h2 class=b>t</h2></div></body></html>")),
            ".b{c:2}");
  // a page's own container below <html>: the search stays below it
  const std::string contained =
      "<html data-bs-theme=dark><head><link rel=stylesheet href=a.css></head><body>"
      "<div data-beasties-container><p class=b></p></div></body></html>";
  EXPECT_EQ(StyleOf(Inline("[data-bs-theme=dark]{a:1}.b{b:2}", contained)), ".b{b:2}");
}

TEST(CriticalCssInline, CompressWritesBeastiesMinifiedForm) {
  const std::string out =
      Inline("/* c */\n.card ,\n.x {\n  a : 1;\n  b: 2 !important;\n}\n", kPage, true);
  EXPECT_EQ(StyleOf(out), ".card{a :1;b:2 !important}");
}

// beasties' writer drops the "{" of `a{b:1;}` and the first ";" of `a{b:1;c:2;}` (a block with
// nothing between its last ";" and "}"), which the browser reads as a broken rule; ours writes
// what the stylesheet says there, and beasties' bytes wherever its writer gets it right.
TEST(CriticalCssInline, CompressKeepsBlocksWithNothingAfterTheLastSemicolon) {
  EXPECT_EQ(StyleOf(Inline(".card{a:1;}", kPage, true)), ".card{a:1}");
  EXPECT_EQ(StyleOf(Inline(".card{a:1;b:2;}", kPage, true)), ".card{a:1;b:2}");
  EXPECT_EQ(StyleOf(Inline("@media screen{.card{a:1;}}", kPage, true)),
            "@media screen{.card{a:1}}");
  // beasties' own bytes, as before: a space before "}", or none after "{" and no last ";"
  EXPECT_EQ(StyleOf(Inline(".card{a:1; }", kPage, true)), ".card{a:1}");
  EXPECT_EQ(StyleOf(Inline(".card{a:1;b:2}", kPage, true)), ".card{a:1;b:2}");
  EXPECT_EQ(StyleOf(Inline(".card{a:1; b:2;}", kPage, true)), ".card{a:1;b:2;}");
  EXPECT_EQ(StyleOf(Inline(".card{a:1;}", kPage, false)), ".card{a:1;}");
}

TEST(CriticalCssInline, FontsAndKeyframesFollowKeptRules) {
  const std::string out = Inline(
      "@font-face{font-family:\"Used\";src:url(u.woff)}@font-face{font-family:Unused;src:url(x)}"
      "@keyframes spin{to{t:1}}@keyframes other{to{t:2}}"
      ".card{font:12px/1.5 Used, serif;animation:spin 1s}.zzz{font-family:Unused}",
      kPage);
  EXPECT_EQ(StyleOf(out),
            "@font-face{font-family:\"Used\";src:url(u.woff)}@keyframes spin{to{t:1}}"
            ".card{font:12px/1.5 Used, serif;animation:spin 1s}");
}

// Keyframes named through a custom property a kept animation reads with var() are kept, as the
// browser resolves it (Bootstrap's spinners; beasties reads only the animation value's words).
TEST(CriticalCssInline, KeyframesNamedThroughCustomPropertiesAreKept) {
  const std::string sheet =
      "@keyframes spin{to{t:1}}@keyframes fade{to{t:2}}@keyframes other{to{t:3}}"
      "@keyframes unread{to{t:4}}"
      ".card{--anim:spin;animation:var(--anim) 1s}"
      ".card-text{--list:var(--inner, x) 2s;--inner:fade;animation:var( --list)}"
      ".zzz{--anim:other}:root{--unused:unread}";
  for (bool v04 : {false, true}) {
    SCOPED_TRACE(v04 ? "beasties 0.4" : "beasties 0.5");
    EXPECT_EQ(StyleOf(Inline(sheet, kPage, false, false, v04)),
              "@keyframes spin{to{t:1}}@keyframes fade{to{t:2}}"
              ".card{--anim:spin;animation:var(--anim) 1s}"
              ".card-text{--list:var(--inner, x) 2s;--inner:fade;animation:var( --list)}"
              ":root{--unused:unread}");
  }
  // a sheet whose animations read no custom property: its custom properties name nothing
  EXPECT_EQ(StyleOf(Inline("@keyframes spin{to{t:1}}.card{--anim:spin;animation:x 1s}", kPage)),
            ".card{--anim:spin;animation:x 1s}");
}

// A style rule with nested rules is kept whole when one of its own selectors matches, dropped
// whole otherwise, in both beasties modes (beasties drops it: docs/critical-css-differences.md).
std::string InlineMode(const std::string& stylesheet, const std::string& page, bool compress,
                       bool beasties_0_4) {
  return StyleOf(Inline(stylesheet, page, compress, /*media_script=*/false, beasties_0_4));
}

TEST(CriticalCssInline, NestedRulesAreKeptWholeWithAMatchingParent) {
  for (bool v04 : {false, true}) {
    SCOPED_TRACE(v04 ? "beasties 0.4" : "beasties 0.5");
    const std::string card = ".card{& .card-text{font-weight:bold} color:blue}\n.zzz{a:1}\n";
    EXPECT_EQ(InlineMode(card, kPage, false, v04),
              ".card{& .card-text{font-weight:bold} color:blue}\n");
    EXPECT_EQ(InlineMode(card, kPage, true, v04),
              ".card{& .card-text{font-weight:bold}color:blue}");
    // Tailwind 4's space-x-4: the nested rule names no class of its own.
    const std::string page =
        "<html><head><link rel=stylesheet href=a.css></head><body><div class=\"space-x-4\">"
        "<p>a</p><p>b</p></div></body></html>";
    const std::string tw =
        ".space-x-4 {\n  :where(& > :not(:last-child)) {\n    margin-inline-end: 1rem;\n  }\n}\n";
    EXPECT_EQ(InlineMode(tw, page, false, v04), tw);
    EXPECT_EQ(InlineMode(tw, page, true, v04),
              ".space-x-4{:where(& > :not(:last-child)){margin-inline-end:1rem}}");
    // `&` last: the nested rule is kept though nothing on the page is a .y.
    EXPECT_EQ(InlineMode(".x{color:red; .y &{color:green}}",
                         "<html><head><link rel=stylesheet "
                         "href=a.css></head><body><p class=x>x</p></body></html>",
                         false, v04),
              ".x{color:red; .y &{color:green}}");
    // A selector list keeps every selector, with a pseudo-class stripped as for other rules.
    EXPECT_EQ(InlineMode(".nope, .card:hover{& b{c:1}}", kPage, false, v04),
              ".nope, .card:hover{& b{c:1}}");
    // A parent that matches nothing: dropped whole, though `.card-text` is on the page.
    EXPECT_EQ(InlineMode(".nope{& .card-text{a:1} b:2}.card{c:3}", kPage, false, v04),
              ".card{c:3}");
    EXPECT_EQ(InlineMode(".nope{& .card-text{a:1} b:2}", kPage, false, v04), "<none>");
    // Nested @media in a matching parent, a nested rule inside @media, and @media's own rules
    // as before.
    const std::string media =
        ".card{a:1;@media (min-width:1px){b:2}}"
        "@media print{.card{& p{c:3}}.nope{& p{d:4}}.card-text{e:5}.zz{f:6}}";
    EXPECT_EQ(InlineMode(media, kPage, false, v04),
              ".card{a:1;@media (min-width:1px){b:2}}@media print{.card{& p{c:3}}.card-text{e:5}}");
    EXPECT_EQ(InlineMode(media, kPage, true, v04),
              ".card{a:1;@media (min-width:1px){b:2}}@media print{.card{& p{c:3}}.card-text{e:5}}");
  }
}

// Comment directives as each beasties reads them (both answers taken from beasties 0.4.1 and
// 0.5.4 with Angular's options): 0.4 reads `beasties:` only, its command untrimmed and cut at
// a line end; 0.5 reads `critters:` too, trimmed, and no directive spanning lines.
TEST(CriticalCssInline, DirectivesAsEachBeastiesReadsThem) {
  const std::string sheet =
      "/* critters:include */.none{color:red}/* beasties: include */.n2{x:y}"
      "/* beasties:include\nfoo */.n3{z:w}.card{color:blue}";
  EXPECT_EQ(InlineMode(sheet, kPage, false, /*beasties_0_4=*/true), ".n3{z:w}.card{color:blue}");
  EXPECT_EQ(InlineMode(sheet, kPage, false, /*beasties_0_4=*/false),
            ".none{color:red}.n2{x:y}.card{color:blue}");
}

// SVG tag names as each htmlparser2 names them: 10 (beasties 0.4) lowercases `clipPath` and
// keeps `<image>`, so css-select's lowercased tag selectors match them; 12 (beasties 0.5)
// writes `clipPath` and `img`, which a lowercased selector never equals.
TEST(CriticalCssInline, SvgCamelCaseTagsAsEachBeastiesNamesThem) {
  const std::string page =
      "<html><head><link rel=stylesheet href=a.css></head><body><svg class=icon>"
      "<clipPath></clipPath><foreignObject></foreignObject></svg><image src=x></body></html>";
  const std::string sheet =
      "clipPath{a:1}CLIPPATH{b:2}.icon foreignObject{c:3}linearGradient{d:4}image{e:5}img{f:6}";
  EXPECT_EQ(InlineMode(sheet, page, false, /*beasties_0_4=*/true),
            "clipPath{a:1}CLIPPATH{b:2}.icon foreignObject{c:3}image{e:5}");
  EXPECT_EQ(InlineMode(sheet, page, false, /*beasties_0_4=*/false), "img{f:6}");
}

// Angular 21's override for a link a previous pass deferred (answers from beasties 0.4.1 with
// Angular 21's processor): the media back from the handler, the handler and the <noscript>
// after it removed, the link deferred again; the removed copy's classes stay in beasties'
// cache (`.b`), its elements leave the searched tree.
TEST(CriticalCssInline, Angular21UndoesAPreviousDeferralAndInlinesAgain) {
  const std::string page =
      "<html><head><link rel=stylesheet href=a.css media=print onload=\"this.media='screen'\">"
      "<noscript><link rel=stylesheet href=a.css><p class=b></p></noscript></head>"
      "<body><p class=a></p></body></html>";
  const std::string sheet = ".a{color:red}.b{color:blue}noscript p{x:y}";
  const std::string out = Inline(sheet, page, false, false, /*beasties_0_4=*/true);
  // the <style> paints where the stylesheet would: the handler's media
  EXPECT_NE(out.find("<style media=\"screen\">.a{color:red}.b{color:blue}</style>"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("<link rel=stylesheet href=a.css media=\"print\" "
                     "onload=\"this.media='screen'\"><noscript><link rel=\"stylesheet\" "
                     "href=\"a.css\" media=\"screen\"></noscript></head>"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("<p class=b>"), std::string::npos) << out;
}

// A `}` at the top level starts a rule in the browser that runs to the end of the next block
// (CSS Syntax 3), so that rule never applies: it is left out, wherever the `}` stands. The
// stray `}` stays in the root's raws.after (postcss-safe-parser's), the rest as beasties writes.
TEST(CriticalCssInline, AStrayCloseBraceDropsTheRuleItSwallows) {
  const std::string page =
      "<html><head><link rel=stylesheet href=a.css></head>"
      "<body><p class=\"a b c\">x</p></body></html>";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {".a{x:1}}\n.b{y:2}", ".a{x:1}}"},
      {".a{x:1}} .b{y:2} .c{z:3}", ".a{x:1} .c{z:3}}"},
      {"@media screen{.a{x:1}}}\n.b{y:2}.c{z:3}", "@media screen{.a{x:1}}.c{z:3}}"},
      {".a{x:1}} @media screen{.b{y:2}} .c{z:3}", ".a{x:1} .c{z:3}}"},
      {".a{x:1}} \"s{\" [x=\"{\"] /*{*/ .b{y:{2}} .c{z:3}", ".a{x:1} .c{z:3}}"},
      {".a{x:1}} :is(.b{) .c{z:3}", ".a{x:1}}"},
      {".a{x:1}} } .b{y:2} .c{z:3}", ".a{x:1} .c{z:3}} }"},
      {".a{x:1}} .b{y:2", ".a{x:1}}"},
      {"}.b{y:2}.c{z:3}", ".c{z:3}}"},
  };
  for (const auto& [sheet, style] : cases) {
    EXPECT_EQ(StyleOf(Inline(sheet, page)), style) << sheet;
  }
}

// A link inside the page's own <noscript> gets no <noscript> copy inside it: the browser would
// end the outer one at the inner's end tag and paint the rest of its content.
TEST(CriticalCssInline, NoNoscriptCopyInsideTheNoscriptOfTheLink) {
  const std::string page =
      "<html><head><noscript><link rel=stylesheet href=a.css><p class=b>n</p></noscript>"
      "<link rel=stylesheet href=a.css></head><body><p class=a></p></body></html>";
  // the copy stays in the tree that is matched, as beasties has it: `link+p` matches nothing
  const std::string out = Inline(".a{color:red}link+p{x:y}", page, false, /*media_script=*/true);
  EXPECT_NE(out.find("<noscript><style>.a{color:red}</style><link rel=stylesheet href=a.css "
                     "media=\"print\" data-beasties-media=\"all\"><p class=b>n</p></noscript>"),
            std::string::npos)
      << out;
  // the link outside it keeps its copy
  EXPECT_NE(out.find("data-beasties-media=\"all\"><noscript><link rel=\"stylesheet\" "
                     "href=\"a.css\"></noscript></head>"),
            std::string::npos)
      << out;
}

// A namespaced selector reads its namespace as any (css-select refuses it: beasties leaves it
// out, the browser applies it); @namespace is kept so that the kept rules' prefixes stay declared.
TEST(CriticalCssInline, NamespacedSelectorsAreKeptWithTheirNamespace) {
  const std::string page =
      "<html><head><link rel=stylesheet href=a.css></head>"
      "<body><p>x</p><svg><rect></rect></svg></body></html>";
  EXPECT_EQ(StyleOf(Inline("@namespace svg url(http://www.w3.org/2000/svg);svg|rect{fill:red}"
                           "*|p{color:blue}|p{a:b}svg|circle{c:d}[xlink|href]{e:f}*|*{g:h}",
                           page)),
            "@namespace svg url(http://www.w3.org/2000/svg);svg|rect{fill:red}*|p{color:blue}"
            "|p{a:b}[xlink|href]{e:f}*|*{g:h}");
}

// leave_inlined (serving behind Angular's own inliner): a rendered page carrying an earlier
// inlining under either loader, or a container, is skipped with the reason the JS layer warns
// on; a prerendered one keeps its own reason; a page not inlined yet is inlined.
TEST(CriticalCssInline, LeaveInlinedSkipsAnyPageAlreadyInlined) {
  css::CompileResult compiled = css::CompilePlan(".a{color:red}");
  ASSERT_TRUE(compiled.plan) << compiled.error;
  auto run = [&](const std::string& page, bool media_script) {
    std::vector<const css::Plan*> plans;
    for (const css::PageLink& l : css::FindLinks(page).links)
      plans.push_back(l.fetched ? compiled.plan.get() : nullptr);
    css::InlineOptions options;
    options.media_script = media_script;
    options.leave_inlined = true;
    return css::Inline(page, plans, options);
  };
  const std::string classic =
      "<html><head><link rel=stylesheet href=a.css media=print onload=\"this.media='all'\">"
      "<noscript><link rel=stylesheet href=a.css></noscript></head>"
      "<body><app-root ng-server-context=ssr><p class=a></p></app-root></body></html>";
  const std::string runtime =
      "<html><head><link rel=stylesheet href=a.css media=print data-beasties-media=all></head>"
      "<body><p class=a></p><script>/* loader */</script></body></html>";
  const std::string container =
      "<html data-beasties-container><head><style>.a{color:red}</style>"
      "<link rel=stylesheet href=a.css></head><body><p class=a></p></body></html>";
  for (bool media_script : {false, true}) {
    SCOPED_TRACE(media_script ? "media-script" : "media");
    for (const std::string& page : {classic, runtime, container}) {
      const css::InlineResult result = run(page, media_script);
      EXPECT_EQ(result.status, css::Status::kSkipped) << page;
      EXPECT_EQ(result.reason, "a page Angular already inlined") << page;
    }
    std::string prerendered = runtime;
    prerendered.replace(prerendered.find("<p class=a>"), 0, "<app-root ng-server-context=ssg>");
    EXPECT_EQ(run(prerendered, media_script).reason, "a prerendered page already inlined");
    const css::InlineResult fresh = run(kPage, media_script);
    EXPECT_EQ(fresh.status, css::Status::kDone) << fresh.reason;
  }
}

// A page's own data-beasties-container is the container (not marked again); below one with an
// element parent css-select reads `div>p` as `:scope div>p` (answers from beasties 0.4.1 and
// 0.5.4).
TEST(CriticalCssInline, APagesOwnContainerScopesTheSearch) {
  const std::string page =
      "<html><head><link rel=stylesheet href=a.css></head><body><p class=a></p>"
      "<div data-beasties-container><p class=b></p><div><p></p></div></div></body></html>";
  for (bool v04 : {false, true}) {
    SCOPED_TRACE(v04 ? "beasties 0.4" : "beasties 0.5");
    const std::string out =
        Inline(".a{color:red}.b{color:blue}div>p{z:w}div p{y:x}", page, false, false, v04);
    EXPECT_EQ(StyleOf(out), ".b{color:blue}div>p{z:w}div p{y:x}");
    EXPECT_EQ(out.find("<html data-beasties-container>"), std::string::npos) << out;
  }
}

TEST(CriticalCssInline, FontsAndKeyframesSeeKeptNestedRules) {
  const std::string out = InlineMode(
      "@font-face{font-family:Used;src:url(u.woff)}@keyframes spin{to{t:1}}"
      "@keyframes other{to{t:2}}.card{& p{font-family:Used;animation:spin 1s}}"
      ".nope{& p{animation:other 1s}}",
      kPage, false, false);
  EXPECT_EQ(out,
            "@font-face{font-family:Used;src:url(u.woff)}@keyframes spin{to{t:1}}"
            ".card{& p{font-family:Used;animation:spin 1s}}");
}

// daisyUI's .aura-holo{@layer daisyui.l1.l2{animation:aura …}}: the declarations straight inside
// an at-rule nested in a kept rule name keyframes and fonts too.
TEST(CriticalCssInline, FontsAndKeyframesSeeAtRulesNestedInKeptRules) {
  const std::string out = InlineMode(
      "@font-face{font-family:Used;src:url(u.woff)}@keyframes aura{to{t:1}}"
      "@keyframes fade{to{t:2}}@keyframes other{to{t:3}}"
      ".card{@layer l1.l2{animation:aura 1s}@media (x){font-family:Used;animation:fade 2s}}"
      ".nope{@layer l1{animation:other 1s}}",
      kPage, false, false);
  EXPECT_EQ(out,
            "@font-face{font-family:Used;src:url(u.woff)}@keyframes aura{to{t:1}}"
            "@keyframes fade{to{t:2}}"
            ".card{@layer l1.l2{animation:aura 1s}@media (x){font-family:Used;animation:fade 2s}}");
}

TEST(CriticalCssInline, CspNonceMovesOnloadIntoAngularsScript) {
  const std::string page =
      "<html><head><style>.own{}</style><link rel=stylesheet href=s.css></head>"
      "<body><app-root ngCspNonce=\"N1\" class=card></app-root></body></html>";
  const std::string out = Inline(".card{a:1}", page);
  EXPECT_NE(out.find("<style nonce=\"N1\">.card{a:1}</style><script nonce=\"N1\">"),
            std::string::npos);
  EXPECT_NE(out.find("<style nonce=\"N1\">.own{}"), std::string::npos);
  EXPECT_NE(out.find("media=\"print\" ngCspMedia=\"all\">"), std::string::npos);
  EXPECT_EQ(out.find("onload="), std::string::npos);
}

TEST(CriticalCssInline, MediaScriptDefersWithOneScriptAtTheEndOfBody) {
  // Angular 22.2: the nonce on every <style> added (a link in <body> too), none on the page's
  // own; one loader script where the parser closes <body>, after text that ends it.
  const std::string page =
      "<html><head><style>.own{}</style><link rel=stylesheet href=s.css></head>"
      "<body><app-root ngCspNonce=\"N1\" class=card></app-root><link rel=stylesheet "
      "href=s.css>tail</body>\n</html>";
  const std::string out = Inline(".card{a:1}", page, false, true);
  const std::string loader =
      "<script nonce=\"N1\">document.querySelectorAll('link[data-beasties-media]').forEach(";
  EXPECT_NE(out.find("<style>.own{}"), std::string::npos) << out;
  const std::string deferred =
      "<style nonce=\"N1\">.card{a:1}</style><link rel=stylesheet href=s.css media=\"print\" "
      "data-beasties-media=\"all\">";
  const size_t first = out.find(deferred);
  ASSERT_NE(first, std::string::npos) << out;
  EXPECT_NE(out.find(deferred, first + 1), std::string::npos) << "the link in <body>: " << out;
  EXPECT_NE(out.find("</noscript>tail" + loader), std::string::npos) << out;
  EXPECT_NE(out.find("l.removeAttribute('data-beasties-media')})</script></body>\n</html>"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find(loader), out.rfind(loader)) << "one script: " << out;
  EXPECT_EQ(out.find("onload="), std::string::npos);
  EXPECT_EQ(out.find("ngCspMedia"), std::string::npos);
  // no </body>: the script goes where the input ends
  const std::string open = Inline(
      ".card{a:1}", "<html><head><link rel=stylesheet href=s.css></head><body><p class=card>x",
      false, true);
  EXPECT_EQ(open.substr(open.size() - 9), "</script>") << open;
}

TEST(CriticalCssInline, LoaderScriptTextsAreTheOnesWritten) {
  // the build-time command (prerender.js) rewrites the pages around these texts
  const std::string media = Inline(
      ".card{a:1}", "<head><link rel=stylesheet href=s.css></head><body><p class=card>x</p></body>",
      false, true);
  EXPECT_NE(media.find("<script>" + std::string(css::MediaLoaderScript()) + "</script></body>"),
            std::string::npos)
      << media;
  const std::string csp = Inline(
      ".card{a:1}",
      "<html><head><link rel=stylesheet href=s.css></head><body><p class=card ngCspNonce=N>x",
      false, false);
  EXPECT_NE(csp.find("<script nonce=\"N\">" + std::string(css::CspLoaderScript()) + "</script>"),
            std::string::npos)
      << csp;
}

TEST(CriticalCssInline, LinksBeastiesDoesNotFetchAreLeftAlone) {
  const css::LinksResult links = css::FindLinks(
      "<link rel=stylesheet href=a.css data-beasties-skip><link rel=StyleSheet href=b.css?v=1>"
      "<link rel=stylesheet href=c.js><link rel=\"preload stylesheet\" href=d.css>");
  ASSERT_EQ(links.links.size(), 3u);
  EXPECT_FALSE(links.links[0].fetched);
  EXPECT_TRUE(links.links[1].fetched);
  EXPECT_FALSE(links.links[2].fetched);
}

TEST(CriticalCssHtml, BuildsHtmlparser2sTree) {
  css::HtmlDocument doc;
  std::string reason;
  ASSERT_TRUE(css::ParseHtml("<p><div></div></p><ul><li>a<li>b</ul><input><br></br>", css::Limits(),
                             &doc, &reason));
  std::vector<std::string> names;
  for (const auto& e : doc.elements)
    names.push_back(std::string(e.name) + ":" + std::to_string(e.parent));
  // <p> is closed by <div>; "</p>" alone makes an empty <p>; <li> closes <li>; "</br>" is a <br>.
  const std::vector<std::string> expected = {"p:-1", "div:-1",   "p:-1",  "ul:-1", "li:3",
                                             "li:3", "input:-1", "br:-1", "br:-1"};
  EXPECT_EQ(names, expected);
}

TEST(CriticalCssHtml, StorageKeptBetweenPagesIsReusedAndCapped) {
  // A page after a larger one on the same thread reuses the larger one's storage and still
  // gets exactly its own tree.
  std::string small = "<ul><li class=a>x<li id=b>y</ul>";
  std::string large = "<html><body>";
  for (int i = 0; i < 2000; ++i) large += "<div a=1 b=2><p>t</p></div>";
  std::vector<std::string> fresh;
  {
    css::HtmlDocument doc;
    std::string reason;
    ASSERT_TRUE(css::ParseHtml(small, css::Limits(), &doc, &reason));
    for (const auto& e : doc.elements) fresh.push_back(std::string(e.name));
    EXPECT_EQ(doc.attrs.size(), 2u);
  }
  {
    css::HtmlDocument doc;
    std::string reason;
    ASSERT_TRUE(css::ParseHtml(large, css::Limits(), &doc, &reason));
  }
  const size_t kept = css::KeptDocumentBytes();
  EXPECT_GT(kept, 2000 * sizeof(css::HtmlElement));  // the large page's storage is kept
  {
    css::HtmlDocument doc;
    EXPECT_LT(css::KeptDocumentBytes(), 2000 * sizeof(css::HtmlElement));  // taken by it
    std::string reason;
    ASSERT_TRUE(css::ParseHtml(small, css::Limits(), &doc, &reason));
    std::vector<std::string> again;
    for (const auto& e : doc.elements) again.push_back(std::string(e.name));
    EXPECT_EQ(again, fresh);
    EXPECT_EQ(doc.attrs.size(), 2u);
    EXPECT_EQ(doc.texts.size(), 2u);
  }
  // A huge page (hundreds of thousands of elements) does not pin its storage: each vector
  // beyond the cap is freed with its document.
  std::string huge;
  for (int i = 0; i < 300000; ++i) huge += "<i a=1></i>";
  {
    css::HtmlDocument doc;
    std::string reason;
    ASSERT_TRUE(css::ParseHtml(huge, css::Limits(), &doc, &reason));
    EXPECT_EQ(doc.elements.size(), 300000u);
  }
  EXPECT_LE(css::KeptDocumentBytes(), size_t{8} << 20);
}

TEST(CriticalCssHostile, DeepNestingIsRefusedNotRecursed) {
  std::string page = "<html><head><link rel=stylesheet href=a.css></head><body>";
  for (int i = 0; i < 100000; ++i) page += "<div>";
  const css::LinksResult links = css::FindLinks(page);
  EXPECT_EQ(links.status, css::Status::kSkipped);
  std::string sheet;
  for (int i = 0; i < 100000; ++i) sheet += "@media print{";
  EXPECT_FALSE(css::CompilePlan(sheet).plan);  // nested too deep: an error value
}

TEST(CriticalCssHostile, HugeAttributeAndUnterminatedInput) {
  std::string page = "<html><head><link rel=stylesheet href=a.css></head><body><div class=\"";
  page += std::string(1 << 20, 'a');
  page += "\"></div><!-- never closed <p class=x>";
  const std::string out = Inline(".x{a:1}'unterminated {", page);
  EXPECT_EQ(StyleOf(out), "<none>");  // nothing matched: the <style> is removed, as beasties does
  EXPECT_NE(out.find("media=\"print\""), std::string::npos);
}

TEST(CriticalCssHostile, ManySelectorsAndPathologicalNestingStayLinear) {
  std::string sheet;
  for (int i = 0; i < 100000; ++i)
    sheet += ".c" + std::to_string(i) + " .d:is(.e:has(.f:is(.g))){x:y}";
  sheet += std::string(5000, '(');
  std::string page = "<html><head><link rel=stylesheet href=a.css></head><body>";
  for (int i = 0; i < 300; ++i) page += "<div class=\"c" + std::to_string(i) + " d\">";
  const auto start = std::chrono::steady_clock::now();
  const std::string out = Inline(sheet, page);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // .c0 is the outermost element, every other one a .d below it; nothing is below .c299.
  EXPECT_EQ(StyleOf(out).find(".c0 .d:is(.e:has(.f:is(.g))){x:y}"), 0u);
  EXPECT_EQ(StyleOf(out).find(".c299 .d"), std::string::npos);
  EXPECT_LT(seconds, 30.0);  // a guard against a hang, not a speed goal
}

TEST(CriticalCssHostile, MatcherWorkIsBounded) {
  // Backtracking over 400 ancestors for eleven descendant combinators that can never all match:
  // exponential for a naive matcher. The combinator memo answers each ancestor once per
  // compound, so the page is done within a modest budget (the rule dropped: no <span> is an
  // ancestor of the <p>); a budget below that still gives the page up (sent unchanged).
  const std::string sheet = "span div div div div div div div div div div p{x:y}a{b:c}";
  std::string page =
      "<html><head><link rel=stylesheet href=a.css></head><body><a></a><span></span>";
  for (int i = 0; i < 400; ++i) page += "<div>";
  page += "<p>";
  css::CompileResult compiled = css::CompilePlan(sheet);
  css::Limits limits;
  limits.max_match_steps = 100000;
  css::InlineResult result = css::Inline(page, {compiled.plan.get()}, css::InlineOptions(), limits);
  EXPECT_EQ(result.status, css::Status::kDone) << result.reason;
  EXPECT_EQ(StyleOf(result.html), "a{b:c}");
  limits.max_match_steps = 1000;
  result = css::Inline(page, {compiled.plan.get()}, css::InlineOptions(), limits);
  EXPECT_EQ(result.status, css::Status::kSkipped);
  EXPECT_NE(result.reason.find("work limit"), std::string::npos);
}

}  // namespace

// The matcher's scratch is kept per thread from page to page, but a huge page does not pin it:
// every vector a page grew beyond the cap is freed after that page.
TEST(CriticalCssHostile, HugePageDoesNotPinMatchScratch) {
  const std::string sheet = ".c{color:red}.d .c{color:blue}i+i{margin:0}";
  css::CompileResult compiled = css::CompilePlan(sheet);
  ASSERT_TRUE(compiled.plan);
  const std::string head = "<html><head><link rel=stylesheet href=a.css></head><body><div class=d>";
  std::string huge = head;
  for (int i = 0; i < 300000; ++i) huge += "<i class=c></i>";
  huge += "</div></body></html>";
  css::InlineResult result = css::Inline(huge, {compiled.plan.get()}, css::InlineOptions());
  ASSERT_EQ(result.status, css::Status::kDone) << result.reason;
  EXPECT_NE(result.html.find(".d .c{color:blue}"), std::string::npos);
  EXPECT_LE(css::LargestKeptMatchScratchBytes(), size_t{1} << 20);
  // a page of usual size keeps its scratch for the next one
  const std::string page = head + "<i class=c></i><i class=c></i></div></body></html>";
  result = css::Inline(page, {compiled.plan.get()}, css::InlineOptions());
  ASSERT_EQ(result.status, css::Status::kDone) << result.reason;
  EXPECT_GT(css::LargestKeptMatchScratchBytes(), 0u);
  EXPECT_LE(css::LargestKeptMatchScratchBytes(), size_t{1} << 20);
}

// Each stylesheet link may add a copy of its CSS: a page linking one stylesheet thousands of
// times (an HTML injection point is enough) would multiply its size. Past the link bound or the
// inlined-bytes bound the page is kOverBound, decided before its output is built.
TEST(CriticalCssHostile, OutputBoundedByLinksAndInlinedBytes) {
  css::CompileResult compiled = css::CompilePlan("a{b:c}\n.x{color:red}");
  ASSERT_TRUE(compiled.plan) << compiled.error;
  auto page_with = [](size_t links) {
    std::string page = "<html><head>";
    for (size_t i = 0; i < links; ++i) page += "<link rel=stylesheet href=s.css>";
    return page + "</head><body><a class=x></a></body></html>";
  };
  size_t resolved = 0;
  const css::PlanResolver resolve = [&](size_t, std::string_view) -> const css::Plan* {
    ++resolved;
    return compiled.plan.get();
  };
  css::Limits limits;
  // at the bound: one <style> per link, as Angular writes them
  css::InlineResult result = css::Inline(page_with(64), resolve, css::InlineOptions(), limits);
  ASSERT_EQ(result.status, css::Status::kDone) << result.reason;
  EXPECT_EQ(result.styles_inlined, 64u);
  // past it: over the bound, and no stylesheet was even resolved (nothing read)
  resolved = 0;
  result = css::Inline(page_with(10000), resolve, css::InlineOptions(), limits);
  EXPECT_EQ(result.status, css::Status::kOverBound);
  EXPECT_NE(result.reason.find("more than 64 stylesheet links"), std::string::npos);
  EXPECT_TRUE(result.html.empty());
  EXPECT_EQ(resolved, 0u);
  // the inlined bytes: "a{b:c}\n.x{color:red}" kept whole is 20 bytes a link
  limits.max_inlined_bytes = 10 * 20;
  result = css::Inline(page_with(10), resolve, css::InlineOptions(), limits);
  EXPECT_EQ(result.status, css::Status::kDone) << result.reason;
  EXPECT_EQ(result.inlined_bytes, 200u);
  result = css::Inline(page_with(11), resolve, css::InlineOptions(), limits);
  EXPECT_EQ(result.status, css::Status::kOverBound);
  EXPECT_NE(result.reason.find("bytes of inlined CSS"), std::string::npos);
}
