// Marking a page's keys for a plan: which of the stylesheet's tags, classes, ids and attribute
// names the page holds, and per trigger key the elements that hold it (the candidates the
// matcher starts from). The thread's matching scratch lives here too.
#include <algorithm>
#include <iterator>
#include <type_traits>

#include "critical_css_page.h"

namespace ssr_native {
namespace critical_css {
namespace {

// Whether `s` holds a byte in 'A'..'Z', eight bytes a step (attribute names are short and
// almost always lowercase already): per byte, bit 7 of (b & 0x7F) + (0x80 - 'A') is set when
// b >= 'A', of (b & 0x7F) + (0x80 - 'Z' - 1) when b > 'Z'; bytes >= 0x80 are masked out.
bool HasAsciiUpper(std::string_view s) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  auto upper_in = [](uint64_t w) {
    const uint64_t x = w & ~kHigh;
    const uint64_t ge_a = x + (0x80 - 'A') * kOnes;
    const uint64_t gt_z = x + (0x80 - 'Z' - 1) * kOnes;
    return (ge_a & ~gt_z & ~w & kHigh) != 0;
  };
  const char* p = s.data();
  size_t n = s.size();
  if (n >= 8) {
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      if (upper_in(w)) return true;
    }
    if (n == 0) return false;
    uint64_t w;
    std::memcpy(&w, s.data() + s.size() - 8, 8);
    return upper_in(w);
  }
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return upper_in(lo | (static_cast<uint64_t>(hi) << 32));
  }
  for (size_t i = 0; i < n; ++i) {
    if (p[i] >= 'A' && p[i] <= 'Z') return true;
  }
  return false;
}

}  // namespace

const PageProcessor::ClassValue& PageProcessor::ResolveClassValue(const KeyTable& keys,
                                                                  std::string_view value) {
  const uint64_t h = HashText(value);
  const size_t mask = class_value_slots_.size() - 1;
  size_t i = static_cast<size_t>(h) & mask;
  for (; class_value_slots_[i] != 0; i = (i + 1) & mask) {
    const ClassValue& known = class_values_[class_value_slots_[i] - 1];
    if (known.text == value) return known;
  }
  ClassValue resolved;
  resolved.text = value;
  resolved.token_begin = static_cast<uint32_t>(class_value_tokens_.size());
  // Split on JS whitespace for css-select; when the value is single-space separated with
  // nothing around it, beasties' trim().split(" ") gives the same tokens: its cache is marked
  // from the same probe.
  bool plain = !value.empty() && value.front() != ' ' && value.back() != ' ';
  for (size_t k = 0; plain && k < value.size(); ++k) {
    const unsigned char c = static_cast<unsigned char>(value[k]);
    if (c == ' ' ? value[k + 1] == ' ' : IsJsSpaceByte(c)) plain = false;
  }
  resolved.plain = plain;
  size_t p = 0;
  while (p < value.size()) {
    while (p < value.size() && IsJsSpaceByte(static_cast<unsigned char>(value[p]))) ++p;
    const size_t q = p;
    while (p < value.size() && !IsJsSpaceByte(static_cast<unsigned char>(value[p]))) ++p;
    if (p == q) break;
    const int32_t entry = keys.Find(value.substr(q, p - q));
    if (entry < 0) continue;
    class_value_tokens_.emplace_back(keys.Id(entry, KeyKind::kClass),
                                     keys.Id(entry, KeyKind::kFastClass));
  }
  resolved.token_count = static_cast<uint32_t>(class_value_tokens_.size()) - resolved.token_begin;
  // The table holds at most one value per element: sized for that, it never fills.
  class_values_.push_back(resolved);
  class_value_slots_[i] = static_cast<uint32_t>(class_values_.size());
  return class_values_.back();
}

// The per-page state of marking, reset for `plan`.
void PageProcessor::ResetMarks(const Plan& plan) {
  {
    size_t slots = 64;
    while (slots < doc_.elements.size() * 2 + 2) slots *= 2;
    class_value_slots_.assign(slots, 0);
    class_values_.clear();
    class_values_.reserve(doc_.elements.size());  // no reallocation: returned references hold
    class_value_tokens_.clear();
  }
  marks_.assign(plan.key_count, 0);
  marked_keys_.clear();
  triggered_count_ = 0;
  if (triggered_.size() < doc_.elements.size() * 4) triggered_.resize(doc_.elements.size() * 4);
  class_keys_.clear();
  class_key_begin_.assign(doc_.elements.size() + 1, 0);
}

void PageProcessor::MarkPage(const Plan& plan) {
  const KeyTable& keys = plan.keys;
  ResetMarks(plan);
  // One probe of the interned table answers for every kind of key the text may be.
  auto mark_id = [&](uint32_t id, int32_t element) {
    if (id == KeyTable::kNoKey) return;
    if (!marks_[id]) {
      marks_[id] = 1;
      marked_keys_.push_back(id);
    }
    if (element >= 0 && in_domain_[element] && plan.is_trigger[id]) {
      if (triggered_count_ == triggered_.size()) triggered_.resize(triggered_.size() * 2);
      triggered_[triggered_count_++] = {id, element};
    }
  };
  auto mark = [&](KeyKind kind, std::string_view value, int32_t element) {
    const int32_t entry = keys.Find(value);
    if (entry >= 0) mark_id(keys.Id(entry, kind), element);
  };
  const int32_t count = static_cast<int32_t>(doc_.elements.size());
  // The plan's entry of each known tag name, found on its first element.
  constexpr int32_t kUnresolved = -2;
  int32_t tag_entries[256];
  std::fill(std::begin(tag_entries), std::end(tag_entries), kUnresolved);
  char lower[64];
  for (int32_t e = 0; e < count; ++e) {
    const HtmlElement& el = doc_.elements[e];
    const bool cached = in_cache_[e] != 0;
    // Every element marks the prefilter (a compound on the left may match an ancestor outside
    // the search domain, <html> itself); only the domain feeds the candidate lists.
    if (el.tag_id != 0) {
      int32_t& entry = tag_entries[el.tag_id];
      if (entry == kUnresolved) entry = keys.Find(el.name);
      if (entry >= 0) mark_id(keys.Id(entry, KeyKind::kTag), e);
    } else {
      mark(KeyKind::kTag, el.name, e);
    }
    // Attribute names (source attributes, then the engine's own), lowercased.
    // Returns the lowercased name (valid until the next call; empty when longer than the
    // buffer, never "class" or "id" then).
    auto mark_name = [&](std::string_view name) -> std::string_view {
      if (!HasAsciiUpper(name)) {  // the common spelling: no copy
        mark(KeyKind::kAttr, name, e);
        return name;
      }
      if (name.size() > sizeof(lower)) {
        std::string long_name(name);
        for (char& c : long_name) {
          if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
        }
        mark(KeyKind::kAttr, long_name, e);
        return std::string_view();
      }
      for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        lower[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
      }
      const std::string_view lowered(lower, name.size());
      mark(KeyKind::kAttr, lowered, e);
      return lowered;
    };
    // An element as the page wrote it (no engine edit) reads its class and id in the same
    // pass over its attributes; an edited or synthetic one asks GetAttribute.
    const bool as_written = !el.synthetic && el.clone_of < 0 && el.overrides < 0;
    bool has_class = false, has_id = false;
    std::string_view class_value, id_value;
    const int32_t source = el.clone_of >= 0 ? el.clone_of : (el.synthetic ? -1 : e);
    if (source >= 0) {
      const HtmlElement& s = doc_.elements[source];
      for (uint32_t k = 0; k < s.attr_count; ++k) {
        const HtmlAttr& a = doc_.attrs[s.attr_begin + k];
        const std::string_view lowered =
            mark_name(html_.substr(a.name_begin, a.name_end - a.name_begin));
        if (!as_written) continue;
        if (lowered == "class") {
          has_class = true;
          class_value = html_.substr(a.value_begin, a.value_end - a.value_begin);
        } else if (lowered == "id") {
          has_id = true;
          id_value = html_.substr(a.value_begin, a.value_end - a.value_begin);
        }
      }
    }
    if (el.overrides >= 0) {
      for (const auto& kv : doc_.overrides[el.overrides].set_attrs) mark_name(kv.first);
    }
    if (!as_written) {
      has_class = GetAttribute(doc_, e, "class", &class_value);
      has_id = GetAttribute(doc_, e, "id", &id_value);
    }
    std::string_view value = class_value;
    class_key_begin_[e] = static_cast<uint32_t>(class_keys_.size());
    if (has_class) {
      // Split on JS whitespace for css-select; when the value is single-space separated with
      // nothing around it, beasties' trim().split(" ") gives the same tokens: mark its cache
      // from the same probe.
      // A class value seen before on this page (rows of a table, items of a list) replays
      // the key ids its tokens resolved to.
      const ClassValue& known = ResolveClassValue(keys, value);
      const bool plain = known.plain;
      for (uint32_t t = known.token_begin; t < known.token_begin + known.token_count; ++t) {
        const uint32_t id = class_value_tokens_[t].first;
        mark_id(id, e);
        if (id != KeyTable::kNoKey) class_keys_.push_back(id);
        if (cached && plain) mark_id(class_value_tokens_[t].second, -1);
      }
      if (cached && !plain) {
        // beasties: getAttribute("class").trim().split(" ")
        std::string_view t = TrimAscii(value);
        size_t b = 0;
        for (;;) {
          const size_t sp = t.find(' ', b);
          mark(KeyKind::kFastClass, t.substr(b, sp == std::string_view::npos ? sp : sp - b), -1);
          if (sp == std::string_view::npos) break;
          b = sp + 1;
        }
      }
    }
    if (has_id) {
      value = id_value;
      const int32_t entry = keys.Find(value);
      if (entry >= 0) mark_id(keys.Id(entry, KeyKind::kId), e);
      if (cached) {
        const std::string_view trimmed = TrimAscii(value);
        if (trimmed.size() == value.size()) {
          if (entry >= 0) mark_id(keys.Id(entry, KeyKind::kFastId), -1);
        } else {
          mark(KeyKind::kFastId, trimmed, -1);
        }
      }
    }
  }
  class_key_begin_[count] = static_cast<uint32_t>(class_keys_.size());
  BuildCandidateLists(plan);
}

void PageProcessor::BuildCandidateLists(const Plan& plan) {
  // Candidate lists per trigger key, flat: elements in document order, each once per key.
  by_key_begin_.assign(static_cast<size_t>(plan.key_count) + 1, 0);
  const std::pair<uint32_t, int32_t>* const triggered = triggered_.data();
  for (size_t i = 0; i < triggered_count_; ++i) ++by_key_begin_[triggered[i].first + 1];
  for (size_t k = 1; k < by_key_begin_.size(); ++k) by_key_begin_[k] += by_key_begin_[k - 1];
  if (by_key_.size() < triggered_count_) by_key_.resize(triggered_count_);
  by_key_fill_.assign(by_key_begin_.begin(), by_key_begin_.end() - 1);
  for (size_t i = 0; i < triggered_count_; ++i) {
    const std::pair<uint32_t, int32_t>& t = triggered[i];
    uint32_t& at = by_key_fill_[t.first];
    if (at > by_key_begin_[t.first] && by_key_[at - 1] == t.second) continue;
    by_key_[at++] = t.second;
  }
  by_key_end_.swap(by_key_fill_);
}

size_t PageProcessor::LargestKeptScratchBytes() {
  size_t largest = 0;
  EachScratch(&ThreadScratch(), [&](auto* v) {
    using Vector = std::remove_pointer_t<decltype(v)>;
    largest = std::max(largest, v->capacity() * sizeof(typename Vector::value_type));
  });
  return largest;
}

size_t LargestKeptMatchScratchBytes() { return PageProcessor::LargestKeptScratchBytes(); }

}  // namespace critical_css
}  // namespace ssr_native
