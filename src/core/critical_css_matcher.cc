// css-select's matching of one compiled selector group against the page's element tree:
// right to left, combinators walking parents (elements only) and previous element siblings,
// with backtracking where a descendant or sibling combinator leaves a choice. Every step is
// counted; a page that needs more than the limit is given up (sent unchanged) rather than
// stalling the thread.
#include "critical_css_internal.h"

namespace ssr_native {
namespace critical_css {
namespace {

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

bool EqualsMaybeIgnoreCase(std::string_view a, std::string_view b, bool ignore_case) {
  if (a.size() != b.size()) return false;
  if (!ignore_case) return a == b;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != b[i]) return false;  // b is lowercased at compile time
  }
  return true;
}

bool AttributeMatches(const AttrTest& test, std::string_view value) {
  const std::string& v = test.value;
  switch (test.action) {
    case AttrAction::kExists:
      return true;
    case AttrAction::kEquals:
      return EqualsMaybeIgnoreCase(value, v, test.ignore_case);
    case AttrAction::kHyphen:
      if (value.size() < v.size()) return false;
      if (value.size() != v.size() && value[v.size()] != '-') return false;
      return EqualsMaybeIgnoreCase(value.substr(0, v.size()), v, test.ignore_case);
    case AttrAction::kElement: {
      if (value.size() < v.size()) return false;
      for (size_t i = 0; i + v.size() <= value.size(); ++i) {
        if (!EqualsMaybeIgnoreCase(value.substr(i, v.size()), v, test.ignore_case)) continue;
        const bool left = i == 0 || IsJsSpaceByte(static_cast<unsigned char>(value[i - 1]));
        const size_t e = i + v.size();
        const bool right = e == value.size() || IsJsSpaceByte(static_cast<unsigned char>(value[e]));
        if (left && right) return true;
      }
      return false;
    }
    case AttrAction::kStart:
      return value.size() >= v.size() &&
             EqualsMaybeIgnoreCase(value.substr(0, v.size()), v, test.ignore_case);
    case AttrAction::kEnd:
      return value.size() >= v.size() &&
             EqualsMaybeIgnoreCase(value.substr(value.size() - v.size()), v, test.ignore_case);
    case AttrAction::kAny:
      if (value.size() < v.size()) return false;
      for (size_t i = 0; i + v.size() <= value.size(); ++i) {
        if (EqualsMaybeIgnoreCase(value.substr(i, v.size()), v, test.ignore_case)) return true;
      }
      return false;
    case AttrAction::kNot:
      return true;  // handled by the caller (absence matches)
  }
  return false;
}

bool CompoundMatches(const Compound& compound, int32_t element, MatchContext* context) {
  ++context->steps;
  const HtmlDocument& doc = *context->doc;
  const HtmlElement& el = doc.elements[element];
  for (const std::string& tag : compound.tags) {
    if (el.name != tag) return false;
  }
  for (const AttrTest& test : compound.attrs) {
    if (test.class_key >= 0 && context->class_keys != nullptr) {
      const uint32_t b = (*context->class_key_begin)[element];
      const uint32_t e = (*context->class_key_begin)[element + 1];
      bool found = false;
      for (uint32_t k = b; k < e; ++k) {
        if ((*context->class_keys)[k] == static_cast<uint32_t>(test.class_key)) {
          found = true;
          break;
        }
      }
      if (!found) return false;
      continue;
    }
    std::string_view value;
    const bool present = GetAttribute(doc, element, test.name, &value);
    if (test.action == AttrAction::kNot) {
      if (test.value.empty()) {
        if (!present || value.empty()) return false;
      } else if (present && EqualsMaybeIgnoreCase(value, test.value, test.ignore_case)) {
        return false;
      }
      continue;
    }
    if (!present || !AttributeMatches(test, value)) return false;
  }
  return true;
}

bool MatchFrom(const ComplexSelector& selector, size_t index, int32_t element,
               MatchContext* context, uint32_t query);

// Does compounds[0..index - 1] match at `first` or an element after it on the chain `link`
// walks (parents, previous siblings)? With the memo, each element's answer for this query is
// kept: the answer below an element is that element's match or the answer above it.
template <typename Link>
bool ChainMatches(const ComplexSelector& selector, size_t index, int32_t first, Link link,
                  MatchContext* context, uint32_t query) {
  if (context->chain_stamp == nullptr) {
    for (int32_t p = first; p >= 0; p = link(p)) {
      if (MatchFrom(selector, index - 1, p, context, query)) return true;
      if (context->exhausted) return false;
    }
    return false;
  }
  const uint32_t id = query + static_cast<uint32_t>(index);
  uint32_t* stamp = context->chain_stamp;
  uint8_t* value = context->chain_value;
  bool result = false;
  int32_t stop = -1;
  for (int32_t p = first; p >= 0; p = link(p)) {
    if (stamp[p] == id) {
      result = value[p] != 0;
      stop = p;
      break;
    }
    if (MatchFrom(selector, index - 1, p, context, query)) {
      result = true;
      stamp[p] = id;
      value[p] = 1;
      stop = p;
      break;
    }
    if (context->exhausted) return false;
  }
  // The elements walked before the answer: none matched itself, so each has the answer above.
  for (int32_t p = first; p != stop; p = link(p)) {
    stamp[p] = id;
    value[p] = result ? 1 : 0;
  }
  return result;
}

// Does compounds[0..index] match with compounds[index] at `element`? `query`: the memo's id
// of this group's search (its compound i uses query + i).
bool MatchFrom(const ComplexSelector& selector, size_t index, int32_t element,
               MatchContext* context, uint32_t query) {
  if (context->steps > context->max_steps) {
    context->exhausted = true;
    return false;
  }
  if (!CompoundMatches(selector.compounds[index], element, context)) return false;
  const HtmlDocument& doc = *context->doc;
  if (index == 0) {
    if (selector.scope_child)
      return doc.elements[element].parent == context->root && context->root >= 0;
    // css-select's absolutize: below a container that has an element parent, the group reads
    // `:scope <group>`, so its leftmost compound must match inside the container.
    if (context->inside_root != nullptr) return context->inside_root[element] != 0;
    return true;
  }
  const Combinator combinator = selector.combinators[index - 1];
  switch (combinator) {
    case Combinator::kChild: {
      const int32_t parent = doc.elements[element].parent;
      return parent >= 0 && MatchFrom(selector, index - 1, parent, context, query);
    }
    case Combinator::kDescendant:
      return ChainMatches(
          selector, index, doc.elements[element].parent,
          [&doc](int32_t p) { return doc.elements[p].parent; }, context, query);
    case Combinator::kAdjacent: {
      const int32_t prev = doc.elements[element].prev;
      return prev >= 0 && MatchFrom(selector, index - 1, prev, context, query);
    }
    case Combinator::kSibling:
      return ChainMatches(
          selector, index, doc.elements[element].prev,
          [&doc](int32_t p) { return doc.elements[p].prev; }, context, query);
  }
  return false;
}

// A fresh memo id per compound of the group for one search.
uint32_t NewQuery(const ComplexSelector& selector, MatchContext* context) {
  const uint32_t query = context->next_query;
  context->next_query += static_cast<uint32_t>(selector.compounds.size());
  return query;
}

}  // namespace

bool MatchesElement(const ComplexSelector& selector, int32_t element, MatchContext* context) {
  return MatchFrom(selector, selector.compounds.size() - 1, element, context,
                   NewQuery(selector, context));
}

bool MatchesSomewhere(const ComplexSelector& selector, const int32_t* candidates, size_t count,
                      MatchContext* context) {
  const uint32_t query = NewQuery(selector, context);
  for (size_t i = 0; i < count; ++i) {
    const int32_t element = candidates[i];
    if (MatchFrom(selector, selector.compounds.size() - 1, element, context, query)) return true;
    if (context->exhausted) return false;
  }
  return false;
}

}  // namespace critical_css
}  // namespace ssr_native
