// The page processor: one page through Angular's InlineCriticalCssProcessor (see
// critical_css_page_run.cc for the steps). Internal to the critical-CSS engine.
#ifndef SSR_NATIVE_CRITICAL_CSS_PAGE_H_
#define SSR_NATIVE_CRITICAL_CSS_PAGE_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "critical_css_plan.h"

namespace ssr_native {
namespace critical_css {

// @angular/ssr's LINK_LOAD_SCRIPT_CONTENT (its CSP override's listener), written nonce'd.
inline constexpr char kLinkLoadScript[] = R"JS((() => {
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
inline constexpr char kDeferredMediaScript[] =
    "document.querySelectorAll('link[data-beasties-media]').forEach(function(l){l.media=l."
    "getAttribute('data-beasties-media');l.removeAttribute('data-beasties-media')})";

// beasties' getDocumentChars: the code points of the page's rendered text (text nodes and the
// alt / label / placeholder / title / value attributes outside script, style, template,
// noscript, head and title), with its small entity decoder. `complete` false means some
// entity could not be decoded: every unicode-range then counts as used.
struct DocumentChars {
  bool complete = true;
  std::vector<uint8_t> bmp;
  std::vector<uint32_t> astral;
  bool Has(uint32_t cp) const {
    if (cp < 0x10000) return bmp[cp] != 0;
    for (uint32_t a : astral) {
      if (a == cp) return true;
    }
    return false;
  }
  void Add(uint32_t cp) {
    if (cp < 0x10000) {
      bmp[cp] = 1;
    } else if (cp <= 0x10FFFF) {
      astral.push_back(cp);
    }
  }
  // Adds the code points of `t`, decoding beasties' entities.
  void AddText(std::string_view t);
};

// One page through Angular's processor (critical_css_page_run.cc runs it; the marking of the
// page's keys is critical_css_page_match.cc, the selection of each stylesheet's rules
// critical_css_process_style.cc). One object per page, on the thread that calls Inline.
class PageProcessor {
 public:
  PageProcessor(std::string_view html, const PlanResolver& plans, const InlineOptions& options,
                const Limits& limits)
      : html_(html), plans_(plans), options_(options), limits_(limits) {}
  ~PageProcessor() { TrimScratch(&scratch_); }
  PageProcessor(const PageProcessor&) = delete;
  PageProcessor& operator=(const PageProcessor&) = delete;

  InlineResult Run();
  static size_t LargestKeptScratchBytes();

 private:
  struct LinkWork {
    int32_t element = -1;
    const Plan* plan = nullptr;
    std::string href;
    int32_t style = -1;     // synthetic <style>
    int32_t noscript = -1;  // synthetic <noscript>
    int32_t copy = -1;      // the synthetic <link> in it
    // The link stands inside the page's own <noscript>: the copy is matched as beasties has it
    // but not written (a browser would end the outer <noscript> at its end tag).
    bool copy_unwritten = false;
    int32_t script = -1;  // synthetic nonce'd <script>
    std::string sheet;    // the critical CSS
    // The link's media when it is not empty or `all`, written on the <style>: the inlined CSS
    // paints where the stylesheet would (not under `print`, nor at a width the query excludes).
    std::string style_media;
    bool style_removed = false;
    // Angular 21 undid a previous pass's deferral of this link: its media back from the
    // onload handler, the handler and the <noscript> copy after it removed.
    bool undone = false;
    // Inside a <noscript> that undoing removed: beasties embeds it in the detached copy,
    // which is never written out.
    bool detached = false;
  };

  // What one pass over the page's source elements finds (ScanPage).
  struct PageFacts {
    int32_t head = -1;
    int32_t body = -1;            // document.body: the first <body> in document order
    bool deferred_media = false;  // a link[data-beasties-media] (media-script's script is due)
    int32_t nonce_element = -1;
    std::string_view nonce;
    std::vector<int32_t> links;
    int32_t container = -1;  // the first element marked data-beasties-container
    int containers = 0;
    bool prerendered = false;  // an ng-server-context naming ssg (Angular's SSG marker)
  };
  class EditList;

  // The steps of Run (critical_css_page_run.cc). A step that returns false has set *stop to
  // the page's skip (or over-bound) result.
  bool BuildDocument(std::string* reason);
  void ScanPage();
  bool ChooseContainer(InlineResult* stop);
  bool DeferLinks(InlineResult* stop);
  const Plan* FetchPlan(size_t k, int32_t link);
  bool UndoDeferral(LinkWork* w, InlineResult* stop);
  void DeferLink(LinkWork* w);
  void MoveOnloadForCsp(LinkWork* w);
  bool AddBodyScript(InlineResult* stop);
  void SetSearchDomain();
  bool SelectSheets(InlineResult* stop);
  // The edits of the page (critical_css_page_edits.cc) and the page they make.
  std::string WriteEdits(InlineResult* result);
  void AddLinkEdits(const LinkWork& w, const std::string& nonce_attr, EditList* edits,
                    InlineResult* result);
  void AddLinkAttrEdits(const LinkWork& w, EditList* edits);
  std::string NoscriptCopy(const LinkWork& w) const;
  const HtmlAttr* FindSourceAttr(int32_t element, std::string_view lower) const;
  // The engine's attribute edits of `element`, made on first use.
  AttrOverrides& Edits(int32_t element) {
    HtmlElement& el = doc_.elements[element];
    if (el.overrides < 0) {
      el.overrides = static_cast<int32_t>(doc_.overrides.size());
      doc_.overrides.emplace_back();
    }
    return doc_.overrides[el.overrides];
  }
  // Sets `name` (lowercase) to `value` in `edits`, replacing an earlier value, so that
  // GetAttribute and the writer read the last one; after a removal it is re-added (last).
  static void SetAttr(AttrOverrides* edits, const std::string& name, std::string value) {
    auto& removed = edits->removed_attrs;
    const auto gone = std::remove(removed.begin(), removed.end(), name);
    if (gone != removed.end()) {
      removed.erase(gone, removed.end());
      edits->readded_attrs.push_back(name);
    }
    for (auto& kv : edits->set_attrs) {
      if (kv.first == name) {
        kv.second = std::move(value);
        return;
      }
    }
    edits->set_attrs.emplace_back(name, std::move(value));
  }
  // Takes the source element `element` out of the tree, as domutils' removeElement does
  // (its subtree flagged in *detached, sized to the page's source elements on first use).
  void Detach(int32_t element, std::vector<uint8_t>* detached);
  // Where the source element `element` ends: after its end tag when it has one, else where the
  // parser closed it.
  uint32_t ElementEnd(int32_t element) const;
  // `name` is a literal (the element keeps the view).
  int32_t AddSynthetic(std::string_view name, int32_t parent, int32_t prev, int32_t next);
  struct ClassValue {
    std::string_view text;
    uint32_t token_begin = 0;  // into class_value_tokens_
    uint32_t token_count = 0;
    bool plain = false;  // single-space separated, nothing around: beasties' tokens too
  };
  // The key ids of a class attribute's tokens the plan knows, memoized per page by value.
  const ClassValue& ResolveClassValue(const KeyTable& keys, std::string_view value);
  // Marks the plan's keys the page holds and lists the candidate elements per trigger key.
  void MarkPage(const Plan& plan);
  void ResetMarks(const Plan& plan);
  void BuildCandidateLists(const Plan& plan);
  bool SelectorMatches(const Plan& plan, uint32_t selector);
  // The critical CSS of one stylesheet for this page (critical_css_process_style.cc).
  std::string ProcessStyle(const Plan& plan);
  struct RuleSelection;
  const DocumentChars& Chars();

  bool chars_done_ = false;
  DocumentChars chars_;

  std::string_view html_;
  const PlanResolver& plans_;
  const InlineOptions& options_;
  const Limits& limits_;
  HtmlDocument doc_;
  int32_t root_ = -1;
  // The state of Run's steps.
  int32_t original_count_ = 0;  // the page's source elements (synthetic ones come after)
  PageFacts facts_;
  bool leave_inlined_ = false;
  const char* inlined_reason_ = nullptr;
  bool mark_container_ = true;  // beasties marks <html> as its container
  std::vector<LinkWork> work_;
  std::vector<uint8_t> detached_;           // per element: inside a removed <noscript>
  std::vector<int32_t> removed_noscripts_;  // the <noscript>s undoing removed
  bool script_added_ = false;
  int32_t body_script_ = -1;  // media-script's loader at the end of <body>
  // The per-page working arrays, kept by the thread from page to page: sized for a page once,
  // they are reused instead of allocated (and faulted in) again for every page. Each is reset
  // where a page starts using it.
  struct Scratch {
    std::vector<int32_t> domain;
    std::vector<uint8_t> in_domain;
    std::vector<uint8_t> in_cache;
    std::vector<uint8_t> marks;
    std::vector<uint32_t> marked_keys;
    std::vector<std::pair<uint32_t, int32_t>> triggered;
    std::vector<uint32_t> class_value_slots;
    std::vector<ClassValue> class_values;
    std::vector<std::pair<uint32_t, uint32_t>> class_value_tokens;
    std::vector<uint32_t> by_key_begin;
    std::vector<uint32_t> by_key_end;
    std::vector<uint32_t> by_key_fill;
    std::vector<int32_t> by_key;
    std::vector<int8_t> memo;
    std::vector<uint32_t> chain_stamp;
    std::vector<uint8_t> chain_value;
    std::vector<uint32_t> class_keys;
    std::vector<uint32_t> class_key_begin;
    // per CSS node of the plan being applied
    std::vector<uint8_t> removed;  // $$remove after pass 1, then what pass 2 drops
    std::vector<uint32_t> selector_slot;
    std::vector<uint8_t> live;  // rules a key of the page opens
  };
  static Scratch& ThreadScratch() {
    thread_local Scratch scratch;
    return scratch;
  }
  // A vector grown beyond this by a large page or stylesheet is freed after the page instead of
  // kept, so that one huge page does not pin its memory for the thread's life.
  static constexpr size_t kMaxKeptBytes = size_t{1} << 20;
  template <typename T>
  static void Trim(std::vector<T>* v) {
    if (v->capacity() * sizeof(T) > kMaxKeptBytes) std::vector<T>().swap(*v);
  }
  template <typename F>
  static void EachScratch(Scratch* s, F f) {
    f(&s->domain);
    f(&s->in_domain);
    f(&s->in_cache);
    f(&s->marks);
    f(&s->marked_keys);
    f(&s->triggered);
    f(&s->class_value_slots);
    f(&s->class_values);
    f(&s->class_value_tokens);
    f(&s->by_key_begin);
    f(&s->by_key_end);
    f(&s->by_key_fill);
    f(&s->by_key);
    f(&s->memo);
    f(&s->chain_stamp);
    f(&s->chain_value);
    f(&s->class_keys);
    f(&s->class_key_begin);
    f(&s->removed);
    f(&s->selector_slot);
    f(&s->live);
  }
  static void TrimScratch(Scratch* s) {
    EachScratch(s, [](auto* v) { Trim(v); });
  }
  Scratch& scratch_ = ThreadScratch();
  std::vector<int32_t>& domain_ = scratch_.domain;  // elements css-select searches (below root)
  std::vector<uint8_t>& in_domain_ = scratch_.in_domain;
  std::vector<uint8_t>& in_cache_ = scratch_.in_cache;  // elements of beasties' class / id caches
  MatchContext match_;
  // Per plan evaluation state.
  std::vector<uint8_t>& marks_ = scratch_.marks;
  std::vector<uint32_t>& marked_keys_ = scratch_.marked_keys;  // the keys marks_ holds, once each
  // (trigger key, element) marks: the first triggered_count_ entries.
  std::vector<std::pair<uint32_t, int32_t>>& triggered_ = scratch_.triggered;
  size_t triggered_count_ = 0;
  // Open addressing: class_values_ index + 1.
  std::vector<uint32_t>& class_value_slots_ = scratch_.class_value_slots;
  std::vector<ClassValue>& class_values_ = scratch_.class_values;
  // (class id, cache id)
  std::vector<std::pair<uint32_t, uint32_t>>& class_value_tokens_ = scratch_.class_value_tokens;
  std::vector<uint32_t>& by_key_begin_ = scratch_.by_key_begin;  // trigger key -> by_key_ range
  std::vector<uint32_t>& by_key_end_ = scratch_.by_key_end;
  std::vector<uint32_t>& by_key_fill_ = scratch_.by_key_fill;
  std::vector<int32_t>& by_key_ = scratch_.by_key;
  std::vector<int8_t>& memo_ = scratch_.memo;
  // The matcher's combinator memo (MatchContext).
  std::vector<uint32_t>& chain_stamp_ = scratch_.chain_stamp;
  std::vector<uint8_t>& chain_value_ = scratch_.chain_value;
  std::vector<uint32_t>& class_keys_ = scratch_.class_keys;  // per element's classes (flat)
  std::vector<uint32_t>& class_key_begin_ = scratch_.class_key_begin;  // element -> class_keys_
};

}  // namespace critical_css
}  // namespace ssr_native

#endif  // SSR_NATIVE_CRITICAL_CSS_PAGE_H_
