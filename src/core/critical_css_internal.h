// Shared pieces of the critical-CSS engine (see include/ssr_native/critical_css.h): the CSS node
// tree, compiled selectors, the page's element tree and the matcher over it.
#ifndef SSR_NATIVE_CRITICAL_CSS_INTERNAL_H_
#define SSR_NATIVE_CRITICAL_CSS_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ssr_native/critical_css.h"

namespace ssr_native {
namespace critical_css {

// JS's \s for the bytes of ASCII (String#trim, split(/\s+/)): space, tab, LF, VT, FF, CR.
inline bool IsJsSpaceByte(unsigned char c) { return c == ' ' || (c >= 0x09 && c <= 0x0d); }

inline std::string_view TrimAscii(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && IsJsSpaceByte(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && IsJsSpaceByte(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// A fast hash of the short texts the engine looks up per page (tag names, class tokens,
// attribute names): eight bytes a step, multiply-xorshift mixing. Not for hostile collision
// resistance: the tables it serves hold the stylesheet's keys, and a probe sequence is bounded
// by their load factor.
inline uint64_t HashText(std::string_view s) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t h = 0x2545F4914F6CDD1Dull ^ (s.size() * kMul);
  const char* p = s.data();
  size_t n = s.size();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  // The tail in fixed-size loads (a memcpy of a variable length is a loop or a call per key,
  // and most keys are shorter than eight bytes): the last eight bytes again when the text had
  // eight or more, two overlapping four-byte loads for 4-7, three bytes for 1-3.
  if (n > 0) {
    uint64_t w;
    if (s.size() >= 8) {
      std::memcpy(&w, s.data() + s.size() - 8, 8);
    } else if (n >= 4) {
      uint32_t lo, hi;
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + n - 4, 4);
      w = lo | (static_cast<uint64_t>(hi) << 32);
    } else {
      w = static_cast<uint64_t>(static_cast<unsigned char>(p[0])) |
          (static_cast<uint64_t>(static_cast<unsigned char>(p[n >> 1])) << 8) |
          (static_cast<uint64_t>(static_cast<unsigned char>(p[n - 1])) << 16);
    }
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  h *= kMul;
  return h ^ (h >> 32);
}

// Whether two byte runs of the same length n are equal, in fixed-size loads (names and keys are
// short: a memcmp call per probe costs more than the compare). Never reads outside either run.
inline bool SameBytes(const char* a, const char* b, size_t n) {
  if (n >= 8) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
      uint64_t x, y;
      std::memcpy(&x, a + i, 8);
      std::memcpy(&y, b + i, 8);
      if (x != y) return false;
    }
    uint64_t x, y;
    std::memcpy(&x, a + n - 8, 8);
    std::memcpy(&y, b + n - 8, 8);
    return x == y;
  }
  if (n >= 4) {
    uint32_t x0, y0, x1, y1;
    std::memcpy(&x0, a, 4);
    std::memcpy(&y0, b, 4);
    std::memcpy(&x1, a + n - 4, 4);
    std::memcpy(&y1, b + n - 4, 4);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}
inline bool SameText(std::string_view a, std::string_view b) {
  return a.size() == b.size() && SameBytes(a.data(), b.data(), a.size());
}

// ---------------------------------------------------------------------------------------------
// CSS (critical_css_css_parser.cc): postcss's node tree as offsets into the stylesheet text.

enum class CssKind : uint8_t { kRule, kAtRule, kComment, kDecl };

struct CssNode {
  CssKind kind = CssKind::kRule;
  bool has_block = false;      // rule / at-rule with { }
  bool semicolon = false;      // container: its last declaration ended with ";" (raws.semicolon)
  bool own_semicolon = false;  // statement at-rule / declaration: ended with ";"
  bool closed = true;          // the block's "}" was present
  bool custom_property = false;
  uint32_t before_begin = 0;  // raws.before = [before_begin, begin)
  uint32_t begin = 0;         // node text = [begin, end)
  uint32_t end = 0;
  // Rule: selector [a_begin, a_end) trimmed; between = [a_end, open).
  // At-rule: name [a_begin, a_end) (without "@"); params are the rest up to open / ";".
  // Declaration: prop [a_begin, a_end); value [b_begin, b_end) (without !important, trimmed).
  uint32_t a_begin = 0, a_end = 0;
  uint32_t b_begin = 0, b_end = 0;
  // A block's "{" and a declaration's raw value never meet in one node: one field holds either
  // (the plan keeps one node per rule, declaration and comment of the stylesheet).
  union {
    uint32_t open = 0;          // offset of "{" (blocks)
    uint32_t value_text_begin;  // declaration: first byte after between (raw value start)
  };
  uint32_t after_begin = 0;  // raws.after = [after_begin, close) (blocks)
  uint32_t close = 0;        // offset of "}" (blocks; == end - 1 when closed)
  int32_t parent = -1;
  uint32_t child_begin = 0;  // into CssTree::child_list
  uint32_t child_count = 0;
};

// A run of node indices (a node's children, the roots) without owning them.
struct NodeList {
  const uint32_t* first = nullptr;
  const uint32_t* last = nullptr;
  const uint32_t* begin() const { return first; }
  const uint32_t* end() const { return last; }
  size_t size() const { return static_cast<size_t>(last - first); }
  bool empty() const { return first == last; }
  uint32_t operator[](size_t i) const { return first[i]; }
};

struct CssTree {
  std::string text;  // BOM removed
  std::vector<CssNode> nodes;
  std::vector<uint32_t> child_list;  // every node's children, node after node
  std::vector<uint32_t> roots;
  NodeList Children(const CssNode& node) const {
    const uint32_t* b = child_list.data() + node.child_begin;
    return NodeList{b, b + node.child_count};
  }
  NodeList Roots() const { return NodeList{roots.data(), roots.data() + roots.size()}; }
  // raws.after of the root = root_after_prefix + [root_after_begin, text.size()): the safe
  // parser moves each stray top-level `}` (with the spaces before it) there.
  std::string root_after_prefix;
  uint32_t root_after_begin = 0;
  bool root_semicolon = false;
};

// Parses like postcss-safe-parser for what stylesheets hold; never fails (unclosed blocks are
// closed at the end, as the safe parser does).
void ParseCss(std::string_view css, CssTree* tree);

// ---------------------------------------------------------------------------------------------
// Selectors (critical_css_selector.cc).

enum class AttrAction : uint8_t { kExists, kEquals, kElement, kStart, kEnd, kAny, kNot, kHyphen };
enum class Combinator : uint8_t { kDescendant, kChild, kAdjacent, kSibling };

struct AttrTest {
  std::string name;   // lowercased (css-select lowercases in HTML mode)
  std::string value;  // unescaped
  AttrAction action = AttrAction::kExists;
  bool ignore_case = false;
  int32_t class_key = -1;  // a case-sensitive `.x` / [class~=x]: the plan's key id for x
};

struct Compound {
  std::vector<std::string> tags;  // lowercased; all must equal the element's name
  std::vector<AttrTest> attrs;
};

// One css-what selector group: compounds left to right, combinators[i] joins compounds[i] and
// compounds[i + 1]. scope_child: the group began with ">" (":scope >" with the root as scope).
struct ComplexSelector {
  std::vector<Compound> compounds;
  std::vector<Combinator> combinators;
  bool scope_child = false;
};

enum class SelectorMode : uint8_t {
  kAlways,    // :root, html, body, ::before, ... : critical whatever the page holds
  kNever,     // empty after normalization, or css-what / css-select would throw
  kFastPath,  // beasties' class/id cache test (every group is one class or id token)
  kMatch,     // css-select over the page
};

struct FastToken {
  bool is_class = true;
  std::string value;
};

struct CompiledSelector {
  SelectorMode mode = SelectorMode::kNever;
  std::vector<FastToken> fast;          // kFastPath: all must be in the caches
  std::vector<ComplexSelector> groups;  // kMatch: any may match
};

// postcss list.comma: top-level comma split, each piece trimmed, empty pieces dropped.
std::vector<std::string_view> SplitSelectorList(std::string_view selector);
// beasties' normalizeCssSelector (its four regular expressions, then trim).
std::string NormalizeSelector(std::string_view selector);
// beasties' isAlwaysCriticalSelector.
bool IsAlwaysCritical(std::string_view selector);
// The whole pipeline for one selector as written in the rule.
CompiledSelector CompileSelector(std::string_view selector, const Limits& limits);

// ---------------------------------------------------------------------------------------------
// The page (critical_css_html.cc): htmlparser2's tree, only what matching and editing need.

struct HtmlAttr {
  uint32_t name_begin = 0, name_end = 0;    // raw name (compare case-insensitively)
  uint32_t value_begin = 0, value_end = 0;  // raw value, undecoded (quotes excluded)
  uint32_t end = 0;                         // offset after the attribute (incl. closing quote)
  bool has_value = false;
};

struct HtmlElement {
  // Lowercased (htmlparser2), svg names adjusted: a view of the page, of a static name, or of
  // HtmlDocument::names.
  std::string_view name;
  int32_t parent = -1;
  int32_t prev = -1;  // previous element sibling
  int32_t next = -1;  // next element sibling (kept for the edits)
  int32_t first_child = -1;
  int32_t last_child = -1;
  uint32_t tag_begin = 0;   // "<"
  uint32_t name_end = 0;    // after the tag name
  uint32_t attrs_end = 0;   // after the last attribute (or the name)
  uint32_t tag_end = 0;     // after ">"
  uint32_t attr_begin = 0;  // index into HtmlDocument::attrs
  uint32_t attr_count = 0;
  uint32_t content_end = 0;  // where it closes (its end tag's "<", ...): HtmlParser::HandlerClose
  bool synthetic = false;    // inserted by the engine (not in the source, not in the caches)
  bool in_cache = true;
  // The scanner's id of a known tag name (the same name, the same id; 0: not one of them, or
  // an element the engine made), so a page resolves each known name once, not per element.
  uint8_t tag_id = 0;
  int32_t clone_of = -1;   // synthetic <link> inside <noscript>: the link it copies
  int32_t overrides = -1;  // the engine's edits of its attributes: HtmlDocument::overrides
};

// Attribute overrides of the engine's edits (synthetic and edited elements: a few a page, so
// kept beside the elements rather than in each).
struct AttrOverrides {
  std::vector<std::pair<std::string, std::string>> set_attrs;
  std::vector<std::string> removed_attrs;
  // Removed, then set again: the DOM appends such an attribute, so it is written last.
  std::vector<std::string> readded_attrs;
};

struct HtmlTextRun {
  uint32_t begin = 0, end = 0;  // raw text (entities undecoded)
  int32_t parent = -1;
};

// Per page, the document's storage comes from the thread's previous document (taken at
// construction, given back at destruction, see critical_css_html.cc): a server renders page
// after page, and growing fresh vectors for each costs allocations, reallocation copies and
// fresh pages faulted in. Storage beyond a cap is freed instead of kept.
struct HtmlDocument {
  HtmlDocument();
  ~HtmlDocument();
  HtmlDocument(const HtmlDocument&) = delete;
  HtmlDocument& operator=(const HtmlDocument&) = delete;

  std::string_view src;
  std::vector<HtmlTextRun> texts;     // text nodes, in document order
  std::vector<HtmlElement> elements;  // document order
  std::vector<HtmlAttr> attrs;
  std::vector<int32_t> top_level;  // elements whose parent is the document
  std::deque<std::string> names;   // element names the page does not spell as they are read
  std::deque<AttrOverrides> overrides;
  bool has_text_outside = false;
};

// Bytes of document and scanner storage this thread keeps for its next page (bounded by a cap
// per vector, whatever pages it has seen).
size_t KeptDocumentBytes();

// Bytes of the largest vector of matching scratch this thread keeps for its next page (each is
// freed after a page that grew it beyond a cap).
size_t LargestKeptMatchScratchBytes();

// The scanner's shortcuts (a tag name or an end tag read where its first letter is seen,
// name="value" attributes read whole, an end tag of the innermost element popped directly) on
// or off, for tests that check they build the tree the states alone build. On by default.
void SetHtmlScanShortcuts(bool on);

// Builds the tree as htmlparser2 (decodeEntities: false) + domhandler would. Returns false with
// a reason when a limit is exceeded.
bool ParseHtml(std::string_view html, const Limits& limits, HtmlDocument* doc, std::string* reason);

// htmlparser2 10's element names (beasties 0.4, Angular 21) on a tree ParseHtml built: SVG tag
// names stay lowercased (`clippath`, 12 writes `clipPath`) and `<image>` stays `image` (12
// writes `img`). The tree is the same; css-select's lowercased tag selectors then match them.
void UseHtmlparser2v10Names(HtmlDocument* doc);

// Attribute lookup with htmlparser2's rules (lowercased names, first occurrence wins), seeing
// the engine's overrides. Returns false when absent.
bool GetAttribute(const HtmlDocument& doc, int32_t element, std::string_view lower_name,
                  std::string_view* value);

// ---------------------------------------------------------------------------------------------
// Matching (critical_css_matcher.cc).

struct MatchContext {
  const HtmlDocument* doc = nullptr;
  // Per element: the plan key ids of its whitespace-separated classes (a flat list), so a class
  // test is an integer comparison instead of a scan of the attribute value.
  const std::vector<uint32_t>* class_key_begin = nullptr;  // size elements + 1
  const std::vector<uint32_t>* class_keys = nullptr;
  int32_t root = -1;  // the beasties container (<html>), -1 for the document
  // Per element, whether it is below the root; set only for a root with an element parent
  // (a page's own data-beasties-container), where css-select reads each group as
  // `:scope <group>`. nullptr otherwise.
  const uint8_t* inside_root = nullptr;
  uint64_t steps = 0;  // work done, checked against the limit
  uint64_t max_steps = 0;
  bool exhausted = false;
  // Optional memo of descendant / sibling combinators (size elements each, zeroed per page;
  // nullptr: none): for one (group, compound) query id, whether the element or one before it
  // on the combinator's chain (ancestors, previous siblings) matches the compounds to the
  // left. Candidates sharing ancestors (table cells) then walk each ancestor once.
  uint32_t* chain_stamp = nullptr;
  uint8_t* chain_value = nullptr;
  uint32_t next_query = 1;
};

// css-select's selectOne(group, root) != null for one compiled group.
bool MatchesSomewhere(const ComplexSelector& selector, const int32_t* candidates, size_t count,
                      MatchContext* context);
bool MatchesElement(const ComplexSelector& selector, int32_t element, MatchContext* context);

}  // namespace critical_css
}  // namespace ssr_native

#endif  // SSR_NATIVE_CRITICAL_CSS_INTERNAL_H_
