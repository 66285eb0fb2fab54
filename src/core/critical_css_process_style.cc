// beasties' processStyle for one stylesheet and one page: pass 1 keeps the rules a selector of
// which matches (and what the `beasties:include` / `exclude` comments decide), collecting the
// fonts and animation names they use; pass 2 drops the @keyframes and @font-face nothing kept
// uses (a face's unicode-range checked against the page's text, beasties' getDocumentChars);
// the kept rules are then written (critical_css_writer.cc).
#include <cctype>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "critical_css_page.h"
#include "critical_css_writer.h"

namespace ssr_native {
namespace critical_css {

void DocumentChars::AddText(std::string_view t) {
  size_t i = 0;
  while (i < t.size()) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    if (c == '&') {
      // /&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);/iy
      size_t j = i + 1;
      bool matched = false;
      if (j < t.size() && t[j] == '#') {
        const bool hex = j + 1 < t.size() && (t[j + 1] == 'x' || t[j + 1] == 'X');
        size_t k = j + (hex ? 2 : 1);
        const size_t d0 = k;
        double value = 0;
        while (k < t.size() && (hex ? std::isxdigit(static_cast<unsigned char>(t[k])) != 0
                                    : (t[k] >= '0' && t[k] <= '9'))) {
          const char h = t[k];
          const int digit = h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10;
          value = value * (hex ? 16 : 10) + digit;
          ++k;
        }
        if (k > d0 && k < t.size() && t[k] == ';') {
          if (value <= 0x10FFFF) Add(static_cast<uint32_t>(value));
          i = k + 1;
          matched = true;
        }
      } else if (j < t.size() && std::isalpha(static_cast<unsigned char>(t[j]))) {
        size_t k = j + 1;
        while (k < t.size() && std::isalnum(static_cast<unsigned char>(t[k]))) ++k;
        if (k < t.size() && t[k] == ';') {
          std::string name(t.substr(j, k - j));
          for (char& ch : name)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          if (name == "amp")
            Add('&');
          else if (name == "apos")
            Add('\'');
          else if (name == "gt")
            Add('>');
          else if (name == "lt")
            Add('<');
          else if (name == "nbsp")
            Add(0xA0);
          else if (name == "quot")
            Add('"');
          else
            complete = false;
          i = k + 1;
          matched = true;
        }
      }
      if (matched) continue;
    }
    // One UTF-8 sequence.
    uint32_t cp = c;
    size_t len = 1;
    if (c >= 0xF0 && i + 3 < t.size() + 0) {
      cp = ((c & 0x07u) << 18) | ((static_cast<unsigned char>(t[i + 1]) & 0x3Fu) << 12) |
           ((static_cast<unsigned char>(t[i + 2]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(t[i + 3]) & 0x3Fu);
      len = 4;
    } else if (c >= 0xE0 && i + 2 < t.size()) {
      cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(t[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(t[i + 2]) & 0x3Fu);
      len = 3;
    } else if (c >= 0xC0 && i + 1 < t.size()) {
      cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(t[i + 1]) & 0x3Fu);
      len = 2;
    }
    Add(cp);
    i += len;
  }
}

bool PageProcessor::SelectorMatches(const Plan& plan, uint32_t selector) {
  int8_t& memo = memo_[selector];
  if (memo >= 0) return memo == 1;
  const UniqueSelector& u = plan.selectors[selector];
  bool result = false;
  switch (u.compiled.mode) {
    case SelectorMode::kAlways:
      result = true;
      break;
    case SelectorMode::kNever:
      result = false;
      break;
    case SelectorMode::kFastPath:
      result = true;
      for (uint32_t key : u.fast_keys) {
        if (!marks_[key]) result = false;
      }
      break;
    case SelectorMode::kMatch:
      for (size_t g = 0; g < u.groups.size() && !result; ++g) {
        const GroupIndex& index = u.groups[g];
        bool possible = true;
        for (uint32_t key : index.required) {
          if (!marks_[key]) {
            possible = false;
            break;
          }
        }
        if (!possible) continue;
        if (index.trigger >= 0) {
          // Elements matching the compound hold both keys: either list is every candidate.
          uint32_t key = static_cast<uint32_t>(index.trigger);
          if (index.alternative >= 0) {
            const uint32_t other = static_cast<uint32_t>(index.alternative);
            if (by_key_end_[other] - by_key_begin_[other] < by_key_end_[key] - by_key_begin_[key]) {
              key = other;
            }
          }
          const uint32_t b = by_key_begin_[key], e = by_key_end_[key];
          result = MatchesSomewhere(u.compiled.groups[g], by_key_.data() + b, e - b, &match_);
        } else {
          result = MatchesSomewhere(u.compiled.groups[g], domain_.data(), domain_.size(), &match_);
        }
      }
      break;
  }
  memo = result ? 1 : 0;
  return result;
}

// Pass 1 and pass 2 of beasties' processStyle over one plan for one page: which rules and
// at-rules are dropped (`removed`), and the selector text each kept rule is written with (slot
// k + 1 of `written`; 0: the selector postcss parsed).
struct PageProcessor::RuleSelection {
  RuleSelection(PageProcessor* page, const Plan& plan)
      : page(*page),
        plan(plan),
        tree(plan.tree),
        text(plan.tree.text),
        options(page->options_),
        removed(page->scratch_.removed),
        selector_slot(page->scratch_.selector_slot),
        directives(page->options_.beasties_0_4 ? plan.directives_0_4 : plan.directives) {}

  // Pass 1, beasties' walkStyleRules with markOnly.
  void MarkRules();
  // Pass 2: drop unused @keyframes and @font-face (the marked rules are dropped with them: the
  // writer skips what `removed` holds).
  void DropUnusedAtRules();

  // beasties' predicate for one node of the walk; false: marked removed.
  bool Keep(uint32_t index);
  bool KeepRule(uint32_t index);
  bool KeepNestedRule(uint32_t index, const RuleFacts& facts);
  void ReadDirective(uint32_t index);
  bool DirectiveActive() const {
    return include_next || exclude_next || include_all || exclude_all;
  }
  bool ChildrenAlive(const CssNode& node) const {
    for (uint32_t c : tree.Children(node)) {
      if (!removed[c]) return true;
    }
    return false;
  }
  void Collect(const RuleFacts& facts);
  void AddAnimationsReadThroughVar();
  std::vector<std::string_view> AllParts(const RuleFacts& facts) const;
  void FinishSelector(uint32_t index, const std::vector<std::string_view>& kept);
  // A selector kept whole is a view of the stylesheet; a joined one is kept in `joined`.
  void SetSelector(uint32_t index, std::string text) {
    joined.push_back(std::move(text));
    SetSelectorView(index, joined.back());
  }
  void SetSelectorView(uint32_t index, std::string_view text) {
    written.push_back(text);
    selector_slot[index] = static_cast<uint32_t>(written.size());
  }
  bool FontFaceUsed(uint32_t index, const std::string& legacy_joined);

  PageProcessor& page;
  const Plan& plan;
  const CssTree& tree;
  const std::string_view text;
  const InlineOptions& options;
  std::vector<uint8_t>& removed;  // per node: $$remove after pass 1, then what pass 2 drops
  std::vector<uint32_t>& selector_slot;
  const std::vector<Directive>& directives;
  std::vector<std::string_view> written;
  std::deque<std::string> joined;
  std::vector<std::string_view> fonts;
  std::vector<std::string_view> legacy_fonts;
  std::vector<std::string_view> animations;
  std::vector<std::string_view> animation_vars;          // read by kept animation values
  std::vector<const CustomProperty*> custom_properties;  // of kept rules
  bool include_next = false, exclude_next = false, include_all = false, exclude_all = false;
  std::vector<std::string_view> kept;
  std::vector<uint32_t> stack;  // a kept nested rule's descendants
};

void PageProcessor::RuleSelection::Collect(const RuleFacts& facts) {
  for (uint32_t f = 0; f < facts.font_count; ++f) {
    fonts.push_back(plan.fonts[facts.font_begin + f]);
  }
  for (uint32_t f = 0; f < facts.legacy_font_count; ++f) {
    legacy_fonts.push_back(plan.legacy_font_values[facts.legacy_font_begin + f]);
  }
  for (uint32_t a = 0; a < facts.anim_count; ++a) {
    animations.push_back(plan.animations[facts.anim_begin + a]);
  }
  for (uint32_t v = 0; v < facts.anim_var_count; ++v) {
    animation_vars.push_back(plan.animation_vars[facts.anim_var_begin + v]);
  }
  for (uint32_t c = 0; c < facts.custom_count; ++c) {
    custom_properties.push_back(&plan.custom_properties[facts.custom_begin + c]);
  }
}

// A kept animation that names its keyframes through a custom property (Bootstrap's spinners:
// `animation: … var(--bs-spinner-animation-name)` with `--bs-spinner-animation-name:
// spinner-border` kept): the words of the kept declarations of that property, and of those
// they read through var() in turn, name keyframes too, as the browser resolves var(). beasties
// reads only the animation value's own words and drops those keyframes: without them the
// spinner is neither animated nor its own layer at first paint
// (docs/critical-css-differences.md).
void PageProcessor::RuleSelection::AddAnimationsReadThroughVar() {
  if (animation_vars.empty() || custom_properties.empty()) return;
  std::unordered_multimap<std::string_view, std::string_view> values;
  for (const CustomProperty* c : custom_properties) values.emplace(c->name, c->value);
  std::unordered_set<std::string_view> seen(animation_vars.begin(), animation_vars.end());
  std::vector<std::string_view> wanted(seen.begin(), seen.end());
  std::vector<std::string_view> read;
  while (!wanted.empty()) {
    const std::string_view name = wanted.back();
    wanted.pop_back();
    const auto range = values.equal_range(name);
    for (auto it = range.first; it != range.second; ++it) {
      const std::string_view value = it->second;
      const auto apart = [&](size_t i) {
        const char c = value[i];
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == ',';
      };
      size_t p = 0;
      while (p < value.size()) {  // the words of an animation list: `spin, fade 2s`
        while (p < value.size() && apart(p)) ++p;
        const size_t q = p;
        while (p < value.size() && !apart(p)) ++p;
        if (p > q) animations.push_back(value.substr(q, p - q));
      }
      read.clear();
      AddVarReferences(value, &read);
      for (std::string_view r : read) {
        if (seen.insert(r).second) wanted.push_back(r);
      }
    }
  }
}

std::vector<std::string_view> PageProcessor::RuleSelection::AllParts(const RuleFacts& facts) const {
  std::vector<std::string_view> parts;
  for (uint32_t p = 0; p < facts.piece_count; ++p) {
    parts.push_back(plan.pieces[facts.piece_begin + p]);
  }
  return parts;
}

void PageProcessor::RuleSelection::FinishSelector(uint32_t index,
                                                  const std::vector<std::string_view>& kept) {
  if (options.compress) {  // node.selectors.join(",")
    std::string joined;
    for (size_t k = 0; k < kept.size(); ++k) {
      if (k > 0) joined.push_back(',');
      joined.append(kept[k]);
    }
    SetSelector(index, std::move(joined));
    return;
  }
  if (kept.size() == 1) {
    SetSelectorView(index, kept[0]);
    return;
  }
  // Only a rule that keeps some of several selectors reads its source text.
  const CssNode& node = tree.nodes[index];
  const std::string_view s0 = text.substr(node.a_begin, node.a_end - node.a_begin);
  const std::string_view between = text.substr(node.a_end, node.open - node.a_end);
  const std::vector<std::string_view> parts = AllParts(plan.FactsOf(index));
  const std::string s1 = JoinLikePostcss(kept, s0, between);
  const std::string s2 = JoinLikePostcss(parts, s1, between);
  SetSelector(index, JoinLikePostcss(kept, s2, between));
}

void PageProcessor::RuleSelection::ReadDirective(uint32_t index) {
  switch (directives[index]) {
    case Directive::kInclude:
      include_next = true;
      break;
    case Directive::kExclude:
      exclude_next = true;
      break;
    case Directive::kIncludeStart:
      include_all = true;
      break;
    case Directive::kIncludeEnd:
      include_all = false;
      break;
    case Directive::kExcludeStart:
      exclude_all = true;
      break;
    case Directive::kExcludeEnd:
      exclude_all = false;
      break;
    case Directive::kNone:
      break;
  }
}

bool PageProcessor::RuleSelection::Keep(uint32_t index) {
  const CssNode& node = tree.nodes[index];
  if (node.kind == CssKind::kComment) {
    ReadDirective(index);
    return false;
  }
  if (node.kind == CssKind::kDecl) return false;
  if (node.kind == CssKind::kRule) return KeepRule(index);
  const std::string_view name = text.substr(node.a_begin, node.a_end - node.a_begin);
  // @namespace: the prefixes of namespaced selectors kept (the browser drops a rule naming an
  // undeclared one)
  if (name == "font-face" || name == "layer" || name == "namespace") return true;
  if (!node.has_block) return false;
  return ChildrenAlive(node);
}

bool PageProcessor::RuleSelection::KeepRule(uint32_t index) {
  const RuleFacts& facts = plan.FactsOf(index);
  if (DirectiveActive()) {
    bool result;
    if (include_next) {
      include_next = false;
      result = true;
    } else if (exclude_next) {
      exclude_next = false;
      result = false;
    } else {
      result = include_all;
    }
    FinishSelector(index, AllParts(facts));
    return result;
  }
  if (plan.has_nested[index]) return KeepNestedRule(index, facts);
  kept.clear();
  for (uint32_t p = 0; p < facts.piece_count; ++p) {
    if (page.SelectorMatches(plan, plan.piece_selector[facts.piece_begin + p])) {
      kept.push_back(plan.pieces[facts.piece_begin + p]);
    }
  }
  if (kept.empty()) return false;
  FinishSelector(index, kept);
  if (written[selector_slot[index] - 1].empty()) return false;
  Collect(facts);
  return ChildrenAlive(tree.nodes[index]);
}

// Kept whole, every selector and all nested content as written, when one of its own selectors
// matches: each nested selector is relative to it (`&`), so nothing nested can match where it
// does not, and what more it keeps never changes a paint.
bool PageProcessor::RuleSelection::KeepNestedRule(uint32_t index, const RuleFacts& facts) {
  bool any = false;
  for (uint32_t p = 0; p < facts.piece_count && !any; ++p) {
    any = page.SelectorMatches(plan, plan.piece_selector[facts.piece_begin + p]);
  }
  if (!any) return false;
  FinishSelector(index, AllParts(facts));
  if (written[selector_slot[index] - 1].empty()) return false;
  // The fonts and animation names of its nested rules count as its own (an explicit stack: the
  // depth is the stylesheet's, bounded by the plan).
  stack.assign(1, index);
  while (!stack.empty()) {
    const uint32_t r = stack.back();
    stack.pop_back();
    Collect(plan.FactsOf(r));  // a rule's, or an at-rule's own declarations'
    for (uint32_t c : tree.Children(tree.nodes[r])) {
      const CssKind k = tree.nodes[c].kind;
      if (k == CssKind::kRule || k == CssKind::kAtRule) stack.push_back(c);
    }
  }
  return true;
}

void PageProcessor::RuleSelection::MarkRules() {
  // Rules a page can keep a selector of: those a key of the page opens, and the open ones.
  std::vector<uint8_t>& live = page.scratch_.live;
  live.assign(tree.nodes.size(), 0);
  if (!(options.beasties_0_4 ? plan.has_directives_0_4 : plan.has_directives)) {
    // In the order that matters without directives: a rule is decided by its own selectors
    // (what it collects, fonts and animation names, is a set), an at-rule by its children,
    // decided before it. So the rules the page's keys open go first, the rest of the walk
    // after, in its order (children before their parent); a rule no key opens keeps no
    // selector and stays removed.
    removed.assign(plan.gated_removed.begin(), plan.gated_removed.end());
    for (uint32_t key : page.marked_keys_) {
      for (uint32_t g = plan.gate_begin[key]; g < plan.gate_begin[key + 1]; ++g) {
        const uint32_t rule = plan.gate_rules[g];
        if (live[rule] || !plan.gated_removed[rule]) continue;  // nested ones: in the walk
        live[rule] = 1;
        removed[rule] = Keep(rule) ? 0 : 1;
      }
    }
    for (uint32_t index : plan.walk_ungated) {
      if (!Keep(index)) removed[index] = 1;
    }
    return;
  }
  for (uint32_t key : page.marked_keys_) {
    for (uint32_t g = plan.gate_begin[key]; g < plan.gate_begin[key + 1]; ++g) {
      live[plan.gate_rules[g]] = 1;
    }
  }
  // In the walk's order (children before their parent): the directives' state runs through it.
  // A rule no key opens keeps no selector: removed without matching, unless a directive
  // decides it.
  for (uint32_t index : plan.walk) {
    if (tree.nodes[index].kind == CssKind::kRule && !live[index] &&
        !(plan.node_flags[index] & Plan::kOpenRule) && !DirectiveActive()) {
      removed[index] = 1;
      continue;
    }
    if (!Keep(index)) removed[index] = 1;
  }
}

void PageProcessor::RuleSelection::DropUnusedAtRules() {
  std::string legacy_joined;  // beasties 0.4's criticalFonts: " " + value, per kept value
  if (options.beasties_0_4) {
    for (std::string_view v : legacy_fonts) {
      legacy_joined += ' ';
      legacy_joined += v;
    }
  }
  AddAnimationsReadThroughVar();
  for (uint32_t index : plan.walk_at_rules) {
    if (removed[index]) continue;
    const CssNode& node = tree.nodes[index];
    const std::string_view name = text.substr(node.a_begin, node.a_end - node.a_begin);
    if (name == "keyframes") {
      const std::string_view params = text.substr(node.b_begin, node.b_end - node.b_begin);
      bool used = false;
      for (std::string_view a : animations) {
        if (a == params) used = true;
      }
      if (!used) removed[index] = 1;
    } else if (!options.inline_fonts || !FontFaceUsed(index, legacy_joined)) {
      removed[index] = 1;
    }
  }
}

bool PageProcessor::RuleSelection::FontFaceUsed(uint32_t index, const std::string& legacy_joined) {
  const int32_t ff = plan.font_face[index];
  if (ff < 0) return false;
  const FontFaceFacts& facts = plan.font_faces[ff];
  if (options.beasties_0_4) {
    return !facts.raw_family.empty() && facts.has_src_url &&
           legacy_joined.find(facts.raw_family) != std::string::npos;
  }
  bool used = false;
  if (facts.has_family) {
    for (std::string_view f : fonts) {
      if (f == facts.family) used = true;
    }
  }
  if (!used || !facts.has_ranges) return used;
  const DocumentChars& chars = page.Chars();
  if (!chars.complete) return true;
  for (size_t r = 0; r + 1 < facts.ranges.size(); r += 2) {
    for (uint32_t cp = facts.ranges[r]; cp <= facts.ranges[r + 1]; ++cp) {
      if (chars.Has(cp)) return true;
    }
  }
  return false;
}

std::string PageProcessor::ProcessStyle(const Plan& plan) {
  const size_t count = plan.tree.nodes.size();
  MarkPage(plan);
  memo_.assign(plan.selectors.size(), -1);
  // Per-node scratch, reused by the thread from page to page (no fresh pages to fault in).
  scratch_.removed.assign(count, 0);
  scratch_.selector_slot.assign(count, 0);
  RuleSelection selection(this, plan);
  selection.MarkRules();
  selection.DropUnusedAtRules();
  return WriteKeptRules(plan, selection.removed, selection.selector_slot, selection.written,
                        options_.compress);
}

const DocumentChars& PageProcessor::Chars() {
  if (chars_done_) return chars_;
  chars_done_ = true;
  chars_.bmp.assign(0x10000, 0);
  const int32_t count = static_cast<int32_t>(doc_.elements.size());
  std::vector<uint8_t> rendered(count, 1);
  static const char* const kNonRendered[] = {"script",   "style", "template",
                                             "noscript", "head",  "title"};
  static const char* const kRenderedAttrs[] = {"alt", "label", "placeholder", "title", "value"};
  for (int32_t e = 0; e < count; ++e) {
    const HtmlElement& el = doc_.elements[e];
    if (el.synthetic) {
      rendered[e] = 0;
      continue;
    }
    bool r = el.parent < 0 || rendered[el.parent];
    for (const char* n : kNonRendered) {
      if (el.name == n) r = false;
    }
    rendered[e] = r ? 1 : 0;
    if (!r) continue;
    for (const char* a : kRenderedAttrs) {
      std::string_view value;
      if (GetAttribute(doc_, e, a, &value) && !value.empty()) chars_.AddText(value);
    }
  }
  for (const HtmlTextRun& run : doc_.texts) {
    if (run.parent >= 0 && !rendered[run.parent]) continue;
    chars_.AddText(html_.substr(run.begin, run.end - run.begin));
  }
  return chars_;
}

}  // namespace critical_css
}  // namespace ssr_native
