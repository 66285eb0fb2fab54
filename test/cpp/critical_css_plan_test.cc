// The compiled plan's own structures: the interned key table a page is checked against, the
// flat child lists of the CSS tree, and the class-token marking that feeds both css-select's
// keys and beasties' class cache from one probe.
#include "../../src/core/critical_css_plan.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <map>
#include <string>
#include <vector>

#include "ssr_native/critical_css.h"

namespace css = ssr_native::critical_css;

namespace {

TEST(CriticalCssKeyTable, OneEntryPerTextWithAnIdPerKind) {
  css::KeyTable table;
  uint32_t next = 0;
  bool added = false;
  const uint32_t cls = table.Intern(css::KeyKind::kClass, "btn", &next, &added);
  EXPECT_TRUE(added);
  const uint32_t again = table.Intern(css::KeyKind::kClass, "btn", &next, &added);
  EXPECT_FALSE(added);
  EXPECT_EQ(again, cls);
  const uint32_t fast = table.Intern(css::KeyKind::kFastClass, "btn", &next, &added);
  EXPECT_TRUE(added);
  EXPECT_NE(fast, cls);
  EXPECT_EQ(table.entries(), 1u);
  EXPECT_EQ(next, 2u);

  const int32_t entry = table.Find("btn");
  ASSERT_GE(entry, 0);
  EXPECT_EQ(table.Id(entry, css::KeyKind::kClass), cls);
  EXPECT_EQ(table.Id(entry, css::KeyKind::kFastClass), fast);
  EXPECT_EQ(table.Id(entry, css::KeyKind::kId), css::KeyTable::kNoKey);
  EXPECT_EQ(table.Find("btn-primary"), -1);
  EXPECT_EQ(table.Find("bt"), -1);
  EXPECT_EQ(table.Find(""), -1);
}

TEST(CriticalCssKeyTable, FindsEveryKeyAfterGrowing) {
  css::KeyTable table;
  uint32_t next = 0;
  bool added = false;
  std::vector<uint32_t> ids;
  // Texts of every length around the hash's 8-byte steps, more than the first table holds.
  for (int i = 0; i < 5000; ++i) {
    const std::string text =
        "k" + std::string(static_cast<size_t>(i % 19), 'x') + std::to_string(i);
    ids.push_back(table.Intern(css::KeyKind::kTag, text, &next, &added));
    ASSERT_TRUE(added) << text;
  }
  for (int i = 0; i < 5000; ++i) {
    const std::string text =
        "k" + std::string(static_cast<size_t>(i % 19), 'x') + std::to_string(i);
    const int32_t entry = table.Find(text);
    ASSERT_GE(entry, 0) << text;
    EXPECT_EQ(table.Id(entry, css::KeyKind::kTag), ids[static_cast<size_t>(i)]) << text;
    EXPECT_EQ(table.Find(text + "y"), -1) << text;
  }
  table.ShrinkToFit();
  EXPECT_GE(table.Find("k0"), 0);
}

TEST(CriticalCssKeyTable, TextsOneByteApartAreDifferentKeysAtEveryLength) {
  // The hash and the compare read short texts in overlapping fixed-size loads: a byte they
  // skipped would make two keys one.
  for (size_t n = 1; n <= 20; ++n) {
    const std::string base(n, 'a');
    for (size_t at = 0; at < n; ++at) {
      std::string other = base;
      other[at] = 'b';
      EXPECT_TRUE(css::SameText(base, base)) << n;
      EXPECT_FALSE(css::SameText(base, other)) << n << " " << at;
      css::KeyTable table;
      uint32_t next = 0;
      bool added = false;
      table.Intern(css::KeyKind::kClass, base, &next, &added);
      EXPECT_EQ(table.Find(other), -1) << n << " " << at;
      table.Intern(css::KeyKind::kClass, other, &next, &added);
      EXPECT_TRUE(added) << n << " " << at;
      EXPECT_NE(table.Find(base), table.Find(other)) << n << " " << at;
    }
  }
}

TEST(CriticalCssTree, ChildListsKeepDocumentOrder) {
  css::CssTree tree;
  css::ParseCss("a{color:red}@media print{b{c:d}@supports (x:y){i{j:k}}e{f:g}}h{}/* c */", &tree);
  std::vector<std::string> roots;
  for (uint32_t r : tree.Roots()) {
    const css::CssNode& n = tree.nodes[r];
    roots.push_back(tree.text.substr(n.begin, n.end - n.begin).substr(0, 6));
  }
  EXPECT_EQ(roots, (std::vector<std::string>{"a{colo", "@media", "h{}", "/* c *"}));
  const css::CssNode& media = tree.nodes[tree.roots[1]];
  std::vector<std::string> inner;
  for (uint32_t c : tree.Children(media)) {
    const css::CssNode& n = tree.nodes[c];
    EXPECT_EQ(n.parent, static_cast<int32_t>(tree.roots[1]));
    inner.push_back(tree.text.substr(n.a_begin, n.a_end - n.a_begin));
  }
  EXPECT_EQ(inner, (std::vector<std::string>{"b", "supports", "e"}));
  const css::CssNode& supports = tree.nodes[tree.Children(media)[1]];
  ASSERT_EQ(tree.Children(supports).size(), 1u);
  const css::CssNode& i = tree.nodes[tree.Children(supports)[0]];
  EXPECT_EQ(tree.text.substr(i.a_begin, i.a_end - i.a_begin), "i");
  EXPECT_EQ(tree.Children(tree.nodes[tree.roots[0]]).size(), 1u);  // color:red
  EXPECT_TRUE(tree.Children(tree.nodes[tree.roots[2]]).empty());   // h{}
}

std::string StyleOfPage(const std::string& stylesheet, const std::string& page) {
  css::CompileResult compiled = css::CompilePlan(stylesheet);
  EXPECT_TRUE(compiled.plan) << compiled.error;
  css::InlineResult result =
      css::Inline(page, std::vector<const css::Plan*>{compiled.plan.get()}, css::InlineOptions());
  EXPECT_EQ(result.status, css::Status::kDone) << result.reason;
  const size_t b = result.html.find("<style>");
  if (b == std::string::npos) return "<none>";
  return result.html.substr(b + 7, result.html.find("</style>") - b - 7);
}

std::string StyleFor(const std::string& class_value) {
  return StyleOfPage(".a{color:red}",
                     "<html><head><link rel=\"stylesheet\" href=\"s.css\"></head><body>"
                     "<div class=\"" +
                         class_value + "\"></div></body></html>");
}

// `.a` takes beasties' cache path: getAttribute("class").trim().split(" "), so a class
// separated by a tab or a newline is not in its cache although css-select would match it.
// Each answer is beasties 0.5.4's with Angular's options.
TEST(CriticalCssClassCache, TokensAsBeastiesSplitsThem) {
  EXPECT_EQ(StyleFor("a b"), ".a{color:red}");
  EXPECT_EQ(StyleFor("b a"), ".a{color:red}");
  EXPECT_EQ(StyleFor("  a  b "), ".a{color:red}");
  EXPECT_EQ(StyleFor("a\tb"), "<none>");
  EXPECT_EQ(StyleFor("b\na"), "<none>");
  EXPECT_EQ(StyleFor("a\t"), ".a{color:red}");  // trim() takes the tab off
  EXPECT_EQ(StyleFor("ab"), "<none>");
}

}  // namespace

namespace {

// A class value is resolved once a page and replayed for every element that repeats it: each
// element still counts for itself (here the first sighting is <html>, outside css-select's
// search, and only the <p> further down can match `p.x`).
TEST(CriticalCssClassCache, RepeatedClassValuesMarkEveryElement) {
  const std::string head =
      "<html class=\"x y\"><head><link rel=\"stylesheet\" href=\"s.css\">"
      "</head><body>";
  EXPECT_EQ(StyleOfPage("p.x{a:b}", head + "<p class=\"x y\"></p></body></html>"), "p.x{a:b}");
  EXPECT_EQ(StyleOfPage("p.x{a:b}", head + "<div class=\"x y\"></div></body></html>"), "<none>");
  EXPECT_EQ(
      StyleOfPage("p.x{a:b}", head + "<p class=\"x\"></p><p class=\"x y\"></p></body></html>"),
      "p.x{a:b}");
  // The same value in a tab-separated spelling is another value (not in beasties' cache).
  EXPECT_EQ(
      StyleOfPage(".q{a:b}", head + "<p class=\"q\tr\"></p><p class=\"q\tr\"></p></body></html>"),
      "<none>");
}

}  // namespace

namespace {

std::string SelectorOf(const css::Plan& plan, uint32_t index) {
  const css::CssNode& n = plan.tree.nodes[index];
  if (n.kind == css::CssKind::kAtRule) {
    return "@" + plan.tree.text.substr(n.a_begin, n.a_end - n.a_begin);
  }
  return plan.tree.text.substr(n.a_begin, n.a_end - n.a_begin);
}

// The rule pass visits what beasties' walkStyleRules visits, in its order: a node's nested
// rules before the node, declarations of plain rules and keyframe selectors never.
TEST(CriticalCssRulePass, WalkIsWalkStyleRulesOrder) {
  css::CompileResult compiled = css::CompilePlan(
      "a{color:red}@media print{b{c:d}@supports (x:y){i{j:k}}e{f:g}}"
      "@keyframes k{from{o:0}}@font-face{font-family:F}h{}");
  ASSERT_TRUE(compiled.plan);
  const css::Plan& plan = *compiled.plan;
  std::vector<std::string> walk;
  for (uint32_t index : plan.walk) walk.push_back(SelectorOf(plan, index));
  EXPECT_EQ(walk, (std::vector<std::string>{"a", "b", "i", "@supports", "e", "@media", "@keyframes",
                                            "@font-face", "h"}));
  std::vector<std::string> at_rules;
  for (uint32_t index : plan.walk_at_rules) at_rules.push_back(SelectorOf(plan, index));
  EXPECT_EQ(at_rules, (std::vector<std::string>{"@keyframes", "@font-face"}));
}

// Which rules a key opens: every piece's selector needs its gate key on the page; a rule with
// a piece that needs none (always critical, `*`) is open.
TEST(CriticalCssRulePass, GatesOpenEveryRuleThatCanMatch) {
  css::CompileResult compiled = css::CompilePlan(
      "div .x>p{a:b}.y,#z{a:b}html{a:b}*{a:b}.w:hover{a:b}[data-q]{a:b}:root{a:b}"
      "p{a:b}");
  ASSERT_TRUE(compiled.plan);
  const css::Plan& plan = *compiled.plan;
  std::vector<std::string> open;
  std::map<std::string, std::vector<std::string>> opened_by;  // rule -> the keys that open it
  for (uint32_t index : plan.walk) {
    if (plan.node_flags[index] & css::Plan::kOpenRule) open.push_back(SelectorOf(plan, index));
  }
  for (const char* token : {"x", "y", "z", "w", "data-q", "p", "div"}) {
    const int32_t entry = plan.keys.Find(token);
    ASSERT_GE(entry, 0) << token;
    for (int kind = 0; kind < css::kKeyKinds; ++kind) {
      const uint32_t key = plan.keys.Id(entry, static_cast<css::KeyKind>(kind));
      if (key == css::KeyTable::kNoKey) continue;
      for (uint32_t g = plan.gate_begin[key]; g < plan.gate_begin[key + 1]; ++g) {
        opened_by[SelectorOf(plan, plan.gate_rules[g])].push_back(token);
      }
    }
  }
  EXPECT_EQ(open, (std::vector<std::string>{"html", "*", ":root"}));
  // The class before the tags; each fast-path token of `.y,#z` opens it.
  EXPECT_EQ(opened_by["div .x>p"], (std::vector<std::string>{"x"}));
  EXPECT_EQ(opened_by[".y,#z"], (std::vector<std::string>{"y", "z"}));
  EXPECT_EQ(opened_by[".w:hover"], (std::vector<std::string>{"w"}));
  EXPECT_EQ(opened_by["[data-q]"], (std::vector<std::string>{"data-q"}));
  EXPECT_EQ(opened_by["p"], (std::vector<std::string>{"p"}));
  // A page with the gate key keeps the rule, and a directive keeps a rule nothing opens.
  EXPECT_EQ(StyleOfPage("div .x>p{a:b}.q{c:d}/* beasties:include */.never{e:f}",
                        "<html><head><link rel=stylesheet href=s.css></head><body><div>"
                        "<i class=x><p></p></i></div></body></html>"),
            "div .x>p{a:b}.never{e:f}");
}

// The writer copies a rule's source after its selector only where it would write those very
// bytes: not when a declaration holding `</style>` is dropped, nor when a missing ";" before
// the "}" of a parent with one is written.
TEST(CriticalCssRulePass, BodyIsSourceOnlyWhereTheWriterAgrees) {
  css::CompileResult compiled =
      css::CompilePlan("a{color:red}b{c:d;}i{content:\"</style>\";e:f}s{g:h;i:j}u{}");
  ASSERT_TRUE(compiled.plan);
  const css::Plan& plan = *compiled.plan;
  std::vector<std::string> flagged;
  for (uint32_t r : plan.tree.Roots()) {
    if (plan.node_flags[r] & css::Plan::kBodyIsSource) flagged.push_back(SelectorOf(plan, r));
  }
  EXPECT_EQ(flagged, (std::vector<std::string>{"a", "b", "s", "u"}));
  EXPECT_EQ(StyleOfPage("a{color:red}i{content:\"</style>\";e:f}",
                        "<html><head><link rel=stylesheet href=s.css></head><body><a></a><i></i>"
                        "</body></html>"),
            "a{color:red}i{e:f}");
}

}  // namespace

namespace {

// A group whose rightmost compound holds two classes or ids can start from either's elements
// (whichever the page has fewer of): the alternative is that compound's, never a key further
// left, and a tag or attribute is no alternative.
TEST(CriticalCssRulePass, AlternativeTriggerIsOfTheRightmostCompound) {
  css::CompileResult compiled = css::CompilePlan(".a .b.c{x:y}#d.e{x:y}p.f{x:y}.g .h{x:y}");
  ASSERT_TRUE(compiled.plan);
  const css::Plan& plan = *compiled.plan;
  auto key = [&](const char* text, css::KeyKind kind) {
    return static_cast<int32_t>(plan.keys.Id(plan.keys.Find(text), kind));
  };
  auto group = [&](const char* piece) -> const css::GroupIndex& {
    for (size_t p = 0; p < plan.pieces.size(); ++p) {
      if (plan.pieces[p] == piece) return plan.selectors[plan.piece_selector[p]].groups.at(0);
    }
    ADD_FAILURE() << piece;
    return plan.selectors[0].groups.at(0);
  };
  const css::GroupIndex& bc = group(".a .b.c");
  EXPECT_EQ(std::min(bc.trigger, bc.alternative),
            std::min(key("b", css::KeyKind::kClass), key("c", css::KeyKind::kClass)));
  EXPECT_EQ(std::max(bc.trigger, bc.alternative),
            std::max(key("b", css::KeyKind::kClass), key("c", css::KeyKind::kClass)));
  EXPECT_EQ(group("#d.e").trigger, key("d", css::KeyKind::kId));
  EXPECT_EQ(group("#d.e").alternative, key("e", css::KeyKind::kClass));
  EXPECT_EQ(group("p.f").alternative, -1);
  EXPECT_EQ(group(".g .h").alternative, -1);
  // Fewer elements of one class than of the other: either start finds the match.
  const std::string head = "<html><head><link rel=stylesheet href=s.css></head><body>";
  EXPECT_EQ(StyleOfPage(".a .b.c{x:y}", head + "<p class=c></p><p class=c></p><div class=a>"
                                               "<p class=\"b c\"></p></div></body></html>"),
            ".a .b.c{x:y}");
  EXPECT_EQ(StyleOfPage(".a .b.c{x:y}",
                        head + "<p class=b></p><p class=b></p><div class=a><p class=\"b c\"></p>"
                               "</div></body></html>"),
            ".a .b.c{x:y}");
  EXPECT_EQ(StyleOfPage(".a .b.c{x:y}", head + "<p class=b></p><div class=a><p class=c></p>"
                                               "</div></body></html>"),
            "<none>");
}

}  // namespace

namespace {

// Without directives a page decides the rules its keys open before the rest of the walk: an
// at-rule (or a rule with nested rules) still sees its children decided, and what kept rules
// collect (animation names) still keeps its @keyframes wherever it stands. A directive that
// changes nothing (`exclude end` before any start) sends the same sheet through the walk in
// its order: both must write the same.
TEST(CriticalCssRulePass, OpenedRulesAreDecidedBeforeTheirParents) {
  const std::string head = "<html><head><link rel=stylesheet href=s.css></head><body>";
  const std::string sheet =
      "@keyframes k{from{o:0}}@media print{.a{animation:k 1s}.b{x:y}}.c{d:e;.a &{f:g}}"
      "@supports (x:y){@media print{.b{x:y}}.d{animation:k 2s}}.d .c{h:i;.b{j:k}}";
  const std::string ordered = "/* beasties:exclude end */" + sheet;
  EXPECT_FALSE(css::CompilePlan(sheet).plan->has_directives);
  EXPECT_TRUE(css::CompilePlan(ordered).plan->has_directives);
  EXPECT_EQ(StyleOfPage(sheet, head + "<p class=a></p></body></html>"),
            "@keyframes k{from{o:0}}@media print{.a{animation:k 1s}}");
  EXPECT_EQ(StyleOfPage(sheet, head + "<p class=x></p></body></html>"), "<none>");
  for (const char* body :
       {"<p class=a></p>", "<p class=b></p>", "<i class=a><p class=c></p></i>", "<p class=d></p>",
        "<i class=d><p class=c><b class=b></b></p></i>", "<i class=d><p class=c></p></i>",
        "<p class=\"a b c d\"></p>", "<p class=x></p>"}) {
    const std::string page = head + body + "</body></html>";
    EXPECT_EQ(StyleOfPage(sheet, page), StyleOfPage(ordered, page)) << body;
  }
}

}  // namespace

// PlanMemoryBytes (the plan's figure in stats() and metrics) counts what the plan's containers
// hold; the heap behind them also pays the allocator's per-block overhead. Measured with glibc's
// mallinfo2 (not under a sanitizer, whose allocator it does not see): the count stays within the
// heap actually used and close to it, on a stylesheet of the usual shapes. gcc names its
// sanitizers with __SANITIZE_*__, clang (CI's sanitized suites, built beside the fuzz targets)
// with __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SSR_NATIVE_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SSR_NATIVE_TEST_SANITIZED 1
#endif
#endif
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33)) && \
    !defined(SSR_NATIVE_TEST_SANITIZED)
TEST(CriticalCssPlan, MemoryBytesIsCloseToTheHeapItUses) {
  std::string sheet;
  for (int i = 0; i < 3000; ++i) {
    const std::string n = std::to_string(i);
    switch (i % 6) {
      case 0:
        sheet += ".btn-" + n + "{color:red;margin:0 " + n + "px}";
        break;
      case 1:
        sheet += ".card-" + n + " .title-" + n + ">a:hover{color:#" + n + "}";
        break;
      case 2:
        sheet += "@media (min-width:" + n + "px){.col-" + n + "{flex:0 0 auto;width:50%}}";
        break;
      case 3:
        sheet += "#id-" + n + ",.alt-" + n + "{padding:.5rem 1rem;border:1px solid}";
        break;
      case 4:
        sheet += "[data-x-" + n + "=\"v\"] .c-" + n + "{--bs-var-" + n + ":1}";
        break;
      default:
        sheet += "ul li.item-" + n + "+li{list-style:none}";
        break;
    }
  }
  const size_t before = mallinfo2().uordblks + mallinfo2().hblkhd;
  css::CompileResult compiled = css::CompilePlan(sheet);
  const size_t after = mallinfo2().uordblks + mallinfo2().hblkhd;
  ASSERT_TRUE(compiled.plan) << compiled.error;
  const double counted = static_cast<double>(css::PlanMemoryBytes(*compiled.plan));
  const double heap = static_cast<double>(after - before);
  EXPECT_LE(counted, heap);
  EXPECT_GE(counted, 0.8 * heap) << "counted " << counted << " of a heap of " << heap;
}
#endif
