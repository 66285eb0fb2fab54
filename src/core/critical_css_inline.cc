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
#include <cctype>
#include <cstring>
#include <deque>
#include <functional>
#include <iterator>
#include <type_traits>

#include "critical_css_plan.h"
#include "critical_css_url_rewrite.h"
#include "critical_css_writer.h"

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
  void AddText(std::string_view t) {
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
};

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
    int32_t script = -1;    // synthetic nonce'd <script>
    std::string sheet;      // the critical CSS
    bool style_removed = false;
    // Angular 21 undid a previous pass's deferral of this link: its media back from the
    // onload handler, the handler and the <noscript> copy after it removed.
    bool undone = false;
    // Inside a <noscript> that undoing removed: beasties embeds it in the detached copy,
    // which is never written out.
    bool detached = false;
  };

  bool BuildDocument(std::string* reason);
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
  void MarkPage(const Plan& plan);
  bool SelectorMatches(const Plan& plan, uint32_t selector);
  std::string ProcessStyle(const Plan& plan);
  const DocumentChars& Chars();

  bool chars_done_ = false;
  DocumentChars chars_;

  std::string_view html_;
  const PlanResolver& plans_;
  const InlineOptions& options_;
  const Limits& limits_;
  HtmlDocument doc_;
  int32_t root_ = -1;
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

void PageProcessor::MarkPage(const Plan& plan) {
  const KeyTable& keys = plan.keys;
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

std::string PageProcessor::ProcessStyle(const Plan& plan) {
  const CssTree& tree = plan.tree;
  const size_t count = tree.nodes.size();
  MarkPage(plan);
  memo_.assign(plan.selectors.size(), -1);
  // Per-node scratch, reused by the thread from page to page (no fresh pages to fault in).
  std::vector<uint8_t>& removed = scratch_.removed;
  std::vector<uint32_t>& selector_slot = scratch_.selector_slot;
  removed.assign(count, 0);
  selector_slot.assign(count, 0);

  // Final selector text of the rules pass 1 rewrote: slot k + 1 of `written` (0: none). A
  // selector kept whole is a view of the stylesheet; a joined one is kept in `joined`.
  std::vector<std::string_view> written;
  std::deque<std::string> joined;
  auto set_selector = [&](uint32_t index, std::string text) {
    joined.push_back(std::move(text));
    written.push_back(joined.back());
    selector_slot[index] = static_cast<uint32_t>(written.size());
  };
  auto set_selector_view = [&](uint32_t index, std::string_view text) {
    written.push_back(text);
    selector_slot[index] = static_cast<uint32_t>(written.size());
  };
  std::vector<std::string_view> fonts;
  std::vector<std::string_view> legacy_fonts;
  std::vector<std::string_view> animations;
  bool include_next = false, exclude_next = false, include_all = false, exclude_all = false;
  const std::vector<Directive>& directives =
      options_.beasties_0_4 ? plan.directives_0_4 : plan.directives;
  const std::string_view text(tree.text);
  std::vector<std::string_view> kept;
  std::vector<uint32_t> stack;  // a kept nested rule's descendants

  auto collect = [&](const RuleFacts& facts) {
    for (uint32_t f = 0; f < facts.font_count; ++f) {
      fonts.push_back(plan.fonts[facts.font_begin + f]);
    }
    for (uint32_t f = 0; f < facts.legacy_font_count; ++f) {
      legacy_fonts.push_back(plan.legacy_font_values[facts.legacy_font_begin + f]);
    }
    for (uint32_t a = 0; a < facts.anim_count; ++a) {
      animations.push_back(plan.animations[facts.anim_begin + a]);
    }
  };

  auto predicate = [&](uint32_t index) -> bool {  // false: marked removed
    const CssNode& node = tree.nodes[index];
    if (node.kind == CssKind::kComment) {
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
      return false;
    }
    if (node.kind == CssKind::kDecl) return false;
    auto children_alive = [&]() {
      for (uint32_t c : tree.Children(node)) {
        if (!removed[c]) return true;
      }
      return false;
    };
    if (node.kind == CssKind::kRule) {
      const RuleFacts& facts = plan.FactsOf(index);
      auto all_parts = [&]() {
        std::vector<std::string_view> parts;
        for (uint32_t p = 0; p < facts.piece_count; ++p) {
          parts.push_back(plan.pieces[facts.piece_begin + p]);
        }
        return parts;
      };
      auto finish_selector = [&](const std::vector<std::string_view>& kept) {
        if (options_.compress) {  // node.selectors.join(",")
          std::string joined;
          for (size_t k = 0; k < kept.size(); ++k) {
            if (k > 0) joined.push_back(',');
            joined.append(kept[k]);
          }
          set_selector(index, std::move(joined));
          return;
        }
        if (kept.size() == 1) {
          set_selector_view(index, kept[0]);
          return;
        }
        // Only a rule that keeps some of several selectors reads its source text.
        const std::string_view s0 = text.substr(node.a_begin, node.a_end - node.a_begin);
        const std::string_view between = text.substr(node.a_end, node.open - node.a_end);
        const std::vector<std::string_view> parts = all_parts();
        const std::string s1 = JoinLikePostcss(kept, s0, between);
        const std::string s2 = JoinLikePostcss(parts, s1, between);
        set_selector(index, JoinLikePostcss(kept, s2, between));
      };
      if (include_next || exclude_next || include_all || exclude_all) {
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
        finish_selector(all_parts());
        return result;
      }
      if (plan.has_nested[index]) {
        // Kept whole, every selector and all nested content as written, when one of its own
        // selectors matches: each nested selector is relative to it (`&`), so nothing nested
        // can match where it does not, and what more it keeps never changes a paint.
        bool any = false;
        for (uint32_t p = 0; p < facts.piece_count && !any; ++p) {
          any = SelectorMatches(plan, plan.piece_selector[facts.piece_begin + p]);
        }
        if (!any) return false;
        finish_selector(all_parts());
        if (written[selector_slot[index] - 1].empty()) return false;
        // The fonts and animation names of its nested rules count as its own (an explicit
        // stack: the depth is the stylesheet's, bounded by the plan).
        stack.assign(1, index);
        while (!stack.empty()) {
          const uint32_t r = stack.back();
          stack.pop_back();
          if (tree.nodes[r].kind == CssKind::kRule) collect(plan.FactsOf(r));
          for (uint32_t c : tree.Children(tree.nodes[r])) {
            const CssKind k = tree.nodes[c].kind;
            if (k == CssKind::kRule || k == CssKind::kAtRule) stack.push_back(c);
          }
        }
        return true;
      }
      kept.clear();
      for (uint32_t p = 0; p < facts.piece_count; ++p) {
        if (SelectorMatches(plan, plan.piece_selector[facts.piece_begin + p])) {
          kept.push_back(plan.pieces[facts.piece_begin + p]);
        }
      }
      if (kept.empty()) return false;
      finish_selector(kept);
      if (written[selector_slot[index] - 1].empty()) return false;
      collect(facts);
      return children_alive();
    }
    const std::string_view name = text.substr(node.a_begin, node.a_end - node.a_begin);
    if (name == "font-face" || name == "layer") return true;
    if (!node.has_block) return false;
    return children_alive();
  };

  // Rules a page can keep a selector of: those a key of the page opens, and the open ones.
  std::vector<uint8_t>& live = scratch_.live;
  live.assign(count, 0);
  if (!(options_.beasties_0_4 ? plan.has_directives_0_4 : plan.has_directives)) {
    // Pass 1, beasties' walkStyleRules with markOnly, in the order that matters without
    // directives: a rule is decided by its own selectors (what it collects, fonts and
    // animation names, is a set), an at-rule by its children, decided before it. So the rules
    // the page's keys open go first, the rest of the walk after, in its order (children
    // before their parent); a rule no key opens keeps no selector and stays removed.
    removed.assign(plan.gated_removed.begin(), plan.gated_removed.end());
    for (uint32_t key : marked_keys_) {
      for (uint32_t g = plan.gate_begin[key]; g < plan.gate_begin[key + 1]; ++g) {
        const uint32_t rule = plan.gate_rules[g];
        if (live[rule] || !plan.gated_removed[rule]) continue;  // nested ones: in the walk
        live[rule] = 1;
        removed[rule] = predicate(rule) ? 0 : 1;
      }
    }
    for (uint32_t index : plan.walk_ungated) {
      if (!predicate(index)) removed[index] = 1;
    }
  } else {
    for (uint32_t key : marked_keys_) {
      for (uint32_t g = plan.gate_begin[key]; g < plan.gate_begin[key + 1]; ++g) {
        live[plan.gate_rules[g]] = 1;
      }
    }
    // Pass 1 in the walk's order (children before their parent): the directives' state runs
    // through it. A rule no key opens keeps no selector: removed without matching, unless a
    // directive decides it.
    for (uint32_t index : plan.walk) {
      if (tree.nodes[index].kind == CssKind::kRule && !live[index] &&
          !(plan.node_flags[index] & Plan::kOpenRule) && !include_next && !exclude_next &&
          !include_all && !exclude_all) {
        removed[index] = 1;
        continue;
      }
      if (!predicate(index)) removed[index] = 1;
    }
  }

  // Pass 2: drop unused @keyframes and @font-face (the marked rules are dropped with them:
  // the writer skips what `removed` holds).
  std::string legacy_joined;  // beasties 0.4's criticalFonts: " " + value, per kept value
  if (options_.beasties_0_4) {
    for (std::string_view v : legacy_fonts) {
      legacy_joined += ' ';
      legacy_joined += v;
    }
  }
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
    } else {
      bool used = false;
      const int32_t ff = plan.font_face[index];
      if (ff >= 0 && options_.beasties_0_4) {
        const FontFaceFacts& facts = plan.font_faces[ff];
        used = !facts.raw_family.empty() && facts.has_src_url &&
               legacy_joined.find(facts.raw_family) != std::string::npos;
      } else if (ff >= 0) {
        const FontFaceFacts& facts = plan.font_faces[ff];
        if (facts.has_family) {
          for (std::string_view f : fonts) {
            if (f == facts.family) used = true;
          }
        }
        if (used && facts.has_ranges) {
          const DocumentChars& chars = Chars();
          if (chars.complete) {
            bool in_range = false;
            for (size_t r = 0; r + 1 < facts.ranges.size() && !in_range; r += 2) {
              for (uint32_t cp = facts.ranges[r]; cp <= facts.ranges[r + 1]; ++cp) {
                if (chars.Has(cp)) {
                  in_range = true;
                  break;
                }
              }
            }
            used = in_range;
          }
        }
      }
      if (!options_.inline_fonts || !used) removed[index] = 1;
    }
  }

  return WriteKeptRules(plan, removed, selector_slot, written, options_.compress);
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

}  // namespace

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

size_t PageProcessor::LargestKeptScratchBytes() {
  size_t largest = 0;
  EachScratch(&ThreadScratch(), [&](auto* v) {
    using Vector = std::remove_pointer_t<decltype(v)>;
    largest = std::max(largest, v->capacity() * sizeof(typename Vector::value_type));
  });
  return largest;
}

size_t LargestKeptMatchScratchBytes() { return PageProcessor::LargestKeptScratchBytes(); }

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
