// Compiling a stylesheet into a Plan: parse once, split and compile every rule's selectors
// (identical pieces share one compiled selector), read the facts beasties reads from
// declarations (font families, animation names, `</style>` in a value, @font-face family and
// unicode-range, comment directives), and index every selector by the keys a page must hold.
#include "critical_css_plan.h"

#include <algorithm>
#include <cctype>

namespace ssr_native {
namespace critical_css {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

std::string_view Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (IsSpace(s[b]) || s[b] == '\v')) ++b;
  while (e > b && (IsSpace(s[e - 1]) || s[e - 1] == '\v')) --e;
  return s.substr(b, e - b);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

void AppendCodePoint(uint32_t cp, std::string* out) {
  if (cp > 0x10FFFF) cp = 0xFFFD;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// beasties' splitTopLevel: commas outside quotes and parentheses.
std::vector<std::string_view> SplitTopLevel(std::string_view v) {
  std::vector<std::string_view> out;
  size_t start = 0;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      depth = depth > 0 ? depth - 1 : 0;
    } else if (c == ',' && depth == 0) {
      out.push_back(v.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(v.substr(start));
  return out;
}

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// beasties 0.4's /\bfont(?:-family)?\b/i on a lower-cased property: `font` as a word (the
// optional -family adds nothing: a word boundary follows `font` before its `-`).
bool HasFontWord(std::string_view lower) {
  for (size_t at = lower.find("font"); at != std::string_view::npos;
       at = lower.find("font", at + 1)) {
    const bool start = at == 0 || !IsWordChar(lower[at - 1]);
    const bool end = at + 4 == lower.size() || !IsWordChar(lower[at + 4]);
    if (start && end) return true;
  }
  return false;
}

// beasties 0.4's src test: /url\s*\(\s*(['"]?)(.+?)\1\s*\)/ matches somewhere in the value.
bool HasUrlSource(std::string_view value) {
  for (size_t at = value.find("url"); at != std::string_view::npos;
       at = value.find("url", at + 1)) {
    size_t p = at + 3;
    while (p < value.size() && IsSpace(value[p])) ++p;
    if (p >= value.size() || value[p] != '(') continue;
    ++p;
    while (p < value.size() && IsSpace(value[p])) ++p;
    // (['"]?)(.+?)\1\s*\) : with a quote, a closing quote after at least one character then
    // spaces and `)`; without (or backtracking to no quote), one character or more then `)`.
    auto closes = [&](size_t from, char quote) {
      for (size_t q = from + 1; q < value.size(); ++q) {
        if (quote && value[q] != quote) continue;
        size_t r = quote ? q + 1 : q;
        while (r < value.size() && IsSpace(value[r])) ++r;
        if (r < value.size() && value[r] == ')') return true;
      }
      return false;
    };
    if (p < value.size() && (value[p] == '"' || value[p] == '\'') && closes(p + 1, value[p]))
      return true;
    if (p < value.size() && closes(p, 0)) return true;
  }
  return false;
}

// beasties' normalizeFontFamily.
std::string NormalizeFontFamily(std::string_view family) {
  std::string_view v = Trim(family);
  if (v.size() > 1 && (v[0] == '"' || v[0] == '\'') && v.back() == v[0]) {
    v = v.substr(1, v.size() - 2);
  }
  std::string a;
  for (size_t i = 0; i < v.size();) {
    if (v[i] == '\\' && i + 1 < v.size() && IsHex(v[i + 1])) {
      uint32_t cp = 0;
      size_t k = i + 1;
      while (k < v.size() && k < i + 7 && IsHex(v[k])) {
        const char h = v[k];
        cp = cp * 16 + static_cast<uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
        ++k;
      }
      if (k < v.size() && IsSpace(v[k])) ++k;
      AppendCodePoint(cp, &a);
      i = k;
      continue;
    }
    a.push_back(v[i]);
    ++i;
  }
  std::string b;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == '\\' && i + 1 < a.size() && a[i + 1] != '\n' && a[i + 1] != '\r') {
      b.push_back(a[i + 1]);
      ++i;
      continue;
    }
    b.push_back(a[i]);
  }
  std::string c;
  bool in_space = false;
  for (char ch : b) {
    if (IsSpace(ch) || ch == '\v') {
      if (!in_space) c.push_back(' ');
      in_space = true;
    } else {
      c.push_back(ch);
      in_space = false;
    }
  }
  return Lower(Trim(c));
}

bool IsCssWideKeyword(const std::string& f) {
  return f == "inherit" || f == "initial" || f == "unset" || f == "revert" || f == "revert-layer";
}

bool IsFontSizeKeyword(const std::string& s) {
  static const char* const kWords[] = {"xx-small", "x-small",  "small",     "medium",  "large",
                                       "x-large",  "xx-large", "xxx-large", "smaller", "larger"};
  for (const char* w : kWords) {
    if (s == w) return true;
  }
  return false;
}

// /^(?:[+-]?(?:\d+|\d*\.\d+)(?:[a-z]+|%)|calc\(|var\()/i
bool LooksLikeFontSize(std::string_view s) {
  const std::string l = Lower(s);
  if (l.compare(0, 5, "calc(") == 0 || l.compare(0, 4, "var(") == 0) return true;
  size_t i = 0;
  if (i < l.size() && (l[i] == '+' || l[i] == '-')) ++i;
  const size_t d0 = i;
  while (i < l.size() && l[i] >= '0' && l[i] <= '9') ++i;
  bool number = i > d0;
  if (i < l.size() && l[i] == '.') {
    size_t j = i + 1;
    const size_t f0 = j;
    while (j < l.size() && l[j] >= '0' && l[j] <= '9') ++j;
    if (j > f0) {
      number = true;
      i = j;
    }
  }
  if (!number) return false;
  if (i < l.size() && l[i] == '%') return true;
  return i < l.size() && l[i] >= 'a' && l[i] <= 'z';
}

std::vector<std::string> ParseFontFamilies(std::string_view prop, std::string_view value) {
  std::vector<std::string> out;
  std::vector<std::string_view> segments = SplitTopLevel(value);
  std::string tail;
  if (Lower(prop) == "font") {
    // shorthandFamily(first segment)
    std::string seg(Trim(segments[0]));
    std::string collapsed;  // \s*\/\s* -> "/"
    for (size_t i = 0; i < seg.size(); ++i) {
      if (seg[i] == '/') {
        while (!collapsed.empty() && IsSpace(collapsed.back())) collapsed.pop_back();
        collapsed.push_back('/');
        while (i + 1 < seg.size() && IsSpace(seg[i + 1])) ++i;
        continue;
      }
      collapsed.push_back(seg[i]);
    }
    std::vector<std::string> tokens;
    size_t i = 0;
    while (i <= collapsed.size()) {
      size_t j = i;
      while (j < collapsed.size() && !IsSpace(collapsed[j])) ++j;
      tokens.emplace_back(collapsed.substr(i, j - i));
      while (j < collapsed.size() && IsSpace(collapsed[j])) ++j;
      if (j >= collapsed.size()) break;
      i = j;
    }
    bool found = false;
    for (size_t t = 0; t < tokens.size(); ++t) {
      const std::string size = tokens[t].substr(0, tokens[t].find('/'));
      if (LooksLikeFontSize(size) || IsFontSizeKeyword(Lower(size))) {
        for (size_t r = t + 1; r < tokens.size(); ++r) {
          if (r > t + 1) tail.push_back(' ');
          tail += tokens[r];
        }
        found = true;
        break;
      }
    }
    if (!found) return out;
    segments[0] = tail;
  }
  for (std::string_view segment : segments) {
    std::string family = NormalizeFontFamily(segment);
    if (!family.empty() && !IsCssWideKeyword(family)) out.push_back(std::move(family));
  }
  return out;
}

// beasties' parseUnicodeRanges; false when any part is not understood.
bool ParseUnicodeRanges(std::string_view value, std::vector<uint32_t>* ranges) {
  for (std::string_view token : SplitTopLevel(value)) {
    const std::string part = Lower(Trim(token));
    if (part.empty()) continue;
    if (part.size() < 3 || part[0] != 'u' || part[1] != '+') return false;
    std::string rest = part.substr(2);
    const size_t q = rest.find('?');
    if (q != std::string::npos) {
      const std::string prefix = rest.substr(0, q);
      const std::string marks = rest.substr(q);
      if (prefix.size() > 5 || marks.size() > 6) return false;
      for (char c : prefix) {
        if (!IsHex(c)) return false;
      }
      for (char c : marks) {
        if (c != '?') return false;
      }
      if (prefix.size() + marks.size() > 6) return false;
      ranges->push_back(
          static_cast<uint32_t>(std::stoul(prefix + std::string(marks.size(), '0'), nullptr, 16)));
      ranges->push_back(
          static_cast<uint32_t>(std::stoul(prefix + std::string(marks.size(), 'f'), nullptr, 16)));
      continue;
    }
    const size_t dash = rest.find('-');
    const std::string a = rest.substr(0, dash);
    const std::string b = dash == std::string::npos ? a : rest.substr(dash + 1);
    auto hex_ok = [](const std::string& h) {
      if (h.empty() || h.size() > 6) return false;
      for (char c : h) {
        if (!IsHex(c)) return false;
      }
      return true;
    };
    if (!hex_ok(a) || !hex_ok(b)) return false;
    const uint32_t start = static_cast<uint32_t>(std::stoul(a, nullptr, 16));
    const uint32_t end = static_cast<uint32_t>(std::stoul(b, nullptr, 16));
    if (end < start) return false;
    ranges->push_back(start);
    ranges->push_back(end);
  }
  return !ranges->empty();
}

// Where JavaScript's "." stops: the first line terminator (\n, \r, U+2028, U+2029) of `s`.
size_t LineEnd(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || s[i] == '\r') return i;
    if (s[i] == '\xE2' && i + 2 < s.size() && s[i + 1] == '\x80' &&
        (s[i + 2] == '\xA8' || s[i + 2] == '\xA9')) {
      return i;
    }
  }
  return s.size();
}

Directive CommandOf(std::string_view command) {
  if (command == "include") return Directive::kInclude;
  if (command == "exclude") return Directive::kExclude;
  if (command == "include start") return Directive::kIncludeStart;
  if (command == "include end") return Directive::kIncludeEnd;
  if (command == "exclude start") return Directive::kExcludeStart;
  if (command == "exclude end") return Directive::kExcludeEnd;
  return Directive::kNone;
}

// beasties 0.5: /^(beasties|critters):(.*)$/ on postcss's trimmed comment text, the command
// trimmed. `text` is the comment's body between its delimiters.
Directive ParseDirective(std::string_view text) {
  std::string_view t = Trim(text);
  std::string_view rest;
  if (t.compare(0, 9, "beasties:") == 0) {
    rest = t.substr(9);
  } else if (t.compare(0, 9, "critters:") == 0) {
    rest = t.substr(9);
  } else {
    return Directive::kNone;
  }
  if (LineEnd(rest) != rest.size()) {
    return Directive::kNone;  // "." in /^(beasties|critters):(.*)$/ stops at a line end
  }
  return CommandOf(Trim(rest));
}

// beasties 0.4 (Angular 21): /^(?<!! )beasties:(.*)/, the command as matched: `beasties:` only
// (no `critters:`), the command not trimmed (`beasties: include` is no directive), and a
// command on several lines cut at the first line end, the expression being unanchored.
Directive ParseDirective04(std::string_view text) {
  const std::string_view t = Trim(text);
  if (t.compare(0, 9, "beasties:") != 0) return Directive::kNone;
  const std::string_view rest = t.substr(9);
  return CommandOf(rest.substr(0, LineEnd(rest)));
}

}  // namespace

void AddVarReferences(std::string_view value, std::vector<std::string_view>* names) {
  for (size_t p = 0; p + 4 <= value.size(); ++p) {
    if (value[p + 3] != '(' || (value[p] | 0x20) != 'v' || (value[p + 1] | 0x20) != 'a' ||
        (value[p + 2] | 0x20) != 'r') {
      continue;
    }
    size_t b = p + 4;
    while (b < value.size() && IsSpace(value[b])) ++b;
    size_t e = b;
    while (e < value.size() &&
           (std::isalnum(static_cast<unsigned char>(value[e])) || value[e] == '-' ||
            value[e] == '_' || static_cast<unsigned char>(value[e]) >= 0x80)) {
      ++e;
    }
    const std::string_view name = value.substr(b, e - b);
    if (name.size() >= 3 && name[0] == '-' && name[1] == '-') names->push_back(name);
  }
}

void KeyTable::Grow() {
  const size_t size = slots_.empty() ? 64 : slots_.size() * 2;
  slots_.assign(size, 0);
  const size_t mask = size - 1;
  for (uint32_t entry = 0; entry < entries(); ++entry) {
    const uint64_t h = HashText(Text(entry));
    size_t i = static_cast<size_t>(h) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = ((h >> 32) << 32) | (uint64_t{entry} + 1);
  }
}

uint32_t KeyTable::Intern(KeyKind kind, std::string_view text, uint32_t* next_id, bool* added) {
  int32_t entry = Find(text);
  if (entry < 0) {
    if (offsets_.empty()) offsets_.push_back(0);
    entry = static_cast<int32_t>(entries());
    chars_.append(text.data(), text.size());
    offsets_.push_back(static_cast<uint32_t>(chars_.size()));
    ids_.insert(ids_.end(), kKeyKinds, kNoKey);
    // Load factor at most 1/2: a miss (most page tokens) ends within a few slots.
    if ((entries() + 1) * 2 > slots_.size()) {
      Grow();
    } else {
      const uint64_t h = HashText(text);
      const size_t mask = slots_.size() - 1;
      size_t i = static_cast<size_t>(h) & mask;
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = ((h >> 32) << 32) | (static_cast<uint64_t>(entry) + 1);
    }
  }
  uint32_t& id = ids_[static_cast<size_t>(entry) * kKeyKinds + static_cast<size_t>(kind)];
  *added = id == kNoKey;
  if (*added) id = (*next_id)++;
  return id;
}

void KeyTable::ShrinkToFit() {
  chars_.shrink_to_fit();
  offsets_.shrink_to_fit();
  ids_.shrink_to_fit();
}

size_t KeyTable::MemoryBytes() const {
  return chars_.capacity() + offsets_.capacity() * sizeof(uint32_t) +
         ids_.capacity() * sizeof(uint32_t) + slots_.capacity() * sizeof(uint64_t);
}

namespace {

class Compiler {
 public:
  Compiler(Plan* plan, const Limits& limits) : plan_(plan), limits_(limits) {}
  bool Run(std::string* error);

 private:
  uint32_t Key(KeyKind kind, std::string_view value) {
    bool added = false;
    const uint32_t id = plan_->keys.Intern(kind, value, &plan_->key_count, &added);
    if (added) {
      plan_->is_trigger.push_back(false);
      key_kind_.push_back(kind);
    }
    return id;
  }
  uint32_t SelectorFor(std::string_view piece);
  void IndexSelector(UniqueSelector* unique);
  void Walk(NodeList children);
  // Adds the gate keys of `selector` to *gates; false when it needs none (may match any page).
  bool SelectorGates(uint32_t selector, std::vector<uint32_t>* gates) const;
  void BuildRulePass();
  void CollectDeclarations(const CssNode& node, RuleFacts* facts);

  Plan* plan_;
  const Limits& limits_;
  std::unordered_map<std::string_view, uint32_t> by_text_;
  std::vector<KeyKind> key_kind_;  // per key id
};

void Compiler::Walk(NodeList children) {
  for (uint32_t index : children) {
    // A style rule with nested rules is decided whole by its own selectors (its nested
    // selectors are relative to it): the walk does not enter it, unlike beasties' (issue #43,
    // docs/critical-css-differences.md: beasties drops such a rule, the browser paints it).
    if (plan_->has_nested[index] && plan_->tree.nodes[index].kind != CssKind::kRule) {
      Walk(plan_->tree.Children(plan_->tree.nodes[index]));
    }
    plan_->walk.push_back(index);
  }
}

bool Compiler::SelectorGates(uint32_t selector, std::vector<uint32_t>* gates) const {
  const UniqueSelector& u = plan_->selectors[selector];
  switch (u.compiled.mode) {
    case SelectorMode::kAlways:
      return false;
    case SelectorMode::kNever:
      return true;
    case SelectorMode::kFastPath:
      if (u.fast_keys.empty()) return false;
      gates->push_back(u.fast_keys[0]);
      return true;
    case SelectorMode::kMatch:
      for (const GroupIndex& group : u.groups) {
        if (group.required.empty()) return false;
        // The rarest kind on a page: an id or a class before an attribute name, a tag last.
        auto rank = [&](uint32_t key) {
          switch (key_kind_[key]) {
            case KeyKind::kId:
            case KeyKind::kFastId:
              return 4;
            case KeyKind::kClass:
            case KeyKind::kFastClass:
              return 3;
            case KeyKind::kAttr:
              return 2;
            case KeyKind::kTag:
              return 1;
          }
          return 0;
        };
        uint32_t best = group.required[0];
        for (uint32_t key : group.required) {
          if (rank(key) > rank(best)) best = key;
        }
        gates->push_back(best);
      }
      return true;
  }
  return false;
}

void Compiler::BuildRulePass() {
  CssTree& tree = plan_->tree;
  const size_t count = tree.nodes.size();
  Walk(tree.Roots());
  plan_->node_flags.assign(count, 0);
  std::vector<std::pair<uint32_t, uint32_t>> opens;  // (key, rule)
  std::vector<uint32_t> gates;
  plan_->gated_removed.assign(count, 0);
  for (uint32_t index : plan_->walk) {
    const CssNode& node = tree.nodes[index];
    if (node.kind == CssKind::kComment) {
      if (plan_->directives[index] != Directive::kNone) plan_->has_directives = true;
      if (plan_->directives_0_4[index] != Directive::kNone) plan_->has_directives_0_4 = true;
    }
    if (node.kind != CssKind::kRule) plan_->walk_ungated.push_back(index);
    if (node.kind == CssKind::kAtRule) {
      const std::string_view name =
          std::string_view(tree.text).substr(node.a_begin, node.a_end - node.a_begin);
      if (name == "keyframes" || name == "font-face") plan_->walk_at_rules.push_back(index);
      continue;
    }
    if (node.kind != CssKind::kRule) continue;
    const RuleFacts& facts = plan_->FactsOf(index);
    gates.clear();
    bool open = false;
    for (uint32_t p = 0; p < facts.piece_count && !open; ++p) {
      open = !SelectorGates(plan_->piece_selector[facts.piece_begin + p], &gates);
    }
    if (open) plan_->node_flags[index] |= Plan::kOpenRule;
    if (open) {
      plan_->walk_ungated.push_back(index);
    } else {
      plan_->gated_removed[index] = 1;
    }
    if (open) continue;
    std::sort(gates.begin(), gates.end());
    gates.erase(std::unique(gates.begin(), gates.end()), gates.end());
    for (uint32_t key : gates) opens.emplace_back(key, index);
  }
  plan_->gate_begin.assign(static_cast<size_t>(plan_->key_count) + 1, 0);
  for (const auto& o : opens) ++plan_->gate_begin[o.first + 1];
  for (size_t k = 1; k < plan_->gate_begin.size(); ++k) {
    plan_->gate_begin[k] += plan_->gate_begin[k - 1];
  }
  plan_->gate_rules.resize(opens.size());
  std::vector<uint32_t> fill(plan_->gate_begin.begin(), plan_->gate_begin.end() - 1);
  for (const auto& o : opens) plan_->gate_rules[fill[o.first]++] = o.second;
  // Every rule the writer may meet, walked or not (keyframe selectors are not).
  FlagRuleBodiesAsSource(plan_);
}

uint32_t Compiler::SelectorFor(std::string_view piece) {
  auto it = by_text_.find(piece);
  if (it != by_text_.end()) return it->second;
  UniqueSelector unique;
  unique.compiled = CompileSelector(piece, limits_);
  IndexSelector(&unique);
  const uint32_t id = static_cast<uint32_t>(plan_->selectors.size());
  plan_->selectors.push_back(std::move(unique));
  by_text_.emplace(piece, id);
  return id;
}

void Compiler::IndexSelector(UniqueSelector* unique) {
  CompiledSelector& c = unique->compiled;
  if (c.mode == SelectorMode::kFastPath) {
    for (const FastToken& t : c.fast) {
      unique->fast_keys.push_back(
          Key(t.is_class ? KeyKind::kFastClass : KeyKind::kFastId, t.value));
    }
    // The key ids are all a page needs; the tokens' text lives on in the key table.
    std::vector<FastToken>().swap(c.fast);
    unique->fast_keys.shrink_to_fit();
    return;
  }
  if (c.mode != SelectorMode::kMatch) return;
  for (ComplexSelector& group : c.groups) {
    GroupIndex index;
    for (size_t ci = 0; ci < group.compounds.size(); ++ci) {
      Compound& compound = group.compounds[ci];
      const bool rightmost = ci + 1 == group.compounds.size();
      int32_t best = -1, alternative = -1;
      int best_rank = 0, alternative_rank = 0;
      auto consider = [&](uint32_t key, int rank) {
        index.required.push_back(key);
        if (!rightmost || static_cast<int32_t>(key) == best) return;
        if (rank > best_rank) {
          alternative = best;
          alternative_rank = best_rank;
          best = static_cast<int32_t>(key);
          best_rank = rank;
        } else if (rank > alternative_rank) {
          alternative = static_cast<int32_t>(key);
          alternative_rank = rank;
        }
      };
      for (const std::string& tag : compound.tags) consider(Key(KeyKind::kTag, tag), 2);
      for (AttrTest& a : compound.attrs) {
        if (a.action == AttrAction::kNot) continue;
        if (a.name == "class" && a.action == AttrAction::kElement && !a.ignore_case &&
            !a.value.empty()) {
          a.class_key = static_cast<int32_t>(Key(KeyKind::kClass, a.value));
          consider(static_cast<uint32_t>(a.class_key), 3);
        } else if (a.name == "id" && a.action == AttrAction::kEquals && !a.ignore_case) {
          consider(Key(KeyKind::kId, a.value), 4);
        } else {
          consider(Key(KeyKind::kAttr, a.name), 1);
        }
      }
      if (rightmost && best >= 0) {
        index.trigger = best;
        plan_->is_trigger[best] = true;
        // A second class or id of the compound (`.btn.active`): the page starts from whichever
        // of the two has fewer elements.
        if (alternative >= 0 && alternative_rank >= 3) {
          index.alternative = alternative;
          plan_->is_trigger[alternative] = true;
        }
      }
    }
    std::sort(index.required.begin(), index.required.end());
    index.required.erase(std::unique(index.required.begin(), index.required.end()),
                         index.required.end());
    unique->groups.push_back(std::move(index));
  }
}

// The fonts, animation names and custom properties of a node's own declarations (a style rule's,
// or an at-rule's nested in one: `.x{@layer l{animation:spin 1s}}`).
void Compiler::CollectDeclarations(const CssNode& node, RuleFacts* out) {
  RuleFacts& facts = *out;
  const std::string& text = plan_->tree.text;
  auto sv = [&](uint32_t b, uint32_t e) { return std::string_view(text).substr(b, e - b); };
  CssTree& tree = plan_->tree;
  facts.font_begin = static_cast<uint32_t>(plan_->fonts.size());
  facts.anim_begin = static_cast<uint32_t>(plan_->animations.size());
  facts.legacy_font_begin = static_cast<uint32_t>(plan_->legacy_font_values.size());
  facts.anim_var_begin = static_cast<uint32_t>(plan_->animation_vars.size());
  facts.custom_begin = static_cast<uint32_t>(plan_->custom_properties.size());
  for (uint32_t child : tree.Children(node)) {
    const CssNode& d = tree.nodes[child];
    if (d.kind != CssKind::kDecl) continue;
    const std::string_view prop = sv(d.a_begin, d.a_end);
    const std::string_view value = sv(d.b_begin, d.b_end);
    const std::string lower = Lower(prop);
    if (lower == "font" || lower == "font-family") {
      for (std::string& f : ParseFontFamilies(prop, value)) plan_->fonts.push_back(std::move(f));
    }
    if (HasFontWord(lower)) plan_->legacy_font_values.push_back(value);
    if (prop == "animation" || prop == "animation-name") {
      size_t p = 0;
      while (p < value.size()) {
        while (p < value.size() && (IsSpace(value[p]) || value[p] == '\v')) ++p;
        const size_t q0 = p;
        while (p < value.size() && !(IsSpace(value[p]) || value[p] == '\v')) ++p;
        if (p > q0) plan_->animations.emplace_back(value.substr(q0, p - q0));
      }
      AddVarReferences(value, &plan_->animation_vars);
    }
    if (prop.size() > 2 && prop[0] == '-' && prop[1] == '-') {
      plan_->custom_properties.push_back(CustomProperty{prop, value});
    }
  }
  facts.anim_var_count = static_cast<uint32_t>(plan_->animation_vars.size()) - facts.anim_var_begin;
  facts.custom_count = static_cast<uint32_t>(plan_->custom_properties.size()) - facts.custom_begin;
  facts.font_count = static_cast<uint32_t>(plan_->fonts.size()) - facts.font_begin;
  facts.anim_count = static_cast<uint32_t>(plan_->animations.size()) - facts.anim_begin;
  facts.legacy_font_count =
      static_cast<uint32_t>(plan_->legacy_font_values.size()) - facts.legacy_font_begin;
}

bool Compiler::Run(std::string* error) {
  CssTree& tree = plan_->tree;
  const size_t count = tree.nodes.size();
  plan_->rule_facts.assign(1, RuleFacts());
  plan_->facts_index.assign(count, 0);
  plan_->directives.assign(count, Directive::kNone);
  plan_->directives_0_4.assign(count, Directive::kNone);
  plan_->has_nested.assign(count, false);
  plan_->style_end_decl.assign(count, false);
  plan_->font_face.assign(count, -1);
  const std::string& text = tree.text;
  // Depth bound: the per-page walk recurses over blocks.
  {
    std::vector<uint32_t> depth(count, 0);
    for (size_t i = 0; i < count; ++i) {
      const int32_t parent = tree.nodes[i].parent;
      depth[i] = parent < 0 ? 1 : depth[parent] + 1;  // parents precede children
      if (depth[i] > 256) {
        *error = "stylesheet blocks nested too deep";
        return false;
      }
    }
  }
  for (size_t i = 0; i < count; ++i) {
    const CssNode& node = tree.nodes[i];
    auto sv = [&](uint32_t b, uint32_t e) { return std::string_view(text).substr(b, e - b); };
    if (node.kind == CssKind::kComment) {
      plan_->directives[i] = ParseDirective(sv(node.a_begin, node.a_end));
      plan_->directives_0_4[i] = ParseDirective04(sv(node.a_begin, node.a_end));
      continue;
    }
    if (node.kind == CssKind::kDecl) {
      if (sv(node.b_begin, node.b_end).find("</style>") != std::string_view::npos) {
        plan_->style_end_decl[i] = true;
      }
      continue;
    }
    if (node.kind == CssKind::kAtRule) {
      const std::string_view name = sv(node.a_begin, node.a_end);
      const bool keyframes = name == "keyframes" || name == "-webkit-keyframes";
      if (!keyframes) {
        bool declarations = false;
        for (uint32_t child : tree.Children(node)) {
          const CssKind k = tree.nodes[child].kind;
          if (k == CssKind::kRule || k == CssKind::kAtRule) plan_->has_nested[i] = true;
          if (k == CssKind::kDecl) declarations = true;
        }
        // Declarations straight inside an at-rule (nested in a style rule: daisyUI's
        // `.aura-holo{@layer daisyui.l1.l2{animation:aura …}}`) name fonts and keyframes too.
        if (declarations && name != "font-face") {
          plan_->facts_index[i] = static_cast<uint32_t>(plan_->rule_facts.size());
          plan_->rule_facts.emplace_back();
          CollectDeclarations(node, &plan_->rule_facts.back());
        }
      }
      if (name == "font-face" && node.has_block) {
        FontFaceFacts facts;
        for (uint32_t child : tree.Children(node)) {
          const CssNode& d = tree.nodes[child];
          if (d.kind != CssKind::kDecl) continue;
          const std::string_view prop = sv(d.a_begin, d.a_end);
          const std::string_view value = sv(d.b_begin, d.b_end);
          if (prop == "font-family") {
            facts.has_family = !value.empty();
            facts.family = NormalizeFontFamily(value);
            facts.raw_family = value;
          } else if (prop == "src") {
            facts.has_src_url = HasUrlSource(value);
          } else if (prop == "unicode-range") {
            facts.ranges.clear();
            facts.has_ranges = ParseUnicodeRanges(value, &facts.ranges);
          }
        }
        plan_->font_face[i] = static_cast<int32_t>(plan_->font_faces.size());
        plan_->font_faces.push_back(std::move(facts));
      }
      continue;
    }
    // Style rule.
    for (uint32_t child : tree.Children(node)) {
      const CssKind k = tree.nodes[child].kind;
      if (k == CssKind::kRule || k == CssKind::kAtRule) plan_->has_nested[i] = true;
    }
    plan_->facts_index[i] = static_cast<uint32_t>(plan_->rule_facts.size());
    plan_->rule_facts.emplace_back();
    RuleFacts& facts = plan_->rule_facts.back();
    facts.piece_begin = static_cast<uint32_t>(plan_->pieces.size());
    for (std::string_view piece : SplitSelectorList(sv(node.a_begin, node.a_end))) {
      plan_->pieces.push_back(piece);
      plan_->piece_selector.push_back(SelectorFor(piece));
    }
    facts.piece_count = static_cast<uint32_t>(plan_->pieces.size()) - facts.piece_begin;
    CollectDeclarations(node, &facts);
  }
  if (plan_->animation_vars.empty()) {  // no animation reads a custom property
    plan_->custom_properties.clear();
    for (RuleFacts& facts : plan_->rule_facts) facts.custom_begin = facts.custom_count = 0;
  }
  BuildRulePass();
  // The plan lives as long as the stylesheet: give back the vectors' growth slack.
  tree.nodes.shrink_to_fit();
  tree.child_list.shrink_to_fit();
  tree.roots.shrink_to_fit();
  plan_->rule_facts.shrink_to_fit();
  plan_->pieces.shrink_to_fit();
  plan_->piece_selector.shrink_to_fit();
  plan_->selectors.shrink_to_fit();
  plan_->fonts.shrink_to_fit();
  plan_->legacy_font_values.shrink_to_fit();
  plan_->animations.shrink_to_fit();
  plan_->animation_vars.shrink_to_fit();
  plan_->custom_properties.shrink_to_fit();
  plan_->font_faces.shrink_to_fit();
  plan_->is_trigger.shrink_to_fit();
  plan_->keys.ShrinkToFit();
  plan_->walk.shrink_to_fit();
  plan_->walk_at_rules.shrink_to_fit();
  plan_->walk_ungated.shrink_to_fit();
  // Approximate footprint.
  size_t bytes = sizeof(Plan) + text.capacity() + tree.root_after_prefix.capacity() +
                 tree.nodes.capacity() * sizeof(CssNode);
  bytes += tree.child_list.capacity() * sizeof(uint32_t) + tree.roots.capacity() * sizeof(uint32_t);
  bytes += plan_->pieces.capacity() * (sizeof(std::string_view) + sizeof(uint32_t));
  bytes += plan_->rule_facts.capacity() * sizeof(RuleFacts);
  // per node: facts_index, directives (two), font_face, has_nested, style_end_decl
  bytes += count * (sizeof(uint32_t) + 2 * sizeof(Directive) + sizeof(int32_t) + 2);
  bytes += plan_->is_trigger.capacity();
  for (const FontFaceFacts& f : plan_->font_faces) {
    bytes += sizeof(FontFaceFacts) + f.family.capacity() + f.ranges.capacity() * sizeof(uint32_t);
  }
  for (const UniqueSelector& u : plan_->selectors) {
    bytes += sizeof(UniqueSelector) + u.fast_keys.capacity() * 4;
    for (const FastToken& f : u.compiled.fast) bytes += sizeof(FastToken) + f.value.capacity();
    for (const ComplexSelector& g : u.compiled.groups) {
      bytes += sizeof(ComplexSelector) + g.compounds.capacity() * sizeof(Compound);
      for (const Compound& c : g.compounds) {
        bytes += c.tags.capacity() * sizeof(std::string) + c.attrs.capacity() * sizeof(AttrTest);
      }
    }
    for (const GroupIndex& g : u.groups) bytes += sizeof(GroupIndex) + g.required.capacity() * 4;
  }
  bytes += plan_->keys.MemoryBytes();
  bytes +=
      (plan_->walk.capacity() + plan_->walk_at_rules.capacity() + plan_->gate_begin.capacity() +
       plan_->gate_rules.capacity() + plan_->walk_ungated.capacity()) *
          sizeof(uint32_t) +
      plan_->node_flags.capacity() + plan_->gated_removed.capacity();
  for (const std::string& f : plan_->fonts) bytes += sizeof(std::string) + f.capacity();
  bytes += plan_->legacy_font_values.capacity() * sizeof(std::string_view);
  for (const std::string& a : plan_->animations) bytes += sizeof(std::string) + a.capacity();
  bytes += plan_->animation_vars.capacity() * sizeof(std::string_view) +
           plan_->custom_properties.capacity() * sizeof(CustomProperty);
  plan_->bytes = bytes;
  return true;
}

}  // namespace

CompileResult CompilePlan(std::string_view css, const Limits& limits) {
  CompileResult result;
  if (css.size() > limits.max_css_bytes) {
    result.error = "stylesheet larger than the limit";
    return result;
  }
  auto plan = std::make_shared<Plan>();
  ParseCss(css, &plan->tree);
  Compiler compiler(plan.get(), limits);
  if (!compiler.Run(&result.error)) return result;
  result.plan = std::move(plan);
  return result;
}

size_t PlanMemoryBytes(const Plan& plan) { return plan.bytes; }

size_t PlanRuleCount(const Plan& plan) {
  size_t n = 0;
  for (const CssNode& node : plan.tree.nodes) {
    if (node.kind == CssKind::kRule || node.kind == CssKind::kAtRule) ++n;
  }
  return n;
}

}  // namespace critical_css
}  // namespace ssr_native
