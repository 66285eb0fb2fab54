// The compiled stylesheet (see include/ssr_native/critical_css.h): the parsed tree, every
// rule's selectors split and compiled once (identical selectors share one entry), the font and
// animation facts beasties reads from declarations, and the key index a page is checked with.
#ifndef SSR_NATIVE_CRITICAL_CSS_PLAN_H_
#define SSR_NATIVE_CRITICAL_CSS_PLAN_H_

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

// The plan's keys, interned: one entry per distinct text, holding that text's key id for each
// kind (a class token and an id may share the text). A page token is hashed once and one probe
// answers for every kind; a token the stylesheet never names costs nothing more. Open
// addressing over flat arrays: no node per key, nothing to allocate on lookup.
class KeyTable {
 public:
  static constexpr uint32_t kNoKey = 0xFFFFFFFFu;

  // The entry holding `text`, or -1.
  int32_t Find(std::string_view text) const;
  // The key id of `text` as `kind`, kNoKey when the stylesheet has none.
  uint32_t Id(int32_t entry, KeyKind kind) const {
    return ids_[static_cast<size_t>(entry) * kKeyKinds + static_cast<size_t>(kind)];
  }
  // The key id of `text` as `kind`; a new one (*next_id, then incremented) when absent.
  // *added tells which.
  uint32_t Intern(KeyKind kind, std::string_view text, uint32_t* next_id, bool* added);
  size_t entries() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
  bool empty() const { return entries() == 0; }
  void ShrinkToFit();
  size_t MemoryBytes() const;

 private:
  std::string_view Text(uint32_t entry) const {
    return std::string_view(chars_).substr(offsets_[entry], offsets_[entry + 1] - offsets_[entry]);
  }
  void Grow();

  std::string chars_;              // the entries' texts, back to back
  std::vector<uint32_t> offsets_;  // entry i is [offsets_[i], offsets_[i + 1]) of chars_
  std::vector<uint32_t> ids_;      // entries x kKeyKinds key ids
  std::vector<uint64_t> slots_;    // (hash >> 32) << 32 | entry + 1; 0 is empty; power of two
};

// Inline: called for every tag, class token and attribute name of every page.
inline int32_t KeyTable::Find(std::string_view text) const {
  if (slots_.empty()) return -1;
  const uint64_t h = HashText(text);
  const uint64_t tag = h >> 32;
  const size_t mask = slots_.size() - 1;
  for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
    const uint64_t slot = slots_[i];
    if (slot == 0) return -1;
    if ((slot >> 32) == tag) {
      const uint32_t entry = static_cast<uint32_t>(slot) - 1;
      const uint32_t b = offsets_[entry];
      if (offsets_[entry + 1] - b == text.size() &&
          SameBytes(chars_.data() + b, text.data(), text.size())) {
        return static_cast<int32_t>(entry);
      }
    }
  }
}

struct GroupIndex {
  std::vector<uint32_t> required;  // key ids, all must be present on the page
  int32_t trigger = -1;            // key id of the rightmost compound, -1: every element
  int32_t alternative = -1;        // another class / id of that compound, -1: none
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
  uint32_t legacy_font_begin = 0;  // into Plan::legacy_font_values
  uint32_t legacy_font_count = 0;
  uint32_t anim_var_begin = 0;  // into Plan::animation_vars
  uint32_t anim_var_count = 0;
  uint32_t custom_begin = 0;  // into Plan::custom_properties
  uint32_t custom_count = 0;
};

// A custom property declaration (`--name: value`), views into the stylesheet's text.
struct CustomProperty {
  std::string_view name;
  std::string_view value;
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
  // beasties 0.4: the last font-family value as written, and whether the last src has a url()
  std::string_view raw_family;
  bool has_src_url = false;
};

class Plan {
 public:
  CssTree tree;
  // A style rule's facts: rule_facts[facts_index[node]]; entry 0 is the empty facts of every
  // other node (most nodes are declarations: a per-node RuleFacts would be most of the plan).
  std::vector<RuleFacts> rule_facts;
  std::vector<uint32_t> facts_index;  // per node
  const RuleFacts& FactsOf(uint32_t node) const { return rule_facts[facts_index[node]]; }
  // Per node (comments): the directive beasties 0.5 reads, and the one 0.4 reads.
  std::vector<Directive> directives;
  std::vector<Directive> directives_0_4;
  std::vector<uint8_t> has_nested;      // per node: beasties' hasNestedRules
  std::vector<uint8_t> style_end_decl;  // per node: a declaration whose value has </style>
  std::vector<int32_t> font_face;       // per node: index into font_faces or -1
  std::vector<FontFaceFacts> font_faces;
  std::vector<std::string_view> pieces;  // selector pieces (views into tree.text)
  std::vector<uint32_t> piece_selector;  // piece -> unique selector
  std::vector<UniqueSelector> selectors;
  std::vector<std::string> fonts;       // normalized families used by rules
  std::vector<std::string> animations;  // tokens of animation / animation-name values
  // Only in a sheet whose animation / animation-name values read custom properties (Bootstrap's
  // `animation: … var(--bs-spinner-animation-name)`), empty otherwise: the properties those
  // values read through var(), and every custom property declaration (the keyframes named
  // through them are kept, as the browser resolves var(): docs/critical-css-differences.md).
  std::vector<std::string_view> animation_vars;
  std::vector<CustomProperty> custom_properties;
  // beasties 0.4: values (views into tree.text) of declarations whose property has the word
  // `font` or `font-family` (its /\bfont(?:-family)?\b/i: font-size too)
  std::vector<std::string_view> legacy_font_values;
  // Key index: key ids are global over the kinds.
  KeyTable keys;
  uint32_t key_count = 0;
  std::vector<uint8_t> is_trigger;  // per key id

  // The per-page rule pass, laid out once. `walk`: the nodes beasties' walkStyleRules visits,
  // in its order (children before their parent). `walk_at_rules`: the @keyframes and
  // @font-face among them, the only nodes pass 2 judges beyond pass 1's marks.
  std::vector<uint32_t> walk;
  std::vector<uint32_t> walk_at_rules;
  // Rule gates: a rule can keep a selector only when one of its gate keys is on the page (each
  // piece's selector needs that key: a fast-path token, or a key its group requires). Key id k
  // opens the rules gate_rules[gate_begin[k], gate_begin[k + 1]); rules flagged kOpenRule have a
  // piece needing no key (always critical, `*`) and are always evaluated.
  std::vector<uint32_t> gate_begin;  // key_count + 1
  std::vector<uint32_t> gate_rules;  // node indices
  // Without comment directives (nothing then depends on the walk's order but an at-rule's
  // children being decided before it), a page decides the rules its keys open first and then
  // walks only the rest: `walk_ungated` (the walk without the gated rules), with every gated
  // rule removed to begin with (`gated_removed`, per node). The walk never enters a style rule
  // with nested rules: it is decided whole, its nested content kept or dropped with it.
  bool has_directives = false;  // for beasties 0.5; has_directives_0_4 for 0.4
  bool has_directives_0_4 = false;
  std::vector<uint32_t> walk_ungated;
  std::vector<uint8_t> gated_removed;
  static constexpr uint8_t kOpenRule = 1;
  // Compress off, every child kept: the rule's text after its selector is its source text
  // (between, block, trailing ";"), so the writer copies [a_end, end) in one append.
  static constexpr uint8_t kBodyIsSource = 2;
  std::vector<uint8_t> node_flags;  // per node
  size_t bytes = 0;
};

// Flags kBodyIsSource on every style rule without nested rules whose text after the selector
// the writer (every child kept, compress off) writes as the source's [a_end, end): the writer
// itself decides, so the flag cannot drift from it (critical_css_writer.cc).
void FlagRuleBodiesAsSource(Plan* plan);

// Appends the name of each custom property `value` reads through var() (`--x` of
// `var(--x, var(--y))`, then `--y`).
void AddVarReferences(std::string_view value, std::vector<std::string_view>* names);

}  // namespace critical_css
}  // namespace ssr_native

#endif  // SSR_NATIVE_CRITICAL_CSS_PLAN_H_
