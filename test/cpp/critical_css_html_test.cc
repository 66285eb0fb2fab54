// The page scanner's shortcuts (tag and end-tag names read where their first letter is seen,
// name="value" attributes read whole, the innermost element's end tag popped directly) against
// the tokenizer's states alone: on seeded random tag soup, both must build the same tree,
// element by element, attribute by attribute, text run by text run.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "../../src/core/critical_css_internal.h"

namespace css = ssr_native::critical_css;

namespace {

// Everything the scanner records, as text, so that two trees compare in one assertion.
std::string Dump(std::string_view html) {
  css::HtmlDocument doc;
  std::string reason;
  if (!css::ParseHtml(html, css::Limits(), &doc, &reason)) return "skipped: " + reason + "\n";
  std::string out;
  auto num = [&out](int64_t v) {
    out += std::to_string(v);
    out += ' ';
  };
  for (const css::HtmlElement& e : doc.elements) {
    out += std::string(e.name) + ' ';
    for (int64_t v :
         {int64_t{e.parent}, int64_t{e.prev}, int64_t{e.next}, int64_t{e.first_child},
          int64_t{e.last_child}, int64_t{e.tag_begin}, int64_t{e.name_end}, int64_t{e.attrs_end},
          int64_t{e.tag_end}, int64_t{e.content_end}, int64_t{e.tag_id}}) {
      num(v);
    }
    out += '[';
    for (uint32_t k = 0; k < e.attr_count; ++k) {
      const css::HtmlAttr& a = doc.attrs[e.attr_begin + k];
      for (int64_t v : {int64_t{a.name_begin}, int64_t{a.name_end}, int64_t{a.value_begin},
                        int64_t{a.value_end}, int64_t{a.end}, int64_t{a.has_value}}) {
        num(v);
      }
      out += ';';
    }
    out += "]\n";
  }
  for (const css::HtmlTextRun& t : doc.texts) {
    out += "text ";
    num(t.begin);
    num(t.end);
    num(t.parent);
    out += '\n';
  }
  for (int32_t top : doc.top_level) {
    out += "top ";
    num(top);
    out += '\n';
  }
  num(static_cast<int64_t>(doc.attrs.size()));
  return out;
}

// Tag soup: known and unknown tags in both cases, svg / math and their adjusted names, the
// raw-text elements, attributes in every quoting (and unterminated), comments, CDATA,
// declarations, stray '<', '/', '=' and quotes.
std::string RandomPage(std::mt19937_64& rng) {
  static const char* const kTags[] = {"div",      "p",        "span",
                                      "a",        "li",       "ul",
                                      "table",    "tr",       "td",
                                      "th",       "tbody",    "thead",
                                      "form",     "svg",      "math",
                                      "clippath", "clipPath", "image",
                                      "script",   "style",    "title",
                                      "xmp",      "textarea", "iframe",
                                      "noembed",  "br",       "foreignObject",
                                      "noframes", "img",      "input",
                                      "select",   "option",   "button",
                                      "h1",       "h2",       "DIV",
                                      "Span",     "P",        "SCRIPT",
                                      "Style",    "mi",       "desc",
                                      "x-y",      "app-root", "TITLE",
                                      "scripts",  "tit",      "nav",
                                      "body",     "head",     "html",
                                      "link",     "meta",     "plaintext"};
  static const char* const kNames[] = {"class", "id", "CLASS", "data-x", "href", "rel",
                                       "x",     "=y", "a/b",   "title",  "Id",   "class"};
  static const char* const kValues[] = {"",         "=\"v w\"", "='v\"w'", "=v",
                                        " = \"x\"", "=\"",      "='",      "=\"\"",
                                        "= y",      "=\"a>b\"", "=\"a\"b", "=a/b"};
  static const char* const kBits[] = {
      " ",     "\n",   "\t",    "/",    ">",     "=",       "\"",        "'",     "<",
      "<!--",  "-->",  "--!>",  "<!",   "<?x?>", "]]>",     "<![CDATA[", "</",    "<!DOCTYPE html>",
      "&amp;", "text", "<br/>", "</p>", "</br>", "<!---->", "<a/",       "</ x>", "< p>",
      "<!-->"};
  auto pick = [&rng](const auto& list) { return list[rng() % (sizeof(list) / sizeof(list[0]))]; };
  std::string page;
  const int pieces = static_cast<int>(rng() % 80);
  for (int i = 0; i < pieces; ++i) {
    const int kind = static_cast<int>(rng() % 10);
    if (kind < 4) {
      page += '<';
      page += pick(kTags);
      const int attrs = static_cast<int>(rng() % 4);
      for (int k = 0; k < attrs; ++k) {
        page += rng() % 5 == 0 ? "\n" : " ";
        page += pick(kNames);
        page += pick(kValues);
      }
      const int end = static_cast<int>(rng() % 6);
      page += end == 0 ? "/>" : end == 1 ? "" : end == 2 ? " >" : ">";
    } else if (kind < 7) {
      page += "</";
      page += pick(kTags);
      page += rng() % 5 == 0 ? " x>" : ">";
    } else {
      page += pick(kBits);
    }
  }
  return page;
}

class ScannerShortcuts : public ::testing::Test {
 protected:
  void TearDown() override { css::SetHtmlScanShortcuts(true); }
};

TEST_F(ScannerShortcuts, BuildTheTreeTheStatesAloneBuild) {
  constexpr uint64_t kPages = 20000;
  for (uint64_t seed = 1; seed <= kPages; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string page = RandomPage(rng);
    css::SetHtmlScanShortcuts(false);
    const std::string states = Dump(page);
    css::SetHtmlScanShortcuts(true);
    const std::string shortcuts = Dump(page);
    ASSERT_EQ(states, shortcuts) << "seed " << seed << ", page:\n" << page;
  }
}

TEST_F(ScannerShortcuts, QuotedAttributesAndEndTagsAsTheStatesReadThem) {
  const std::string page =
      "<div class=\"a b\" id='x' data-x=\"\" title=\"a>b\" CLASS=\"dup\"><p Id=y>t</p>"
      "<svg><clippath></clippath><clipPath a='1'></clippath></svg><span x=\"1\"y='2'></SPAN>"
      "<table><tr><td a=\"1\">c</td></tr></table></div><a b=\"unterminated>";
  css::SetHtmlScanShortcuts(false);
  const std::string states = Dump(page);
  css::SetHtmlScanShortcuts(true);
  EXPECT_EQ(Dump(page), states);
  EXPECT_NE(states.find("clipPath"), std::string::npos);
}

}  // namespace
