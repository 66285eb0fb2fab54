// One page through Angular's InlineCriticalCssProcessor, step for step with beasties 0.5.4:
//   1. the page's tree (htmlparser2's), its beasties container (<html>) and class / id caches;
//   2. every `link[rel="stylesheet"]`, in order: a <style> before it, `media="print"` and
//      `onload="this.media='…'"` on it, a <noscript> copy after it; with a `ngCspNonce`
//      attribute, the onload moved into `ngCspMedia` plus Angular's nonce'd loader script, and
//      the nonce on the <style> children of <head>;
//   3. every added <style>: the two passes of processStyle (mark rules whose selectors match,
//      collect fonts and animation names; then drop unmatched rules, unused @keyframes and
//      @font-face), the kept rules written as postcss writes them, url() rewritten against
//      the link's href; an empty result removes the <style>;
//   4. the page edited in place: insertions and attribute replacements at byte offsets.
#include <algorithm>

#include "critical_css_page.h"
#include "critical_css_url_rewrite.h"

namespace ssr_native {
namespace critical_css {
namespace {

// The skip reasons of a page an earlier pass already inlined (lib/critical-css/critical-css.js
// warns on the second: Angular's own inliner ran on a page rendered at request time).
constexpr char kInlinedPrerendered[] = "a prerendered page already inlined";
constexpr char kInlinedByAngular[] = "a page Angular already inlined";

constexpr char kLinkLoadScript[] = R"JS((() => {
  const CSP_MEDIA_ATTR = 'ngCspMedia';
  const documentElement = document.documentElement;

  // Listener for load events on link tags.
  const listener = (e) => {
    const target = e.target;
    if (
      !target ||
      target.tagName !== 'LINK' ||
      !target.hasAttribute(CSP_MEDIA_ATTR)
    ) {
      return;
    }

    target.media = target.getAttribute(CSP_MEDIA_ATTR);
    target.removeAttribute(CSP_MEDIA_ATTR);

    if (!document.head.querySelector(`link[${CSP_MEDIA_ATTR}]`)) {
      documentElement.removeEventListener('load', listener);
    }
  };

  documentElement.addEventListener('load', listener, true);
})();)JS";

// beasties 0.5's DEFERRED_MEDIA_SCRIPT (preload: 'media-script'), appended to <body>.
constexpr char kDeferredMediaScript[] =
    "document.querySelectorAll('link[data-beasties-media]').forEach(function(l){l.media=l."
    "getAttribute('data-beasties-media');l.removeAttribute('data-beasties-media')})";

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

// beasties' validateMediaQuery + isSafeMediaValue (0.5) for a `media` attribute. beasties 0.4
// has no isSafeMediaValue (a `/` or a `"` is kept); a `'`, `\` or line break, which would break
// out of the onload handler's JS string (its injection, angular-cli#33342), is refused there too.
bool MediaUsable(std::string_view media, bool beasties_0_4) {
  if (media.empty()) return false;
  for (char c : media) {
    if (beasties_0_4) {
      if (c == '\'' || c == '\\' || c == '\n' || c == '\r') return false;
      continue;
    }
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || IsJsSpaceByte(static_cast<unsigned char>(c)) || c == '-' ||
                    c == '(' || c == ')' || c == ',' || c == ':' || c == '.';
    if (!ok) return false;
  }
  // postcss-media-query-parser node types: media types, keywords, media features.
  size_t i = 0;
  const size_t n = media.size();
  auto word_ok = [](std::string_view w) {
    return w == "all" || w == "print" || w == "screen" || w == "speech" || w == "and" ||
           w == "not" || w == ",";
  };
  static const char* const kFeatures[] = {"width",      "aspect-ratio", "color",      "color-index",
                                          "grid",       "height",       "monochrome", "orientation",
                                          "resolution", "scan"};
  auto feature_ok = [](std::string_view f) {
    for (const char* base : kFeatures) {
      const std::string b(base);
      if (f == b || f == "min-" + b || f == "max-" + b) return true;
    }
    return false;
  };
  while (i < n) {
    const char c = media[i];
    if (IsJsSpaceByte(static_cast<unsigned char>(c)) || c == ',') {
      ++i;
      continue;
    }
    if (c == '(') {
      const size_t close = media.find(')', i);
      if (close == std::string_view::npos) return false;
      std::string_view inner = media.substr(i + 1, close - i - 1);
      const size_t colon = inner.find(':');
      std::string_view feature = TrimAscii(inner.substr(0, colon));
      if (!feature_ok(feature)) return false;
      i = close + 1;
      continue;
    }
    size_t j = i;
    while (j < n && !IsJsSpaceByte(static_cast<unsigned char>(media[j])) && media[j] != ',' &&
           media[j] != '(') {
      ++j;
    }
    if (!word_ok(media.substr(i, j - i))) return false;
    i = j;
  }
  return true;
}

bool MatchMediaHandler(std::string_view onload, std::string* media) {
  // /^this\.media=["'](.*)["'];?$/
  static constexpr std::string_view kPrefix = "this.media=";
  if (onload.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  std::string_view rest = onload.substr(kPrefix.size());
  if (rest.empty() || (rest[0] != '"' && rest[0] != '\'')) return false;
  rest.remove_prefix(1);
  if (!rest.empty() && rest.back() == ';') {
    std::string_view without = rest.substr(0, rest.size() - 1);
    if (!without.empty() && (without.back() == '"' || without.back() == '\'')) {
      // greedy (.*) prefers the longer match: the one ending at the quote before ";"
      rest = without;
    }
  }
  if (rest.empty() || (rest.back() != '"' && rest.back() != '\'')) return false;
  const std::string_view group = rest.substr(0, rest.size() - 1);
  for (char c : group) {
    if (c == '\n' || c == '\r') return false;
  }
  media->assign(group);
  return true;
}

}  // namespace

void PageProcessor::Detach(int32_t element, std::vector<uint8_t>* detached) {
  std::vector<HtmlElement>& els = doc_.elements;
  if (detached->empty()) detached->assign(els.size(), 0);
  // Source elements come in document order, parents first: the subtree is the run after it
  // whose parent chain reaches it.
  (*detached)[element] = 1;
  for (size_t e = static_cast<size_t>(element) + 1; e < detached->size(); ++e) {
    const int32_t parent = els[e].parent;
    if (parent < element || !(*detached)[parent]) break;
    (*detached)[e] = 1;
  }
  HtmlElement& el = els[element];
  if (el.prev >= 0) els[el.prev].next = el.next;
  if (el.next >= 0) els[el.next].prev = el.prev;
  if (el.parent >= 0) {
    HtmlElement& parent = els[el.parent];
    if (parent.first_child == element) parent.first_child = el.next;
    if (parent.last_child == element) parent.last_child = el.prev;
  }
  el.prev = el.next = -1;
}

uint32_t PageProcessor::ElementEnd(int32_t element) const {
  const HtmlElement& el = doc_.elements[element];
  const size_t at = el.content_end;
  if (at < el.tag_end) return el.tag_end;
  // its own end tag (`</noscript>`, any case), not an ancestor's that closed it
  const std::string_view name = el.name;
  bool own = at + 2 + name.size() <= html_.size() && html_[at] == '<' && html_[at + 1] == '/';
  for (size_t i = 0; own && i < name.size(); ++i) {
    char c = html_[at + 2 + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    own = c == name[i];
  }
  if (own) {
    const size_t close = html_.find('>', at);
    if (close != std::string_view::npos) return static_cast<uint32_t>(close + 1);
  }
  return static_cast<uint32_t>(at);
}

int32_t PageProcessor::AddSynthetic(std::string_view name, int32_t parent, int32_t prev,
                                    int32_t next) {
  HtmlElement el;
  el.name = name;
  el.synthetic = true;
  el.in_cache = false;
  el.parent = parent;
  el.prev = prev;
  el.next = next;
  doc_.elements.push_back(std::move(el));
  const int32_t index = static_cast<int32_t>(doc_.elements.size() - 1);
  if (next >= 0) doc_.elements[next].prev = index;
  if (prev >= 0) doc_.elements[prev].next = index;
  return index;
}

bool PageProcessor::BuildDocument(std::string* reason) {
  if (!ParseHtml(html_, limits_, &doc_, reason)) return false;
  if (options_.beasties_0_4) UseHtmlparser2v10Names(&doc_);
  return true;
}

InlineResult PageProcessor::Run() {
  InlineResult result;
  auto skip = [&](std::string why) {
    result.status = Status::kSkipped;
    result.reason = std::move(why);
    result.html.clear();
    return result;
  };
  auto over_bound = [&](std::string why) {
    skip(std::move(why));
    result.status = Status::kOverBound;
    return result;
  };
  std::string reason;
  if (!BuildDocument(&reason)) return skip(reason);
  const int32_t original_count = static_cast<int32_t>(doc_.elements.size());
  for (int32_t top : doc_.top_level) {
    if (doc_.elements[top].name == "html") {
      root_ = top;
      break;
    }
  }
  int32_t head = -1;
  int32_t body = -1;            // document.body: the first <body> in document order
  bool deferred_media = false;  // a link[data-beasties-media] (media-script's script is due)
  int32_t nonce_element = -1;
  std::string_view nonce;
  std::vector<int32_t> links;
  int32_t container = -1;  // the first element marked data-beasties-container
  int containers = 0;
  bool prerendered = false;  // an ng-server-context naming ssg (Angular's SSG marker)
  // Names compared lowercased; the scanner kept the first of repeated attributes, and nothing
  // is overridden yet, so one pass over each element's own attributes answers all three.
  auto name_is = [&](const HtmlAttr& a, std::string_view lower) {
    if (a.name_end - a.name_begin != lower.size()) return false;
    for (size_t i = 0; i < lower.size(); ++i) {
      char c = html_[a.name_begin + i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
      if (c != lower[i]) return false;
    }
    return true;
  };
  for (int32_t e = 0; e < original_count; ++e) {
    const HtmlElement& el = doc_.elements[e];
    std::string_view value;
    bool has_rel = false;
    for (uint32_t k = 0; k < el.attr_count; ++k) {
      const HtmlAttr& a = doc_.attrs[el.attr_begin + k];
      const std::string_view a_value = html_.substr(a.value_begin, a.value_end - a.value_begin);
      if (name_is(a, "data-beasties-container")) {
        if (container < 0) container = e;
        ++containers;
      } else if (name_is(a, "ng-server-context")) {
        prerendered = prerendered || a_value.find("ssg") != std::string_view::npos;
      } else if (nonce_element < 0 && name_is(a, "ngcspnonce")) {
        nonce_element = e;
        nonce = a_value;
      } else if (el.name == "link" && name_is(a, "data-beasties-media")) {
        deferred_media = true;
      } else if (name_is(a, "rel")) {
        has_rel = true;
        value = a_value;
      }
    }
    if (head < 0 && el.name == "head") head = e;
    if (body < 0 && el.name == "body") body = e;
    if (has_rel && value.size() == 10 && el.name == "link") {
      bool same = true;
      for (size_t i = 0; i < 10; ++i) {
        char c = value[i];
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
        if (c != "stylesheet"[i]) same = false;
      }
      if (same) links.push_back(e);
    }
  }

  // beasties' container: the page's own data-beasties-container (0.4's querySelector: the first;
  // 0.5 searches every one it finds, not reproduced), else <html>, which it then marks.
  const bool leave_inlined =
      options_.leave_inlined || (options_.leave_inlined_prerendered && prerendered);
  const char* const inlined_reason = prerendered ? kInlinedPrerendered : kInlinedByAngular;
  if (leave_inlined && (container >= 0 || deferred_media)) return skip(inlined_reason);
  bool mark_container = true;
  if (container >= 0) {
    if (containers > 1 && !options_.beasties_0_4) {
      return skip("the page marks more than one data-beasties-container");
    }
    root_ = container;
    mark_container = false;
  }

  if (links.size() > limits_.max_stylesheet_links) {
    return over_bound("more than " + std::to_string(limits_.max_stylesheet_links) +
                      " stylesheet links");
  }
  std::vector<LinkWork> work(links.size());
  std::vector<uint8_t> detached;           // per element: inside a removed <noscript>
  std::vector<int32_t> removed_noscripts;  // the <noscript>s undoing removed
  bool script_added = false;
  bool any_link = !links.empty();
  for (size_t k = 0; k < links.size(); ++k) {
    LinkWork& w = work[k];
    w.element = links[k];
    {
      // beasties' fetchStylesheet: data-beasties-skip, an href ending in .css (query and
      // fragment ignored); then the caller resolves and reads it.
      std::string_view href;
      std::string_view skip_attr;
      if (GetAttribute(doc_, links[k], "href", &href) &&
          !GetAttribute(doc_, links[k], "data-beasties-skip", &skip_attr)) {
        std::string_view path = href.substr(0, href.find('?'));
        path = path.substr(0, path.find('#'));
        if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".css") == 0) {
          w.plan = plans_(k, href);
        }
      }
    }
    const int32_t L = w.element;
    std::string_view value;
    if (!detached.empty() && detached[L]) {
      w.detached = true;
      w.plan = nullptr;  // nothing of it is written: no CSS to select
      continue;
    }
    // Angular 21's embedLinkedStylesheet override, for a link a previous pass deferred
    // (media="print", its onload setting the media, a <noscript> right after it): the media
    // back from the handler, the handler and the <noscript> removed, then beasties defers the
    // link again. (Angular 22 has none: beasties defers such a link as it is.)
    // Left alone, such a link is an earlier inlining's under either loader.
    if ((leave_inlined || !options_.media_script) && GetAttribute(doc_, L, "media", &value) &&
        value == "print") {
      const int32_t next = doc_.elements[L].next;
      std::string_view onload;
      std::string media;
      if (next >= 0 && doc_.elements[next].name == "noscript" &&
          doc_.elements[next].tag_begin == doc_.elements[L].tag_end &&
          GetAttribute(doc_, L, "onload", &onload) && MatchMediaHandler(onload, &media)) {
        if (leave_inlined) return skip(inlined_reason);
        if (!nonce.empty()) {
          // its CSP branch then also runs on the links of the removed copy, in the order their
          // reads complete: not reproduced
          return skip("a stylesheet link already deferred by a previous pass, with a CSP nonce");
        }
        w.undone = true;
        SetAttr(&Edits(L), "media", media);
        Edits(L).removed_attrs.push_back("onload");
        Detach(next, &detached);
        removed_noscripts.push_back(next);
      }
    }
    if (GetAttribute(doc_, L, "href", &value)) w.href.assign(value);
    const int32_t parent = doc_.elements[L].parent;
    if (w.plan != nullptr) {
      w.style = AddSynthetic("style", parent, doc_.elements[L].prev, L);
      std::string media = "all";
      if (GetAttribute(doc_, L, "media", &value) && !value.empty() &&
          MediaUsable(value, options_.beasties_0_4)) {
        media.assign(value);
      }
      if (options_.noscript_fallback && w.href.find("</noscript>") == std::string::npos) {
        w.noscript = AddSynthetic("noscript", parent, L, doc_.elements[L].next);
        HtmlElement clone;
        clone.name = "link";
        clone.synthetic = true;
        clone.in_cache = false;
        clone.parent = w.noscript;
        clone.clone_of = L;
        doc_.elements.push_back(std::move(clone));
        const int32_t c = static_cast<int32_t>(doc_.elements.size() - 1);
        w.copy = c;
        Edits(c).removed_attrs.push_back("id");
        if (w.undone) {  // copied after Angular's override: its media, no handler
          std::string_view undone_media;
          GetAttribute(doc_, L, "media", &undone_media);
          std::string media_copy(undone_media);  // a view into L's edits
          SetAttr(&Edits(c), "media", std::move(media_copy));
          Edits(c).removed_attrs.push_back("onload");
        }
        doc_.elements[w.noscript].first_child = c;
        doc_.elements[w.noscript].last_child = c;
      }
      AttrOverrides& el = Edits(L);
      SetAttr(&el, "media", "print");
      if (options_.media_script) {
        SetAttr(&el, "data-beasties-media", media);
        deferred_media = true;
      } else {
        SetAttr(&el, "onload", "this.media='" + media + "'");
      }
    }
    if (!nonce.empty() && !options_.media_script) {
      std::string onload_media;
      std::string_view onload;
      if (GetAttribute(doc_, L, "onload", &onload) && MatchMediaHandler(onload, &onload_media)) {
        AttrOverrides& el = Edits(L);
        for (auto it = el.set_attrs.begin(); it != el.set_attrs.end(); ++it) {
          if (it->first == "onload") {
            el.set_attrs.erase(it);
            break;
          }
        }
        el.removed_attrs.push_back("onload");
        el.set_attrs.emplace_back("ngcspmedia", onload_media);
        if (!script_added) {
          script_added = true;
          bool present = false;
          if (head >= 0) {
            const HtmlElement& h = doc_.elements[head];
            const size_t end = h.content_end > h.tag_end ? h.content_end : html_.size();
            present = html_.substr(h.tag_end, end - h.tag_end).find(kLinkLoadScript) !=
                      std::string_view::npos;
          }
          if (!present) {
            w.script = AddSynthetic("script", parent, doc_.elements[L].prev, L);
            Edits(w.script).set_attrs.emplace_back("nonce", std::string(nonce));
          }
        }
      }
    }
  }

  // media-script: beasties appends its one loader script to document.body once the links are
  // deferred, before it matches selectors (so `body > script` sees it). Without a <body> it
  // throws (Angular's AppEngine then sends the page as rendered): the page is left as it is.
  int32_t body_script = -1;
  if (options_.media_script && deferred_media) {
    if (body < 0) return skip("no <body> for the deferred stylesheets' loader script");
    int32_t last = doc_.elements[body].last_child;
    while (last >= 0 && doc_.elements[last].next >= 0) last = doc_.elements[last].next;
    body_script = AddSynthetic("script", body, last, -1);
    if (!nonce.empty()) Edits(body_script).set_attrs.emplace_back("nonce", std::string(nonce));
    if (doc_.elements[body].first_child < 0) doc_.elements[body].first_child = body_script;
    doc_.elements[body].last_child = body_script;
  }

  // Where css-select looks (below the root) and what beasties' caches hold (the root too).
  const int32_t count = static_cast<int32_t>(doc_.elements.size());
  in_domain_.assign(count, 0);
  in_cache_.assign(count, 0);
  domain_.clear();
  for (int32_t e = 0; e < count; ++e) {
    const int32_t parent = doc_.elements[e].parent;
    if (root_ < 0) {
      in_domain_[e] = 1;
    } else if (parent >= 0 && parent < e) {
      // A parent before its child (the scanner's order) already knows whether the root is
      // above it: no walk up the chain per element.
      in_domain_[e] = parent == root_ || in_domain_[parent];
    } else {
      for (int32_t p = parent; p >= 0; p = doc_.elements[p].parent) {
        if (p == root_) {
          in_domain_[e] = 1;
          break;
        }
      }
    }
    in_cache_[e] = !doc_.elements[e].synthetic && (in_domain_[e] || e == root_);
    if (in_domain_[e]) domain_.push_back(e);
  }
  if (!detached.empty()) {
    // removed from the document before the search, but in the caches beasties built before
    for (size_t e = 0; e < detached.size(); ++e) {
      if (detached[e]) in_domain_[e] = 0;
    }
    domain_.erase(std::remove_if(domain_.begin(), domain_.end(),
                                 [&](int32_t e) { return in_domain_[e] == 0; }),
                  domain_.end());
  }
  match_.doc = &doc_;
  match_.class_keys = &class_keys_;
  match_.class_key_begin = &class_key_begin_;
  match_.root = root_;
  match_.inside_root = root_ >= 0 && doc_.elements[root_].parent >= 0 ? in_domain_.data() : nullptr;
  match_.max_steps = limits_.max_match_steps;
  chain_stamp_.assign(count, 0);
  chain_value_.assign(count, 0);
  match_.chain_stamp = chain_stamp_.data();
  match_.chain_value = chain_value_.data();

  std::vector<std::pair<const Plan*, std::string>> done;
  size_t inlined_bytes = 0;
  for (size_t k = 0; k < work.size(); ++k) {
    LinkWork& w = work[k];
    if (w.plan == nullptr) continue;
    const std::string* cached = nullptr;
    for (const auto& d : done) {
      if (d.first == w.plan) cached = &d.second;
    }
    std::string sheet = cached ? *cached : ProcessStyle(*w.plan);
    if (match_.exhausted) return skip("selector matching exceeded its work limit");
    if (!cached) {
      // Kept (a copy) only for a later link to the same stylesheet.
      for (size_t j = k + 1; j < work.size(); ++j) {
        if (work[j].plan == w.plan) {
          done.emplace_back(w.plan, sheet);
          break;
        }
      }
    }
    // beasties 0.4 writes url()s as the stylesheet has them (0.5 resolves them against it).
    if (!options_.beasties_0_4) RewriteCssUrls(&sheet, w.href);
    inlined_bytes += sheet.size();
    if (inlined_bytes > limits_.max_inlined_bytes) {
      return over_bound("more than " + std::to_string(limits_.max_inlined_bytes) +
                        " bytes of inlined CSS");
    }
    if (TrimAscii(sheet).empty()) {
      w.style_removed = true;
    } else {
      w.sheet = std::move(sheet);
    }
  }

  // Edits.
  std::vector<Edit> edits;
  uint32_t order = 0;
  auto add = [&](uint32_t at, uint32_t remove, std::string text) {
    Edit e;
    e.at = at;
    e.remove = remove;
    e.order = order++;
    e.text = std::move(text);
    edits.push_back(std::move(e));
  };
  if (root_ >= 0 && mark_container) {
    add(doc_.elements[root_].attrs_end, 0, " data-beasties-container");
  }
  for (int32_t ns : removed_noscripts) {
    const HtmlElement& n = doc_.elements[ns];
    add(n.tag_begin, ElementEnd(ns) - n.tag_begin, "");
  }
  const std::string nonce_attr = [&]() {
    std::string s = " nonce=\"";
    AppendAttributeValue(nonce, &s);
    s.push_back('"');
    return s;
  }();
  auto find_source_attr = [&](int32_t element, std::string_view lower) -> const HtmlAttr* {
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
  };
  for (const LinkWork& w : work) {
    if (w.detached) continue;
    const HtmlElement& L = doc_.elements[w.element];
    if (w.style >= 0 && !w.style_removed) {
      std::string s = "<style";
      if (!nonce.empty() && (options_.media_script || (L.parent == head && head >= 0))) {
        s += nonce_attr;
      }
      s.push_back('>');
      result.inlined_bytes += w.sheet.size();
      ++result.styles_inlined;
      add(L.tag_begin, 0, std::move(s));
      edits.back().body = &w.sheet;
      edits.back().tail = "</style>";
    }
    if (w.script >= 0) {
      std::string s = "<script";
      s += nonce_attr;
      s.push_back('>');
      s += kLinkLoadScript;
      s += "</script>";
      add(L.tag_begin, 0, std::move(s));
    }
    // The link's own attributes, in beasties' order: replaced in place or appended.
    const char* const names[] = {"media", "onload", "ngcspmedia", "data-beasties-media"};
    for (const char* name : names) {
      const std::string_view lower(name);
      bool removed = false;
      static const AttrOverrides kNone;
      const AttrOverrides& edits = L.overrides >= 0 ? doc_.overrides[L.overrides] : kNone;
      for (const std::string& r : edits.removed_attrs) {
        if (r == lower) removed = true;
      }
      const std::string* set_value = nullptr;
      for (const auto& kv : edits.set_attrs) {
        if (kv.first == lower) set_value = &kv.second;
      }
      const HtmlAttr* source = find_source_attr(w.element, lower);
      std::string written;
      if (set_value != nullptr) {
        written = lower == "ngcspmedia" ? "ngCspMedia" : std::string(lower);
        written += "=\"";
        AppendAttributeValue(*set_value, &written);
        written.push_back('"');
      }
      // removed with the space before it, as a serializer writes the rest
      auto remove_source = [&]() {
        uint32_t b = source->name_begin;
        while (b > L.name_end && IsJsSpaceByte(static_cast<unsigned char>(html_[b - 1]))) --b;
        add(b, source->end - b, "");
      };
      // removed, then set again (Angular 21's undoing, then beasties' handler): written last
      const bool moved = std::find(edits.readded_attrs.begin(), edits.readded_attrs.end(), lower) !=
                         edits.readded_attrs.end();
      if ((removed && set_value == nullptr) || (moved && source != nullptr)) {
        if (source != nullptr) remove_source();
        if (set_value == nullptr) continue;
        source = nullptr;
      }
      if (set_value == nullptr) continue;
      if (source != nullptr) {
        add(source->name_begin, source->end - source->name_begin, written);
      } else {
        add(L.attrs_end, 0, " " + written);
      }
    }
    if (w.noscript >= 0) {
      // the link's attributes as written, less and changed as its copy's edits say (no id)
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
      add(L.tag_end, 0, std::move(s));
    }
  }
  if (body_script >= 0) {
    // at the end of <body>'s content: before its end tag, or where the parser closed it
    const HtmlElement& b = doc_.elements[body];
    const uint32_t at =
        b.content_end > b.tag_end ? b.content_end : static_cast<uint32_t>(html_.size());
    std::string s = "<script";
    if (!nonce.empty()) s += nonce_attr;
    s.push_back('>');
    s += kDeferredMediaScript;
    s += "</script>";
    add(at, 0, std::move(s));
  }
  if (!nonce.empty() && any_link && head >= 0 && !options_.media_script) {
    for (int32_t e = 0; e < original_count; ++e) {
      const HtmlElement& el = doc_.elements[e];
      std::string_view value;
      if (el.parent == head && el.name == "style" && !GetAttribute(doc_, e, "nonce", &value)) {
        add(el.attrs_end, 0, nonce_attr);
      }
    }
  }
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
    return a.at != b.at ? a.at < b.at : a.order < b.order;
  });
  std::string out;
  size_t extra = 0;
  for (const Edit& e : edits) extra += e.size();
  out.reserve(html_.size() + extra);
  size_t cursor = 0;
  for (const Edit& e : edits) {
    if (e.at > cursor) out.append(html_.substr(cursor, e.at - cursor));
    out.append(e.text);
    if (e.body != nullptr) out.append(*e.body);
    out.append(e.tail);
    cursor = std::max<size_t>(cursor, static_cast<size_t>(e.at) + e.remove);
  }
  out.append(html_.substr(std::min(cursor, html_.size())));
  result.html = std::move(out);
  return result;
}

LinksResult FindLinks(std::string_view html, const Limits& limits) {
  LinksResult result;
  HtmlDocument doc;
  std::string reason;
  if (!ParseHtml(html, limits, &doc, &reason)) {
    result.status = Status::kSkipped;
    result.reason = reason;
    return result;
  }
  for (int32_t e = 0; e < static_cast<int32_t>(doc.elements.size()); ++e) {
    const HtmlElement& el = doc.elements[e];
    std::string_view value;
    if (el.name != "link" || !GetAttribute(doc, e, "rel", &value) || value.size() != 10) continue;
    bool same = true;
    for (size_t i = 0; i < 10; ++i) {
      char c = value[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
      if (c != "stylesheet"[i]) same = false;
    }
    if (!same) continue;
    PageLink link;
    std::string_view href;
    const bool has_href = GetAttribute(doc, e, "href", &href);
    link.href.assign(href);
    if (has_href && !GetAttribute(doc, e, "data-beasties-skip", &value)) {
      std::string_view path = href.substr(0, href.find('?'));
      path = path.substr(0, path.find('#'));
      link.fetched = path.size() >= 4 && path.compare(path.size() - 4, 4, ".css") == 0;
    }
    result.links.push_back(std::move(link));
  }
  return result;
}

InlineResult Inline(std::string_view html, const std::vector<const Plan*>& plans,
                    const InlineOptions& options, const Limits& limits) {
  const PlanResolver resolver = [&plans](size_t index, std::string_view) -> const Plan* {
    return index < plans.size() ? plans[index] : nullptr;
  };
  PageProcessor processor(html, resolver, options, limits);
  return processor.Run();
}

InlineResult Inline(std::string_view html, const PlanResolver& resolve,
                    const InlineOptions& options, const Limits& limits) {
  PageProcessor processor(html, resolve, options, limits);
  return processor.Run();
}

std::string_view CspLoaderScript() { return kLinkLoadScript; }

std::string_view MediaLoaderScript() { return kDeferredMediaScript; }

}  // namespace critical_css
}  // namespace ssr_native
