// The page's edits, written last: the container mark, the removed <noscript>s, per link its
// <style>, Angular's CSP loader script, its changed attributes (replaced in place or appended)
// and its <noscript> copy, media-script's loader at the end of <body>, the nonce on <head>'s
// styles; applied to the page in one copy, in offset order.
#include <algorithm>
#include <utility>

#include "critical_css_page.h"

namespace ssr_native {
namespace critical_css {
namespace {

// dom-serializer with decodeEntities: false writes `"` in attribute values as &quot;.
void AppendAttributeValue(std::string_view v, std::string* out) {
  for (char c : v) {
    if (c == '"') {
      out->append("&quot;");
    } else {
      out->push_back(c);
    }
  }
}

}  // namespace

// Insertions and replacements at byte offsets of the page; at one offset, in the order added.
class PageProcessor::EditList {
 public:
  struct Edit {
    uint32_t at = 0;
    uint32_t remove = 0;
    uint32_t order = 0;  // insertion order among edits at the same offset
    std::string text;
    // Written after text without a copy into it (a <style>'s CSS), then tail.
    const std::string* body = nullptr;
    std::string tail;
    size_t size() const { return text.size() + (body ? body->size() : 0) + tail.size(); }
  };

  Edit& Add(uint32_t at, uint32_t remove, std::string text) {
    Edit e;
    e.at = at;
    e.remove = remove;
    e.order = order_++;
    e.text = std::move(text);
    edits_.push_back(std::move(e));
    return edits_.back();
  }

  std::string Apply(std::string_view html) {
    std::stable_sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) {
      return a.at != b.at ? a.at < b.at : a.order < b.order;
    });
    std::string out;
    size_t extra = 0;
    for (const Edit& e : edits_) extra += e.size();
    out.reserve(html.size() + extra);
    size_t cursor = 0;
    for (const Edit& e : edits_) {
      if (e.at > cursor) out.append(html.substr(cursor, e.at - cursor));
      out.append(e.text);
      if (e.body != nullptr) out.append(*e.body);
      out.append(e.tail);
      cursor = std::max<size_t>(cursor, static_cast<size_t>(e.at) + e.remove);
    }
    out.append(html.substr(std::min(cursor, html.size())));
    return out;
  }

 private:
  std::vector<Edit> edits_;
  uint32_t order_ = 0;
};

std::string PageProcessor::WriteEdits(InlineResult* result) {
  EditList edits;
  if (root_ >= 0 && mark_container_) {
    edits.Add(doc_.elements[root_].attrs_end, 0, " data-beasties-container");
  }
  for (int32_t ns : removed_noscripts_) {
    const HtmlElement& n = doc_.elements[ns];
    edits.Add(n.tag_begin, ElementEnd(ns) - n.tag_begin, "");
  }
  const std::string_view nonce = facts_.nonce;
  std::string nonce_attr = " nonce=\"";
  AppendAttributeValue(nonce, &nonce_attr);
  nonce_attr.push_back('"');
  for (const LinkWork& w : work_) {
    if (!w.detached) AddLinkEdits(w, nonce_attr, &edits, result);
  }
  if (body_script_ >= 0) {
    // at the end of <body>'s content: before its end tag, or where the parser closed it
    const HtmlElement& b = doc_.elements[facts_.body];
    const uint32_t at =
        b.content_end > b.tag_end ? b.content_end : static_cast<uint32_t>(html_.size());
    std::string s = "<script";
    if (!nonce.empty()) s += nonce_attr;
    s.push_back('>');
    s += kDeferredMediaScript;
    s += "</script>";
    edits.Add(at, 0, std::move(s));
  }
  const int32_t head = facts_.head;
  if (!nonce.empty() && !facts_.links.empty() && head >= 0 && !options_.media_script) {
    for (int32_t e = 0; e < original_count_; ++e) {
      const HtmlElement& el = doc_.elements[e];
      std::string_view value;
      if (el.parent == head && el.name == "style" && !GetAttribute(doc_, e, "nonce", &value)) {
        edits.Add(el.attrs_end, 0, nonce_attr);
      }
    }
  }
  return edits.Apply(html_);
}

void PageProcessor::AddLinkEdits(const LinkWork& w, const std::string& nonce_attr, EditList* edits,
                                 InlineResult* result) {
  const HtmlElement& L = doc_.elements[w.element];
  const int32_t head = facts_.head;
  if (w.style >= 0 && !w.style_removed) {
    std::string s = "<style";
    if (!facts_.nonce.empty() && (options_.media_script || (L.parent == head && head >= 0))) {
      s += nonce_attr;
    }
    if (!w.style_media.empty()) {
      s += " media=\"";
      AppendAttributeValue(w.style_media, &s);
      s.push_back('"');
    }
    s.push_back('>');
    result->inlined_bytes += w.sheet.size();
    ++result->styles_inlined;
    EditList::Edit& style = edits->Add(L.tag_begin, 0, std::move(s));
    style.body = &w.sheet;
    style.tail = "</style>";
  }
  if (w.script >= 0) {
    std::string s = "<script";
    s += nonce_attr;
    s.push_back('>');
    s += kLinkLoadScript;
    s += "</script>";
    edits->Add(L.tag_begin, 0, std::move(s));
  }
  AddLinkAttrEdits(w, edits);
  if (w.noscript >= 0 && !w.copy_unwritten) edits->Add(L.tag_end, 0, NoscriptCopy(w));
}

// The link's own attributes, in beasties' order: replaced in place or appended.
void PageProcessor::AddLinkAttrEdits(const LinkWork& w, EditList* edits) {
  const HtmlElement& L = doc_.elements[w.element];
  static const AttrOverrides kNone;
  const AttrOverrides& overrides = L.overrides >= 0 ? doc_.overrides[L.overrides] : kNone;
  const char* const names[] = {"media", "onload", "ngcspmedia", "data-beasties-media"};
  for (const char* name : names) {
    const std::string_view lower(name);
    bool removed = false;
    for (const std::string& r : overrides.removed_attrs) {
      if (r == lower) removed = true;
    }
    const std::string* set_value = nullptr;
    for (const auto& kv : overrides.set_attrs) {
      if (kv.first == lower) set_value = &kv.second;
    }
    const HtmlAttr* source = FindSourceAttr(w.element, lower);
    std::string written;
    if (set_value != nullptr) {
      written = lower == "ngcspmedia" ? "ngCspMedia" : std::string(lower);
      written += "=\"";
      AppendAttributeValue(*set_value, &written);
      written.push_back('"');
    }
    // removed, then set again (Angular 21's undoing, then beasties' handler): written last
    const bool moved = std::find(overrides.readded_attrs.begin(), overrides.readded_attrs.end(),
                                 lower) != overrides.readded_attrs.end();
    if ((removed && set_value == nullptr) || (moved && source != nullptr)) {
      if (source != nullptr) {
        // removed with the space before it, as a serializer writes the rest
        uint32_t b = source->name_begin;
        while (b > L.name_end && IsJsSpaceByte(static_cast<unsigned char>(html_[b - 1]))) --b;
        edits->Add(b, source->end - b, "");
      }
      if (set_value == nullptr) continue;
      source = nullptr;
    }
    if (set_value == nullptr) continue;
    if (source != nullptr) {
      edits->Add(source->name_begin, source->end - source->name_begin, written);
    } else {
      edits->Add(L.attrs_end, 0, " " + written);
    }
  }
}

// The link's attributes as written, less and changed as its copy's edits say (no id).
std::string PageProcessor::NoscriptCopy(const LinkWork& w) const {
  const HtmlElement& L = doc_.elements[w.element];
  const AttrOverrides& copy = doc_.overrides[doc_.elements[w.copy].overrides];
  std::string s = "<noscript><link";
  for (uint32_t k = 0; k < L.attr_count; ++k) {
    const HtmlAttr& a = doc_.attrs[L.attr_begin + k];
    std::string name(html_.substr(a.name_begin, a.name_end - a.name_begin));
    for (char& c : name) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    if (std::find(copy.removed_attrs.begin(), copy.removed_attrs.end(), name) !=
        copy.removed_attrs.end()) {
      continue;
    }
    s.push_back(' ');
    s += name;
    std::string_view value = html_.substr(a.value_begin, a.value_end - a.value_begin);
    for (const auto& kv : copy.set_attrs) {
      if (kv.first == name) value = kv.second;
    }
    if (!value.empty()) {
      s += "=\"";
      AppendAttributeValue(value, &s);
      s.push_back('"');
    }
  }
  s += "></noscript>";
  return s;
}

// The source attribute of `element` named `lower` (compared lowercased; the first), or null.
const HtmlAttr* PageProcessor::FindSourceAttr(int32_t element, std::string_view lower) const {
  const HtmlElement& el = doc_.elements[element];
  for (uint32_t k = 0; k < el.attr_count; ++k) {
    const HtmlAttr& a = doc_.attrs[el.attr_begin + k];
    if (a.name_end - a.name_begin != lower.size()) continue;
    bool same = true;
    for (size_t i = 0; i < lower.size(); ++i) {
      char c = html_[a.name_begin + i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
      if (c != lower[i]) same = false;
    }
    if (same) return &a;
  }
  return nullptr;
}

}  // namespace critical_css
}  // namespace ssr_native
