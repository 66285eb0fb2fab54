// The compiled stylesheet (see include/ssr_native/critical_css.h): the parsed tree, every
// rule's selectors split and compiled once (identical selectors share one entry), the font and
// animation facts beasties reads from declarations, and the key index a page is checked with.
#ifndef SSR_NATIVE_CRITICAL_CSS_PLAN_H_
#define SSR_NATIVE_CRITICAL_CSS_PLAN_H_

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "critical_css_internal.h"

namespace ssr_native {
namespace critical_css {

// What a page must hold for a selector to be worth matching, and where matching starts.
enum class KeyKind : uint8_t { kTag, kClass, kId, kAttr, kFastClass, kFastId };
constexpr int kKeyKinds = 6;

struct GroupIndex {
  std::vector<uint32_t> required;  // key ids, all must be present on the page
  int32_t trigger = -1;            // key id of the rightmost compound, -1: every element
};

struct UniqueSelector {
  CompiledSelector compiled;
  std::vector<uint32_t> fast_keys;  // kFastPath
  std::vector<GroupIndex> groups;   // kMatch, parallel to compiled.groups
};

struct RuleFacts {
  uint32_t piece_begin = 0;  // into Plan::pieces / Plan::piece_selector
  uint32_t piece_count = 0;
  uint32_t font_begin = 0;  // into Plan::fonts
  uint32_t font_count = 0;
  uint32_t anim_begin = 0;  // into Plan::animations
  uint32_t anim_count = 0;
};

enum class Directive : uint8_t {
  kNone,
  kInclude,
  kExclude,
  kIncludeStart,
  kIncludeEnd,
  kExcludeStart,
  kExcludeEnd
};

struct FontFaceFacts {
  bool has_family = false;
  std::string family;            // normalized
  bool has_ranges = false;       // a unicode-range that parsed
  std::vector<uint32_t> ranges;  // [start, end] pairs
};

class Plan {
 public:
  CssTree tree;
  std::vector<RuleFacts> rule_facts;  // per node (only rules use it)
  std::vector<Directive> directives;  // per node (comments)
  std::vector<bool> has_nested;       // per node: beasties' hasNestedRules
  std::vector<bool> style_end_decl;   // per node: a declaration whose value has </style>
  std::vector<int32_t> font_face;     // per node: index into font_faces or -1
  std::vector<FontFaceFacts> font_faces;
  std::vector<std::string_view> pieces;  // selector pieces (views into tree.text)
  std::vector<uint32_t> piece_selector;  // piece -> unique selector
  std::vector<UniqueSelector> selectors;
  std::vector<std::string> fonts;       // normalized families used by rules
  std::vector<std::string> animations;  // tokens of animation / animation-name values
  // Key index: one map per kind, key ids are global.
  std::deque<std::string> key_storage;  // stable storage for the keys' views
  std::unordered_map<std::string_view, uint32_t> keys[kKeyKinds];
  uint32_t key_count = 0;
  std::vector<bool> is_trigger;  // per key id
  size_t bytes = 0;
};

}  // namespace critical_css
}  // namespace ssr_native

#endif  // SSR_NATIVE_CRITICAL_CSS_PLAN_H_
