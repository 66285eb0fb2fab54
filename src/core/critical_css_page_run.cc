// One page through Angular's InlineCriticalCssProcessor, step for step with beasties 0.5.4
// (PageProcessor::Run and its steps):
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
#include <utility>

#include "critical_css_page.h"
#include "critical_css_url_rewrite.h"

namespace ssr_native {
namespace critical_css {
namespace {

// The skip reasons of a page an earlier pass already inlined (lib/critical-css/critical-css.js
// warns on the second: Angular's own inliner ran on a page rendered at request time).
constexpr char kInlinedPrerendered[] = "a prerendered page already inlined";
constexpr char kInlinedByAngular[] = "a page Angular already inlined";

// An InlineResult for a page left as it is.
InlineResult Skipped(std::string why) {
  InlineResult result;
  result.status = Status::kSkipped;
  result.reason = std::move(why);
  return result;
}

bool Stop(InlineResult* stop, Status status, std::string why) {
  *stop = Skipped(std::move(why));
  stop->status = status;
  return false;
}

// Whether the attribute's name is `lower`, compared lowercased.
bool NameIs(std::string_view html, const HtmlAttr& a, std::string_view lower) {
  if (a.name_end - a.name_begin != lower.size()) return false;
  for (size_t i = 0; i < lower.size(); ++i) {
    char c = html[a.name_begin + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    if (c != lower[i]) return false;
  }
  return true;
}

// rel="stylesheet", compared lowercased.
bool IsStylesheet(std::string_view rel) {
  if (rel.size() != 10) return false;
  bool same = true;
  for (size_t i = 0; i < 10; ++i) {
    char c = rel[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    if (c != "stylesheet"[i]) same = false;
  }
  return same;
}

// beasties' fetchStylesheet reads an href whose path (query and fragment ignored) ends in .css.
bool FetchedHref(std::string_view href) {
  std::string_view path = href.substr(0, href.find('?'));
  path = path.substr(0, path.find('#'));
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".css") == 0;
}

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
  std::string reason;
  if (!BuildDocument(&reason)) return Skipped(std::move(reason));
  ScanPage();
  if (!ChooseContainer(&result) || !DeferLinks(&result) || !AddBodyScript(&result)) return result;
  SetSearchDomain();
  if (!SelectSheets(&result)) return result;
  result.html = WriteEdits(&result);
  return result;
}

// The page's <html>, <head> and <body>, its stylesheet links, and the marks an earlier pass
// left (a container, deferred links, a CSP nonce, Angular's SSG marker).
void PageProcessor::ScanPage() {
  original_count_ = static_cast<int32_t>(doc_.elements.size());
  for (int32_t top : doc_.top_level) {
    if (doc_.elements[top].name == "html") {
      root_ = top;
      break;
    }
  }
  PageFacts& f = facts_;
  // Names compared lowercased; the scanner kept the first of repeated attributes, and nothing
  // is overridden yet, so one pass over each element's own attributes answers all three.
  for (int32_t e = 0; e < original_count_; ++e) {
    const HtmlElement& el = doc_.elements[e];
    std::string_view value;
    bool has_rel = false;
    for (uint32_t k = 0; k < el.attr_count; ++k) {
      const HtmlAttr& a = doc_.attrs[el.attr_begin + k];
      const std::string_view a_value = html_.substr(a.value_begin, a.value_end - a.value_begin);
      if (NameIs(html_, a, "data-beasties-container")) {
        if (f.container < 0) f.container = e;
        ++f.containers;
      } else if (NameIs(html_, a, "ng-server-context")) {
        f.prerendered = f.prerendered || a_value.find("ssg") != std::string_view::npos;
      } else if (f.nonce_element < 0 && NameIs(html_, a, "ngcspnonce")) {
        f.nonce_element = e;
        f.nonce = a_value;
      } else if (el.name == "link" && NameIs(html_, a, "data-beasties-media")) {
        f.deferred_media = true;
      } else if (NameIs(html_, a, "rel")) {
        has_rel = true;
        value = a_value;
      }
    }
    if (f.head < 0 && el.name == "head") f.head = e;
    if (f.body < 0 && el.name == "body") f.body = e;
    if (has_rel && el.name == "link" && IsStylesheet(value)) f.links.push_back(e);
  }
}

// beasties' container: the page's own data-beasties-container (0.4's querySelector: the first;
// 0.5 searches every one it finds, not reproduced), else <html>, which it then marks.
bool PageProcessor::ChooseContainer(InlineResult* stop) {
  leave_inlined_ =
      options_.leave_inlined || (options_.leave_inlined_prerendered && facts_.prerendered);
  inlined_reason_ = facts_.prerendered ? kInlinedPrerendered : kInlinedByAngular;
  if (leave_inlined_ && (facts_.container >= 0 || facts_.deferred_media)) {
    return Stop(stop, Status::kSkipped, inlined_reason_);
  }
  if (facts_.container >= 0) {
    if (facts_.containers > 1 && !options_.beasties_0_4) {
      return Stop(stop, Status::kSkipped, "the page marks more than one data-beasties-container");
    }
    root_ = facts_.container;
    mark_container_ = false;
  }
  if (facts_.links.size() > limits_.max_stylesheet_links) {
    return Stop(stop, Status::kOverBound,
                "more than " + std::to_string(limits_.max_stylesheet_links) + " stylesheet links");
  }
  return true;
}

// Every stylesheet link in order: its plan, Angular 21's undoing of an earlier deferral, then
// beasties' deferral (a <style> before it, the media moved, a <noscript> copy) and Angular
// 21's CSP override.
bool PageProcessor::DeferLinks(InlineResult* stop) {
  const std::vector<int32_t>& links = facts_.links;
  work_.resize(links.size());
  for (size_t k = 0; k < links.size(); ++k) {
    LinkWork& w = work_[k];
    w.element = links[k];
    w.plan = FetchPlan(k, links[k]);
    const int32_t L = w.element;
    if (!detached_.empty() && detached_[L]) {
      w.detached = true;
      w.plan = nullptr;  // nothing of it is written: no CSS to select
      continue;
    }
    if (!UndoDeferral(&w, stop)) return false;
    std::string_view value;
    if (GetAttribute(doc_, L, "href", &value)) w.href.assign(value);
    if (w.plan != nullptr) DeferLink(&w);
    if (!facts_.nonce.empty() && !options_.media_script) MoveOnloadForCsp(&w);
  }
  return true;
}

// beasties' fetchStylesheet: data-beasties-skip, an href ending in .css (query and fragment
// ignored); then the caller resolves and reads it.
const Plan* PageProcessor::FetchPlan(size_t k, int32_t link) {
  std::string_view href;
  std::string_view skip_attr;
  if (GetAttribute(doc_, link, "href", &href) &&
      !GetAttribute(doc_, link, "data-beasties-skip", &skip_attr) && FetchedHref(href)) {
    return plans_(k, href);
  }
  return nullptr;
}

// Angular 21's embedLinkedStylesheet override, for a link a previous pass deferred
// (media="print", its onload setting the media, a <noscript> right after it): the media back
// from the handler, the handler and the <noscript> removed, then beasties defers the link
// again. (Angular 22 has none: beasties defers such a link as it is.) Left alone, such a link
// is an earlier inlining's under either loader.
bool PageProcessor::UndoDeferral(LinkWork* w, InlineResult* stop) {
  const int32_t L = w->element;
  std::string_view value;
  if (!((leave_inlined_ || !options_.media_script) && GetAttribute(doc_, L, "media", &value) &&
        value == "print")) {
    return true;
  }
  const int32_t next = doc_.elements[L].next;
  std::string_view onload;
  std::string media;
  if (next >= 0 && doc_.elements[next].name == "noscript" &&
      doc_.elements[next].tag_begin == doc_.elements[L].tag_end &&
      GetAttribute(doc_, L, "onload", &onload) && MatchMediaHandler(onload, &media)) {
    if (leave_inlined_) return Stop(stop, Status::kSkipped, inlined_reason_);
    if (!facts_.nonce.empty()) {
      // its CSP branch then also runs on the links of the removed copy, in the order their
      // reads complete: not reproduced
      return Stop(stop, Status::kSkipped,
                  "a stylesheet link already deferred by a previous pass, with a CSP nonce");
    }
    w->undone = true;
    SetAttr(&Edits(L), "media", media);
    Edits(L).removed_attrs.push_back("onload");
    Detach(next, &detached_);
    removed_noscripts_.push_back(next);
  }
  return true;
}

// beasties' embedLinkedStylesheet for a link whose stylesheet was read: a <style> before it,
// a <noscript> copy after it, its media moved behind the loader.
void PageProcessor::DeferLink(LinkWork* w) {
  const int32_t L = w->element;
  const int32_t parent = doc_.elements[L].parent;
  std::string_view value;
  w->style = AddSynthetic("style", parent, doc_.elements[L].prev, L);
  std::string media = "all";
  if (GetAttribute(doc_, L, "media", &value) && !value.empty()) {
    if (value != "all") w->style_media.assign(value);
    if (MediaUsable(value, options_.beasties_0_4)) media.assign(value);
  }
  // A link the page deferred itself (media="print" and a handler or data-beasties-media
  // setting its media): the <style> paints where the loaded stylesheet would.
  std::string_view handler;
  std::string handler_media;
  if (w->style_media == "print") {
    if (GetAttribute(doc_, L, "onload", &handler) && MatchMediaHandler(handler, &handler_media)) {
      w->style_media = handler_media;
    } else if (GetAttribute(doc_, L, "data-beasties-media", &handler)) {
      w->style_media.assign(handler);
    }
    if (w->style_media == "all") w->style_media.clear();
  }
  if (options_.noscript_fallback && w->href.find("</noscript>") == std::string::npos) {
    w->noscript = AddSynthetic("noscript", parent, L, doc_.elements[L].next);
    HtmlElement clone;
    clone.name = "link";
    clone.synthetic = true;
    clone.in_cache = false;
    clone.parent = w->noscript;
    clone.clone_of = L;
    doc_.elements.push_back(std::move(clone));
    const int32_t c = static_cast<int32_t>(doc_.elements.size() - 1);
    w->copy = c;
    Edits(c).removed_attrs.push_back("id");
    if (w->undone) {  // copied after Angular's override: its media, no handler
      std::string_view undone_media;
      GetAttribute(doc_, L, "media", &undone_media);
      std::string media_copy(undone_media);  // a view into L's edits
      SetAttr(&Edits(c), "media", std::move(media_copy));
      Edits(c).removed_attrs.push_back("onload");
    }
    doc_.elements[w->noscript].first_child = c;
    doc_.elements[w->noscript].last_child = c;
    for (int32_t a = parent; a >= 0 && !w->copy_unwritten; a = doc_.elements[a].parent) {
      w->copy_unwritten = doc_.elements[a].name == "noscript";
    }
  }
  AttrOverrides& el = Edits(L);
  SetAttr(&el, "media", "print");
  if (options_.media_script) {
    SetAttr(&el, "data-beasties-media", media);
    facts_.deferred_media = true;
  } else {
    SetAttr(&el, "onload", "this.media='" + media + "'");
  }
}

// Angular 21's CSP override: the onload's media moved into ngCspMedia, and its listener script
// (nonce'd) before the first such link, unless <head> already holds it.
void PageProcessor::MoveOnloadForCsp(LinkWork* w) {
  const int32_t L = w->element;
  std::string onload_media;
  std::string_view onload;
  if (!GetAttribute(doc_, L, "onload", &onload) || !MatchMediaHandler(onload, &onload_media)) {
    return;
  }
  AttrOverrides& el = Edits(L);
  for (auto it = el.set_attrs.begin(); it != el.set_attrs.end(); ++it) {
    if (it->first == "onload") {
      el.set_attrs.erase(it);
      break;
    }
  }
  el.removed_attrs.push_back("onload");
  el.set_attrs.emplace_back("ngcspmedia", onload_media);
  if (script_added_) return;
  script_added_ = true;
  bool present = false;
  if (facts_.head >= 0) {
    const HtmlElement& h = doc_.elements[facts_.head];
    const size_t end = h.content_end > h.tag_end ? h.content_end : html_.size();
    present =
        html_.substr(h.tag_end, end - h.tag_end).find(kLinkLoadScript) != std::string_view::npos;
  }
  if (!present) {
    w->script = AddSynthetic("script", doc_.elements[L].parent, doc_.elements[L].prev, L);
    Edits(w->script).set_attrs.emplace_back("nonce", std::string(facts_.nonce));
  }
}

// media-script: beasties appends its one loader script to document.body once the links are
// deferred, before it matches selectors (so `body > script` sees it). Without a <body> it
// throws (Angular's AppEngine then sends the page as rendered): the page is left as it is.
bool PageProcessor::AddBodyScript(InlineResult* stop) {
  if (!options_.media_script || !facts_.deferred_media) return true;
  const int32_t body = facts_.body;
  if (body < 0) {
    return Stop(stop, Status::kSkipped, "no <body> for the deferred stylesheets' loader script");
  }
  int32_t last = doc_.elements[body].last_child;
  while (last >= 0 && doc_.elements[last].next >= 0) last = doc_.elements[last].next;
  body_script_ = AddSynthetic("script", body, last, -1);
  if (!facts_.nonce.empty()) {
    Edits(body_script_).set_attrs.emplace_back("nonce", std::string(facts_.nonce));
  }
  if (doc_.elements[body].first_child < 0) doc_.elements[body].first_child = body_script_;
  doc_.elements[body].last_child = body_script_;
  return true;
}

// Where css-select looks (below the root) and what beasties' caches hold (the root too).
void PageProcessor::SetSearchDomain() {
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
    // The document element itself where it is the container: css-select searches below it,
    // but the browser applies `[data-bs-theme=dark]`, `html[lang]` to it
    // (docs/critical-css-differences.md).
    if (e == root_ && doc_.elements[e].parent < 0 && doc_.elements[e].name == "html")
      in_domain_[e] = 1;
    if (in_domain_[e]) domain_.push_back(e);
  }
  if (!detached_.empty()) {
    // removed from the document before the search, but in the caches beasties built before
    for (size_t e = 0; e < detached_.size(); ++e) {
      if (detached_[e]) in_domain_[e] = 0;
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
}

// The critical CSS of every link with a plan (a stylesheet linked twice is selected once),
// url()s rewritten, within the bound on inlined bytes.
bool PageProcessor::SelectSheets(InlineResult* stop) {
  std::vector<std::pair<const Plan*, std::string>> done;
  size_t inlined_bytes = 0;
  for (size_t k = 0; k < work_.size(); ++k) {
    LinkWork& w = work_[k];
    if (w.plan == nullptr) continue;
    const std::string* cached = nullptr;
    for (const auto& d : done) {
      if (d.first == w.plan) cached = &d.second;
    }
    std::string sheet = cached ? *cached : ProcessStyle(*w.plan);
    if (match_.exhausted) {
      return Stop(stop, Status::kSkipped, "selector matching exceeded its work limit");
    }
    if (!cached) {
      // Kept (a copy) only for a later link to the same stylesheet.
      for (size_t j = k + 1; j < work_.size(); ++j) {
        if (work_[j].plan == w.plan) {
          done.emplace_back(w.plan, sheet);
          break;
        }
      }
    }
    // beasties 0.4 writes url()s as the stylesheet has them (0.5 resolves them against it).
    if (!options_.beasties_0_4) RewriteCssUrls(&sheet, w.href);
    inlined_bytes += sheet.size();
    if (inlined_bytes > limits_.max_inlined_bytes) {
      return Stop(
          stop, Status::kOverBound,
          "more than " + std::to_string(limits_.max_inlined_bytes) + " bytes of inlined CSS");
    }
    if (TrimAscii(sheet).empty()) {
      w.style_removed = true;
    } else {
      w.sheet = std::move(sheet);
    }
  }
  return true;
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
    if (el.name != "link" || !GetAttribute(doc, e, "rel", &value) || !IsStylesheet(value)) continue;
    PageLink link;
    std::string_view href;
    const bool has_href = GetAttribute(doc, e, "href", &href);
    link.href.assign(href);
    if (has_href && !GetAttribute(doc, e, "data-beasties-skip", &value)) {
      link.fetched = FetchedHref(href);
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
