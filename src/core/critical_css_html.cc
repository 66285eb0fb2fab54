// The page as beasties sees it: htmlparser2 12 (decodeEntities: false) building a domhandler
// tree. Its tokenizer is followed state by state for what decides the tree (tags, attributes
// and their quoting, comments, declarations, CDATA, the raw-text elements script / style /
// title / textarea / xmp / iframe / noembed / noframes / plaintext), and its parser for the
// tree: void elements, the start tags that close open ones (`openImpliesClose`), end tags that
// close everything above their match, `</p>` and `</br>` without a start tag, a nested <form>
// ignored, self-closing tags honoured only inside <svg> / <math>, svg tag names adjusted.
// Attribute values stay undecoded, as beasties asks. Only elements are kept, with offsets.
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "critical_css_internal.h"

namespace ssr_native {
namespace critical_css {
namespace {

bool IsWhite(unsigned char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\f' || c == '\r';
}
bool IsEndOfTagSection(unsigned char c) { return c == '/' || c == '>' || IsWhite(c); }
bool IsAlpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Byte classes of the tokenizer's runs (tag and attribute names, whitespace, unquoted values),
// so a run is skipped by a table lookup a byte instead of a trip through the state switch.
enum ByteClass : uint8_t {
  kWhiteByte = 1,   // ' ' \n \t \f \r
  kSlashByte = 2,   // '/'
  kGtByte = 4,      // '>'
  kEqByte = 8,      // '='
  kUpperByte = 16,  // 'A'-'Z'
  kEndOfTagSection = kWhiteByte | kSlashByte | kGtByte,
  kEndOfAttributeName = kEndOfTagSection | kEqByte,
  kEndOfUnquotedValue = kWhiteByte | kGtByte,
};

struct ByteClasses {
  uint8_t of[256] = {};
  ByteClasses() {
    for (int c = 0; c < 256; ++c) {
      uint8_t f = 0;
      if (IsWhite(static_cast<unsigned char>(c))) f |= kWhiteByte;
      if (c == '/') f |= kSlashByte;
      if (c == '>') f |= kGtByte;
      if (c == '=') f |= kEqByte;
      if (c >= 'A' && c <= 'Z') f |= kUpperByte;
      of[c] = f;
    }
  }
};
const ByteClasses kByteClasses;

enum class State : uint8_t {
  kText,
  kBeforeTagName,
  kInTagName,
  kInSelfClosingTag,
  kBeforeClosingTagName,
  kInClosingTagName,
  kAfterClosingTagName,
  kBeforeAttributeName,
  kInAttributeName,
  kAfterAttributeName,
  kBeforeAttributeValue,
  kInAttributeValueDq,
  kInAttributeValueSq,
  kInAttributeValueNq,
  kBeforeDeclaration,
  kInDeclaration,
  kBeforeComment,
  kCdataSequence,
  kInSpecialComment,
  kInCommentLike,
  kDeclarationSequence,
  kSpecialStartSequence,
  kInSpecialTag,
  kInPlainText
};

enum Seq : uint8_t {
  kSeqNone,
  kIframe,
  kNoembed,
  kNoframes,
  kPlaintext,
  kScript,
  kStyle,
  kTitle,
  kTextarea,
  kXmp,
  kCdataEnd,
  kCommentEnd
};

const char* SeqText(Seq s) {
  switch (s) {
    case kIframe:
      return "</iframe";
    case kNoembed:
      return "</noembed";
    case kNoframes:
      return "</noframes";
    case kPlaintext:
      return "</plaintext";
    case kScript:
      return "</script";
    case kStyle:
      return "</style";
    case kTitle:
      return "</title";
    case kTextarea:
      return "</textarea";
    case kXmp:
      return "</xmp";
    case kCdataEnd:
      return "]]>";
    case kCommentEnd:
      return "--!>";
    default:
      return "";
  }
}

struct ImpliedClose {
  const char* open;
  const char* closes[8];
};
// htmlparser2's openImpliesClose.
const ImpliedClose kImpliesClose[] = {
    {"tr", {"tr", "th", "td"}},
    {"th", {"th"}},
    {"td", {"thead", "th", "td"}},
    {"body", {"head", "link", "script"}},
    {"a", {"a"}},
    {"li", {"li"}},
    {"p", {"p"}},
    {"h1", {"h1", "h2", "h3", "h4", "h5", "h6", "p"}},
    {"h2", {"h1", "h2", "h3", "h4", "h5", "h6", "p"}},
    {"h3", {"h1", "h2", "h3", "h4", "h5", "h6", "p"}},
    {"h4", {"h1", "h2", "h3", "h4", "h5", "h6", "p"}},
    {"h5", {"h1", "h2", "h3", "h4", "h5", "h6", "p"}},
    {"h6", {"h1", "h2", "h3", "h4", "h5", "h6", "p"}},
    {"select", {"input", "option", "optgroup", "select", "button", "datalist", "textarea"}},
    {"input", {"input", "option", "optgroup", "select", "button", "datalist", "textarea"}},
    {"output", {"input", "option", "optgroup", "select", "button", "datalist", "textarea"}},
    {"button", {"input", "option", "optgroup", "select", "button", "datalist", "textarea"}},
    {"datalist", {"input", "option", "optgroup", "select", "button", "datalist", "textarea"}},
    {"textarea", {"input", "option", "optgroup", "select", "button", "datalist", "textarea"}},
    {"option", {"option"}},
    {"optgroup", {"optgroup", "option"}},
    {"dd", {"dd", "dt"}},
    {"dt", {"dd", "dt"}},
    {"address", {"p"}},
    {"article", {"p"}},
    {"aside", {"p"}},
    {"blockquote", {"p"}},
    {"details", {"p"}},
    {"div", {"p"}},
    {"dl", {"p"}},
    {"fieldset", {"p"}},
    {"figcaption", {"p"}},
    {"figure", {"p"}},
    {"footer", {"p"}},
    {"form", {"p"}},
    {"header", {"p"}},
    {"hr", {"p"}},
    {"main", {"p"}},
    {"nav", {"p"}},
    {"ol", {"p"}},
    {"pre", {"p"}},
    {"section", {"p"}},
    {"table", {"p"}},
    {"ul", {"p"}},
    {"rt", {"rt", "rp"}},
    {"rp", {"rt", "rp"}},
    {"tbody", {"thead", "tbody"}},
    {"tfoot", {"thead", "tbody"}},
};

const char* const kVoid[] = {"area",  "base",  "basefont", "br",    "col",     "command", "embed",
                             "frame", "hr",    "img",      "input", "isindex", "keygen",  "link",
                             "meta",  "param", "source",   "track", "wbr"};
const char* const kIntegration[] = {
    "mi", "mo", "mn", "ms", "mtext", "annotation-xml", "foreignObject", "desc", "title"};
const char* const kSvgAdjust[][2] = {{"altglyph", "altGlyph"},
                                     {"altglyphdef", "altGlyphDef"},
                                     {"altglyphitem", "altGlyphItem"},
                                     {"animatecolor", "animateColor"},
                                     {"animatemotion", "animateMotion"},
                                     {"animatetransform", "animateTransform"},
                                     {"clippath", "clipPath"},
                                     {"feblend", "feBlend"},
                                     {"fecolormatrix", "feColorMatrix"},
                                     {"fecomponenttransfer", "feComponentTransfer"},
                                     {"fecomposite", "feComposite"},
                                     {"feconvolvematrix", "feConvolveMatrix"},
                                     {"fediffuselighting", "feDiffuseLighting"},
                                     {"fedisplacementmap", "feDisplacementMap"},
                                     {"fedistantlight", "feDistantLight"},
                                     {"fedropshadow", "feDropShadow"},
                                     {"feflood", "feFlood"},
                                     {"fefunca", "feFuncA"},
                                     {"fefuncb", "feFuncB"},
                                     {"fefuncg", "feFuncG"},
                                     {"fefuncr", "feFuncR"},
                                     {"fegaussianblur", "feGaussianBlur"},
                                     {"feimage", "feImage"},
                                     {"femerge", "feMerge"},
                                     {"femergenode", "feMergeNode"},
                                     {"femorphology", "feMorphology"},
                                     {"feoffset", "feOffset"},
                                     {"fepointlight", "fePointLight"},
                                     {"fespecularlighting", "feSpecularLighting"},
                                     {"fespotlight", "feSpotLight"},
                                     {"fetile", "feTile"},
                                     {"feturbulence", "feTurbulence"},
                                     {"foreignobject", "foreignObject"},
                                     {"glyphref", "glyphRef"},
                                     {"lineargradient", "linearGradient"},
                                     {"radialgradient", "radialGradient"},
                                     {"textpath", "textPath"}};

// Tag names the tree builder treats specially, interned once so that each start tag costs one
// hash lookup instead of string comparisons against every table.
const char* const kKnownTags[] = {"",
                                  "tr",
                                  "th",
                                  "td",
                                  "thead",
                                  "body",
                                  "head",
                                  "link",
                                  "script",
                                  "a",
                                  "li",
                                  "p",
                                  "h1",
                                  "h2",
                                  "h3",
                                  "h4",
                                  "h5",
                                  "h6",
                                  "select",
                                  "input",
                                  "output",
                                  "button",
                                  "datalist",
                                  "textarea",
                                  "option",
                                  "optgroup",
                                  "dd",
                                  "dt",
                                  "address",
                                  "article",
                                  "aside",
                                  "blockquote",
                                  "details",
                                  "div",
                                  "dl",
                                  "fieldset",
                                  "figcaption",
                                  "figure",
                                  "footer",
                                  "form",
                                  "header",
                                  "hr",
                                  "main",
                                  "nav",
                                  "ol",
                                  "pre",
                                  "section",
                                  "table",
                                  "ul",
                                  "rt",
                                  "rp",
                                  "tbody",
                                  "tfoot",
                                  "area",
                                  "base",
                                  "basefont",
                                  "br",
                                  "col",
                                  "command",
                                  "embed",
                                  "frame",
                                  "img",
                                  "isindex",
                                  "keygen",
                                  "meta",
                                  "param",
                                  "source",
                                  "track",
                                  "wbr",
                                  "mi",
                                  "mo",
                                  "mn",
                                  "ms",
                                  "mtext",
                                  "annotation-xml",
                                  "foreignObject",
                                  "desc",
                                  "title",
                                  "svg",
                                  "math"};
constexpr int kTagCount = sizeof(kKnownTags) / sizeof(kKnownTags[0]);

struct TagTables {
  // Open addressing over the known names (a third full): one hash and usually one compare.
  static constexpr size_t kSlots = 256;
  uint8_t slots[kSlots] = {};
  std::string_view names[kTagCount];
  uint64_t void_mask[2] = {0, 0};
  uint64_t integration_mask[2] = {0, 0};
  uint64_t closes[kTagCount][2] = {};
  uint8_t form = 0, p = 0, svg = 0, math = 0, br = 0;

  static bool Has(const uint64_t* mask, uint8_t id) { return (mask[id >> 6] >> (id & 63)) & 1; }
  static void Set(uint64_t* mask, uint8_t id) { mask[id >> 6] |= uint64_t{1} << (id & 63); }

  TagTables() {
    static_assert(kTagCount * 2 < kSlots, "tag table too full");
    for (int i = 0; i < kTagCount; ++i) names[i] = kKnownTags[i];
    for (int i = 1; i < kTagCount; ++i) {
      size_t k = HashText(kKnownTags[i]) & (kSlots - 1);
      while (slots[k] != 0) k = (k + 1) & (kSlots - 1);
      slots[k] = static_cast<uint8_t>(i);
    }
    for (const char* v : kVoid) Set(void_mask, Id(v));
    for (const char* v : kIntegration) Set(integration_mask, Id(v));
    for (const auto& rule : kImpliesClose) {
      for (const char* c : rule.closes) {
        if (c != nullptr) Set(closes[Id(rule.open)], Id(c));
      }
    }
    form = Id("form");
    p = Id("p");
    svg = Id("svg");
    math = Id("math");
    br = Id("br");
  }
  uint8_t Id(std::string_view name) const {
    for (size_t k = HashText(name) & (kSlots - 1);; k = (k + 1) & (kSlots - 1)) {
      const uint8_t id = slots[k];
      if (id == 0 || SameText(name, names[id])) return id;
    }
  }
};

const TagTables& Tags() {
  static const TagTables tables;
  return tables;
}

enum class Foreign : uint8_t { kNone, kSvg, kMath };

// A step of every tag, kept inside the scanner's loop whatever the inliner's budget.
#if defined(__GNUC__)
#define SSR_NATIVE_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define SSR_NATIVE_ALWAYS_INLINE inline
#endif

// Off only in tests (SetHtmlScanShortcuts), which compare the trees built with and without.
std::atomic<bool> g_shortcuts{true};

struct OpenTag {
  std::string_view name;
  uint8_t id;
};

// What a thread keeps from one page to the next: the last document's and parser's storage,
// emptied. A document takes it when made and gives it back when destroyed (a page inlined
// while another is alive on the same thread, through a resolver calling back into the
// engine, finds it taken and grows its own).
struct KeptStorage {
  std::vector<HtmlTextRun> texts;
  std::vector<HtmlElement> elements;
  std::vector<HtmlAttr> attrs;
  std::vector<int32_t> top_level;
  std::vector<OpenTag> stack;
  std::vector<Foreign> foreign;
  std::vector<int32_t> handler;
};

// A vector grown beyond this by a large page is freed with its document instead of kept, so
// that one huge page does not pin its memory for the thread's life.
constexpr size_t kMaxKeptBytes = size_t{1} << 20;

KeptStorage& Kept() {
  thread_local KeptStorage kept;
  return kept;
}

template <typename T>
void GiveBack(std::vector<T>* mine, std::vector<T>* kept) {
  if (mine->capacity() * sizeof(T) > kMaxKeptBytes || mine->capacity() <= kept->capacity()) {
    return;  // freed with its owner
  }
  mine->clear();
  mine->swap(*kept);
}

class HtmlParser {
 public:
  HtmlParser(std::string_view src, const Limits& limits, HtmlDocument* doc)
      : s_(src), n_(src.size()), limits_(limits), doc_(doc), kept_(&Kept()) {
    stack_.swap(kept_->stack);
    foreign_.swap(kept_->foreign);
    handler_.swap(kept_->handler);
    stack_.clear();
    foreign_.clear();
    handler_.clear();
    foreign_.push_back(Foreign::kNone);
  }
  ~HtmlParser() {
    GiveBack(&stack_, &kept_->stack);
    GiveBack(&foreign_, &kept_->foreign);
    GiveBack(&handler_, &kept_->handler);
  }
  HtmlParser(const HtmlParser&) = delete;
  HtmlParser& operator=(const HtmlParser&) = delete;
  // kShortcuts: a template argument rather than a flag read per tag (the tests turn them off).
  template <bool kShortcuts>
  bool Run(std::string* reason);
  bool Run(std::string* reason) { return shortcuts_ ? Run<true>(reason) : Run<false>(reason); }

 private:
  bool InForeign() const { return foreign_.back() != Foreign::kNone; }

  // The lowercased (and adjusted) name: a view of the page where it is written in lowercase,
  // of a static table for adjusted names, else of a copy kept by the document.
  // `upper`: the name holds a byte in A-Z (known from the scan that found its end).
  SSR_NATIVE_ALWAYS_INLINE std::string_view ReadTagName(size_t b, size_t e, bool upper) const {
    const std::string_view name(s_.data() + b, e - b);
    if (!upper) return Adjust(name);  // most pages: a view of the page, no string made
    std::string lowered(name);
    for (char& c : lowered) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    }
    const std::string_view adjusted = Adjust(lowered);
    if (adjusted.data() != lowered.data()) return adjusted;
    doc_->names.push_back(std::move(lowered));
    return doc_->names.back();
  }

  std::string_view Adjust(std::string_view name) const {
    if (foreign_.back() == Foreign::kSvg) {
      for (const auto& a : kSvgAdjust) {
        if (name == a[0]) return a[1];
      }
      return name;
    }
    if (foreign_.size() > 1) {
      for (const auto& a : kSvgAdjust) {
        if (name == a[0]) {
          for (const OpenTag& open : stack_) {
            if (open.name == a[1]) return a[1];
          }
        }
      }
    }
    if (!InForeign() && name == "image") return "img";
    return name;
  }

  // Parser callbacks.
  void EmitOpenTag(std::string_view name, size_t tag_begin, size_t name_end);
  void EndOpenTag(size_t tag_end);
  void OnCloseTag(size_t b, size_t e, bool upper);
  // The first index from i on whose byte is in one of `stop`'s classes (n_ when none), and
  // the classes of the bytes skipped.
  size_t SkipUntil(size_t i, uint8_t stop, uint8_t* seen) const {
    uint8_t acc = 0;
    const unsigned char* p = reinterpret_cast<const unsigned char*>(s_.data());
    for (; i < n_; ++i) {
      const uint8_t f = kByteClasses.of[p[i]];
      if (f & stop) break;
      acc |= f;
    }
    *seen = acc;
    return i;
  }
  size_t SkipUntil(size_t i, uint8_t stop) const {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(s_.data());
    while (i < n_ && !(kByteClasses.of[p[i]] & stop)) ++i;
    return i;
  }
  // From i in kBeforeAttributeName: the attributes written `name="value"` or `name='value'`
  // (most tags), each reported as the states would report it, and whitespace between them.
  // Returns where the state machine resumes, still in kBeforeAttributeName: the first byte
  // that is not part of such an attribute.
  size_t QuotedAttributes(size_t i) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(s_.data());
    while (!failed_) {
      const size_t name_b = SkipWhite(i);
      if (name_b >= n_ || p[name_b] == '>' || p[name_b] == '/') return name_b;
      const size_t name_e = SkipUntil(name_b + 1, kEndOfAttributeName);
      if (name_e + 2 >= n_ || p[name_e] != '=') return name_b;
      const unsigned char q = p[name_e + 1];
      if (q != '"' && q != '\'') return name_b;
      const void* close = std::memchr(p + name_e + 2, q, n_ - name_e - 2);
      if (close == nullptr) return name_b;
      const size_t value_e = static_cast<size_t>(static_cast<const unsigned char*>(close) - p);
      OnAttribEnd(name_b, name_e, true, name_e + 2, value_e, value_e + 1);
      i = value_e + 1;
    }
    return i;
  }
  size_t SkipWhite(size_t i) const {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(s_.data());
    while (i < n_ && (kByteClasses.of[p[i]] & kWhiteByte)) ++i;
    return i;
  }
  void PopElement();
  void CloseCurrentTag(size_t at);
  void OnAttribEnd(size_t name_b, size_t name_e, bool has_value, size_t vb, size_t ve, size_t end);

  // domhandler
  void HandlerOpen(std::string_view name, uint8_t id, size_t tag_begin, size_t name_end,
                   size_t attrs_end, size_t tag_end, bool with_attrs);
  // The element closes at `at`: its end tag's "<", the tag that implies its end, or the end of
  // a void / self-closed tag (content_end; 0 for what the input's end leaves open).
  void HandlerClose(size_t at) {
    if (!handler_.empty()) {
      doc_->elements[handler_.back()].content_end = static_cast<uint32_t>(at);
      handler_.pop_back();
    }
  }

  std::string_view s_;
  size_t n_;
  const Limits& limits_;
  HtmlDocument* doc_;
  KeptStorage* kept_;
  const TagTables& tags_ = Tags();
  const bool shortcuts_ = g_shortcuts.load(std::memory_order_relaxed);
  std::vector<OpenTag> stack_;  // parser stack, innermost last
  size_t close_at_ = 0;         // where the elements PopElement closes end (HandlerClose)
  int open_forms_ = 0;
  uint8_t tag_id_ = 0;
  std::vector<Foreign> foreign_;
  std::vector<int32_t> handler_;  // domhandler's tag stack
  // The open tag being read.
  std::string_view tagname_;
  bool have_attribs_ = false;
  size_t open_tag_begin_ = 0, open_name_end_ = 0, open_attrs_end_ = 0;
  // The open tag's attributes are appended to the document's as they are read: those from
  // pending_begin_ on belong to the element HandlerOpen makes next.
  size_t pending_begin_ = 0;
  bool failed_ = false;
  std::string reason_;
};

void HtmlParser::EmitOpenTag(std::string_view name, size_t tag_begin, size_t name_end) {
  const TagTables& tags = tags_;
  const uint8_t id = tags.Id(name);
  tagname_ = name;
  tag_id_ = id;
  open_tag_begin_ = tag_begin;
  open_name_end_ = name_end;
  open_attrs_end_ = name_end;
  pending_begin_ = doc_->attrs.size();
  if (id != 0 && id == tags.form && open_forms_ > 0) {
    tagname_ = std::string_view();
    tag_id_ = 0;
    have_attribs_ = false;
    return;
  }
  if (id != 0) {
    const uint64_t* closes = tags.closes[id];
    close_at_ = tag_begin;
    while (!stack_.empty() && TagTables::Has(closes, stack_.back().id)) PopElement();
  }
  if (!TagTables::Has(tags.void_mask, id)) {
    stack_.push_back(OpenTag{tagname_, id});
    if (id == tags.form) ++open_forms_;
    if (id == tags.svg) {
      foreign_.push_back(Foreign::kSvg);
    } else if (id == tags.math) {
      foreign_.push_back(Foreign::kMath);
    } else if (TagTables::Has(tags.integration_mask, id)) {
      foreign_.push_back(Foreign::kNone);
    }
  }
  have_attribs_ = true;
}

void HtmlParser::EndOpenTag(size_t tag_end) {
  if (have_attribs_) {
    HandlerOpen(tagname_, tag_id_, open_tag_begin_, open_name_end_, open_attrs_end_, tag_end, true);
    have_attribs_ = false;
  }
  if (tag_id_ != 0 && TagTables::Has(tags_.void_mask, tag_id_)) HandlerClose(tag_end);
  tagname_ = std::string_view();
  tag_id_ = 0;
}

void HtmlParser::PopElement() {
  const TagTables& tags = tags_;
  const uint8_t id = stack_.back().id;
  stack_.pop_back();
  if (id == tags.form) --open_forms_;
  if ((id == tags.math || id == tags.svg || TagTables::Has(tags.integration_mask, id)) &&
      foreign_.size() > 1) {
    foreign_.pop_back();
  }
  HandlerClose(close_at_);
}

void HtmlParser::CloseCurrentTag(size_t at) {
  const std::string_view name = tagname_;
  EndOpenTag(at);
  close_at_ = at;
  if (!stack_.empty() && stack_.back().name == name) PopElement();
}

void HtmlParser::OnCloseTag(size_t b, size_t e, bool upper) {
  const TagTables& tags = tags_;
  const std::string_view raw(s_.data() + b, e - b);
  // Most end tags close the innermost open element, written as it was opened: its name as
  // read (lowercase, not adjusted) is the raw name, and the search below would find it on top.
  if (shortcuts_ && !upper && !stack_.empty() && SameText(raw, stack_.back().name) &&
      Adjust(raw).data() == raw.data()) {
    PopElement();
    return;
  }
  const std::string_view name = ReadTagName(b, e, upper);
  const uint8_t id = tags.Id(name);
  if (!TagTables::Has(tags.void_mask, id)) {
    size_t pos = stack_.size();
    for (size_t i = stack_.size(); i > 0; --i) {
      if (stack_[i - 1].id == id && SameText(stack_[i - 1].name, name)) {
        pos = i - 1;
        break;
      }
    }
    if (pos != stack_.size()) {
      while (stack_.size() > pos + 1) PopElement();
      PopElement();
    } else if (id == tags.p) {
      EmitOpenTag("p", b >= 2 ? b - 2 : b, b);
      have_attribs_ = true;
      CloseCurrentTag(e);
    }
  } else if (id == tags.br) {
    HandlerOpen("br", tags.br, b >= 2 ? b - 2 : b, e, e, e, true);
    HandlerClose(e);
  }
}

void HtmlParser::OnAttribEnd(size_t nb, size_t ne, bool has_value, size_t vb, size_t ve,
                             size_t end) {
  open_attrs_end_ = end;
  if (!have_attribs_) return;
  // First occurrence wins (names compared lowercased).
  std::vector<HtmlAttr>& attrs = doc_->attrs;
  for (size_t k = pending_begin_; k < attrs.size(); ++k) {
    const HtmlAttr& a = attrs[k];
    if (a.name_end - a.name_begin != ne - nb) continue;
    bool same = true;
    for (size_t i = 0; i < ne - nb; ++i) {
      char x = s_[a.name_begin + i], y = s_[nb + i];
      if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
      if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
      if (x != y) {
        same = false;
        break;
      }
    }
    if (same) return;
  }
  if (attrs.size() - pending_begin_ >= limits_.max_attributes) {
    failed_ = true;
    reason_ = "too many attributes on one element";
    return;
  }
  HtmlAttr& a = attrs.emplace_back();
  a.name_begin = static_cast<uint32_t>(nb);
  a.name_end = static_cast<uint32_t>(ne);
  a.has_value = has_value;
  a.value_begin = static_cast<uint32_t>(vb);
  a.value_end = static_cast<uint32_t>(ve);
  a.end = static_cast<uint32_t>(end);
}

void HtmlParser::HandlerOpen(std::string_view name, uint8_t id, size_t tag_begin, size_t name_end,
                             size_t attrs_end, size_t tag_end, bool with_attrs) {
  if (handler_.size() >= limits_.max_depth) {
    failed_ = true;
    reason_ = "elements nested too deep";
    return;
  }
  std::vector<HtmlElement>& elements = doc_->elements;
  const int32_t index = static_cast<int32_t>(elements.size());
  HtmlElement& el = elements.emplace_back();  // references into elements are taken after it
  el.name = name;
  el.tag_id = id;
  el.tag_begin = static_cast<uint32_t>(tag_begin);
  el.name_end = static_cast<uint32_t>(name_end);
  el.attrs_end = static_cast<uint32_t>(attrs_end);
  el.tag_end = static_cast<uint32_t>(tag_end);
  el.attr_begin = static_cast<uint32_t>(pending_begin_);
  if (with_attrs) {
    el.attr_count = static_cast<uint32_t>(doc_->attrs.size() - pending_begin_);
  } else {
    doc_->attrs.resize(pending_begin_);
  }
  pending_begin_ = doc_->attrs.size();
  const int32_t parent = handler_.empty() ? -1 : handler_.back();
  el.parent = parent;
  if (parent >= 0) {
    HtmlElement& p = elements[parent];
    el.prev = p.last_child;
    if (p.last_child >= 0) elements[p.last_child].next = index;
    if (p.first_child < 0) p.first_child = index;
    p.last_child = index;
  } else {
    el.prev = doc_->top_level.empty() ? -1 : doc_->top_level.back();
    if (el.prev >= 0) elements[el.prev].next = index;
    doc_->top_level.push_back(index);
  }
  handler_.push_back(index);
}

template <bool kShortcuts>
bool HtmlParser::Run(std::string* reason) {
  State state = State::kText;
  size_t section = 0;
  Seq seq = kSeqNone;
  size_t seq_index = 0;
  bool special = false;
  // Attribute being read.
  size_t attr_name_b = 0, attr_name_e = 0, value_b = 0;
  size_t name_begin = 0;  // tag name start
  size_t tag_lt = 0;      // "<" of the current tag
  auto enter_tag_body = [&]() {
    if (seq == kPlaintext) {
      seq = kSeqNone;
      state = State::kInPlainText;
    } else if (special) {
      state = State::kInSpecialTag;
      seq_index = 0;
    } else {
      state = State::kText;
    }
  };
  size_t text_start = 0;
  auto emit_text = [&](size_t end) {
    if (end > text_start) {
      HtmlTextRun run;
      run.begin = static_cast<uint32_t>(text_start);
      run.end = static_cast<uint32_t>(end);
      run.parent = handler_.empty() ? -1 : handler_.back();
      doc_->texts.push_back(run);
    }
    text_start = end;
  };
  size_t i = 0;
  // A tag name from its first letter (the bytes the states before read are letters) to the
  // end of its section, then the open tag (state kBeforeAttributeName, i at the byte after
  // the name) or the close tag (kAfterClosingTagName). False at the end of the input.
  auto read_open_tag_name = [&]() {
    uint8_t seen = 0;
    i = SkipUntil(name_begin, kEndOfTagSection, &seen);
    if (i == n_) return false;
    EmitOpenTag(ReadTagName(name_begin, i, (seen & kUpperByte) != 0), tag_lt, i);
    return true;
  };
  auto read_close_tag_name = [&]() {
    uint8_t seen = 0;
    i = SkipUntil(section, kEndOfTagSection, &seen);
    if (i == n_) return false;
    close_at_ = tag_lt;
    OnCloseTag(section, i, (seen & kUpperByte) != 0);
    state = State::kAfterClosingTagName;
    return true;
  };
  while (i < n_ && !failed_) {
    unsigned char c = static_cast<unsigned char>(s_[i]);
    const State state_before = state;
    switch (state) {
      case State::kText: {
        const void* lt = std::memchr(s_.data() + i, '<', n_ - i);
        if (lt == nullptr) {
          i = n_;
          continue;
        }
        i = static_cast<size_t>(static_cast<const char*>(lt) - s_.data());
        state = State::kBeforeTagName;
        tag_lt = i;
        section = i;
        if (i + 1 == n_ || !kShortcuts) break;
        // The byte after "<" right away, as the next trip would (the text bookkeeping after
        // the switch treats kText and kBeforeTagName before alike).
        c = static_cast<unsigned char>(s_[++i]);
        [[fallthrough]];
      }
      case State::kBeforeTagName:
        if (c == '!' || c == '?' || IsAlpha(c) || c == '/') emit_text(tag_lt);
        if (c == '!') {
          state = State::kBeforeDeclaration;
          section = i + 1;
        } else if (c == '?') {
          state = State::kInSpecialComment;
          section = i;
        } else if (IsAlpha(c)) {
          section = i;
          name_begin = i;
          Seq sp = kSeqNone;
          if (!InForeign()) {
            switch (c | 0x20) {
              case 'i':
                sp = kIframe;
                break;
              case 'n':
                sp = kNoembed;
                break;
              case 'p':
                sp = kPlaintext;
                break;
              case 's':
                sp = kScript;
                break;
              case 't':
                sp = kTitle;
                break;
              case 'x':
                sp = kXmp;
                break;
              default:
                break;
            }
          }
          if (sp == kSeqNone) {
            state = State::kInTagName;
            if (!kShortcuts) break;
            if (read_open_tag_name()) state = State::kBeforeAttributeName;
            continue;  // at the byte after the name
          } else {
            special = true;
            seq = sp;
            seq_index = 3;
            state = State::kSpecialStartSequence;
          }
        } else if (c == '/') {
          state = State::kBeforeClosingTagName;
        } else {
          state = State::kText;
          continue;  // reconsume as text
        }
        break;
      case State::kInPlainText:
        i = n_;
        continue;
      case State::kSpecialStartSequence: {
        const unsigned char lower = c | 0x20;
        const char* text = SeqText(seq);
        const size_t len = std::strlen(text);
        bool handled = false;
        if (seq_index < len) {
          if (lower == static_cast<unsigned char>(text[seq_index])) {
            ++seq_index;
            handled = true;
          } else if (seq_index == 3) {
            if (seq == kScript && lower == 't') {
              seq = kStyle;
              seq_index = 4;
              handled = true;
            } else if (seq == kTitle && lower == 'e') {
              seq = kTextarea;
              seq_index = 4;
              handled = true;
            }
          } else if (seq_index == 4 && seq == kNoembed && lower == 'f') {
            seq = kNoframes;
            seq_index = 5;
            handled = true;
          }
        } else if (IsEndOfTagSection(c)) {
          seq_index = 0;
          state = State::kInTagName;
          continue;  // reconsume
        }
        if (handled) break;
        special = false;
        seq = kSeqNone;
        seq_index = 0;
        state = State::kInTagName;
        continue;  // reconsume
      }
      case State::kInTagName:
        if (read_open_tag_name()) state = State::kBeforeAttributeName;
        continue;
      case State::kBeforeAttributeName: {
        const size_t after = kShortcuts ? QuotedAttributes(i) : i;
        if (after != i) {
          i = after;
          if (i >= n_) continue;
          c = static_cast<unsigned char>(s_[i]);
        }
        if (c == '>') {
          EndOpenTag(i + 1);
          enter_tag_body();
        } else if (c == '/') {
          state = State::kInSelfClosingTag;
        } else if (!IsWhite(c)) {
          state = State::kInAttributeName;
          attr_name_b = i;
          i = SkipUntil(i + 1, kEndOfAttributeName);
          continue;
        } else {
          i = SkipWhite(i + 1);
          continue;
        }
        break;
      }
      case State::kInSelfClosingTag:
        if (c == '>') {
          if (InForeign()) {
            CloseCurrentTag(i + 1);
            state = State::kText;
            // htmlparser2 enters the tag body here too (recognizeSelfClosing is false).
            enter_tag_body();
          } else {
            EndOpenTag(i + 1);
            enter_tag_body();
          }
        } else if (!IsWhite(c)) {
          state = State::kBeforeAttributeName;
          continue;
        }
        break;
      case State::kInAttributeName:
        if (c == '=' || IsEndOfTagSection(c)) {
          attr_name_e = i;
          state = State::kAfterAttributeName;
          continue;
        }
        i = SkipUntil(i + 1, kEndOfAttributeName);
        continue;
      case State::kAfterAttributeName:
        if (c == '=') {
          state = State::kBeforeAttributeValue;
        } else if (c == '/' || c == '>') {
          OnAttribEnd(attr_name_b, attr_name_e, false, attr_name_e, attr_name_e, attr_name_e);
          state = State::kBeforeAttributeName;
          continue;
        } else if (!IsWhite(c)) {
          OnAttribEnd(attr_name_b, attr_name_e, false, attr_name_e, attr_name_e, attr_name_e);
          state = State::kInAttributeName;
          attr_name_b = i;
        } else {
          i = SkipWhite(i + 1);
          continue;
        }
        break;
      case State::kBeforeAttributeValue:
        if (c == '"') {
          state = State::kInAttributeValueDq;
          value_b = i + 1;
        } else if (c == '\'') {
          state = State::kInAttributeValueSq;
          value_b = i + 1;
        } else if (!IsWhite(c)) {
          value_b = i;
          state = State::kInAttributeValueNq;
          continue;
        } else {
          i = SkipWhite(i + 1);
          continue;
        }
        break;
      case State::kInAttributeValueDq:
      case State::kInAttributeValueSq: {
        const char q = state == State::kInAttributeValueDq ? '"' : '\'';
        const void* found = std::memchr(s_.data() + i, q, n_ - i);
        if (found == nullptr) {
          i = n_;
          continue;
        }
        i = static_cast<size_t>(static_cast<const char*>(found) - s_.data());
        OnAttribEnd(attr_name_b, attr_name_e, true, value_b, i, i + 1);
        state = State::kBeforeAttributeName;
        break;
      }
      case State::kInAttributeValueNq:
        if (IsWhite(c) || c == '>') {
          OnAttribEnd(attr_name_b, attr_name_e, true, value_b, i, i);
          state = State::kBeforeAttributeName;
          continue;
        }
        i = SkipUntil(i + 1, kEndOfUnquotedValue);
        continue;
      case State::kBeforeClosingTagName:
        if (IsWhite(c)) {
          state = State::kInSpecialComment;
          section = i;
        } else if (c == '>') {
          state = State::kText;
        } else if (IsAlpha(c)) {
          section = i;
          state = State::kInClosingTagName;
          if (!kShortcuts) break;
          if (!read_close_tag_name()) continue;
          if (s_[i] != '>') continue;  // reconsumed in kAfterClosingTagName
          state = State::kText;
        } else {
          state = State::kInSpecialComment;
          section = i;
        }
        break;
      case State::kInClosingTagName:
        read_close_tag_name();
        continue;
      case State::kAfterClosingTagName: {
        if (c == '>') {
          state = State::kText;
          break;
        }
        const void* gt = std::memchr(s_.data() + i, '>', n_ - i);
        if (gt == nullptr) {
          i = n_;
          continue;
        }
        i = static_cast<size_t>(static_cast<const char*>(gt) - s_.data());
        state = State::kText;
        break;
      }
      case State::kBeforeDeclaration:
        if (c == '[') {
          state = State::kCdataSequence;
          seq_index = 0;
        } else if ((c | 0x20) == 'd') {
          state = State::kDeclarationSequence;
          seq_index = 1;
        } else if (c == '>') {
          state = State::kText;
        } else if (c == '-') {
          state = State::kBeforeComment;
        } else {
          state = State::kInSpecialComment;
        }
        break;
      case State::kDeclarationSequence: {
        static const char kDoctype[] = "doctype";
        if (seq_index == 7) {
          state = State::kInDeclaration;
          continue;
        }
        if ((c | 0x20) == static_cast<unsigned char>(kDoctype[seq_index])) {
          ++seq_index;
        } else if (c == '>') {
          state = State::kText;
        } else {
          state = State::kInSpecialComment;
        }
        break;
      }
      case State::kInDeclaration:
      case State::kInSpecialComment: {
        if (c == '>') {
          state = State::kText;
          break;
        }
        const void* gt = std::memchr(s_.data() + i, '>', n_ - i);
        if (gt == nullptr) {
          i = n_;
          continue;
        }
        i = static_cast<size_t>(static_cast<const char*>(gt) - s_.data());
        state = State::kText;
        break;
      }
      case State::kCdataSequence: {
        static const char kCdata[] = "CDATA[";
        if (c == static_cast<unsigned char>(kCdata[seq_index])) {
          if (++seq_index == 6) {
            state = State::kInCommentLike;
            seq = kCdataEnd;
            seq_index = 0;
            section = i + 1;
          }
        } else {
          seq_index = 0;
          state = State::kInSpecialComment;
          continue;
        }
        break;
      }
      case State::kBeforeComment:
        if (c == '-') {
          state = State::kInCommentLike;
          seq = kCommentEnd;
          seq_index = 0;
          section = i + 1;
        } else if (c == '>') {
          state = State::kText;
        } else {
          state = State::kInSpecialComment;
        }
        break;
      case State::kInCommentLike: {
        const char* text = SeqText(seq);
        const size_t len = std::strlen(text);
        if (seq == kCommentEnd && seq_index <= 1 && i == section + seq_index && c == '>') {
          state = State::kText;  // "<!-->" / "<!--->"
        } else if (seq == kCommentEnd && seq_index == 2 && c == '>') {
          state = State::kText;  // "-->"
        } else if (seq == kCommentEnd && seq_index == len - 1 && c != '>') {
          seq_index = c == '-' ? 1 : 0;
        } else if (c == static_cast<unsigned char>(text[seq_index])) {
          if (++seq_index == len) state = State::kText;
        } else if (seq_index == 0) {
          const void* f = std::memchr(s_.data() + i, text[0], n_ - i);
          if (f == nullptr) {
            i = n_;
            continue;
          }
          i = static_cast<size_t>(static_cast<const char*>(f) - s_.data());
          seq_index = 1;
        } else if (c != static_cast<unsigned char>(text[seq_index - 1])) {
          seq_index = 0;
        }
        if (state == State::kText) seq_index = 0;
        break;
      }
      case State::kInSpecialTag: {
        const char* text = SeqText(seq);
        const size_t len = std::strlen(text);
        if (seq_index == len) {
          if (IsEndOfTagSection(c)) {
            const size_t end_of_text = i - len;
            emit_text(end_of_text);
            special = false;
            tag_lt = end_of_text;
            section = end_of_text + 2;
            state = State::kInClosingTagName;
            continue;  // stateInClosingTagName(c)
          }
          seq_index = 0;
        }
        if ((c | 0x20) == static_cast<unsigned char>(text[seq_index])) {
          ++seq_index;
        } else if (seq_index == 0) {
          if (seq != kTitle && seq != kTextarea) {
            const void* lt = std::memchr(s_.data() + i + 1, '<', n_ - i - 1);
            if (lt == nullptr) {
              i = n_;
              continue;
            }
            i = static_cast<size_t>(static_cast<const char*>(lt) - s_.data());
            seq_index = 1;
          }
        } else {
          seq_index = c == '<' ? 1 : 0;
        }
        break;
      }
    }
    if ((state == State::kText && state_before != State::kText &&
         state_before != State::kBeforeTagName) ||
        (state == State::kInSpecialTag && state_before != State::kInSpecialTag) ||
        (state == State::kInPlainText && state_before != State::kInPlainText)) {
      text_start = i + 1;
    }
    ++i;
  }
  if (state == State::kText || state == State::kInPlainText ||
      (state == State::kInSpecialTag && seq_index == 0) || state == State::kBeforeTagName) {
    emit_text(n_);
  }
  doc_->attrs.resize(pending_begin_);  // an open tag the input ended in makes no element
  if (failed_) {
    *reason = reason_;
    return false;
  }
  (void)section;
  return true;
}

}  // namespace

HtmlDocument::HtmlDocument() {
  KeptStorage& kept = Kept();
  texts.swap(kept.texts);
  elements.swap(kept.elements);
  attrs.swap(kept.attrs);
  top_level.swap(kept.top_level);
}

HtmlDocument::~HtmlDocument() {
  KeptStorage& kept = Kept();
  GiveBack(&texts, &kept.texts);
  GiveBack(&elements, &kept.elements);
  GiveBack(&attrs, &kept.attrs);
  GiveBack(&top_level, &kept.top_level);
}

void SetHtmlScanShortcuts(bool on) { g_shortcuts.store(on, std::memory_order_relaxed); }

size_t KeptDocumentBytes() {
  const KeptStorage& kept = Kept();
  return kept.texts.capacity() * sizeof(HtmlTextRun) +
         kept.elements.capacity() * sizeof(HtmlElement) + kept.attrs.capacity() * sizeof(HtmlAttr) +
         kept.top_level.capacity() * sizeof(int32_t) + kept.stack.capacity() * sizeof(OpenTag) +
         kept.foreign.capacity() * sizeof(Foreign) + kept.handler.capacity() * sizeof(int32_t);
}

bool ParseHtml(std::string_view html, const Limits& limits, HtmlDocument* doc,
               std::string* reason) {
  doc->src = html;
  doc->elements.clear();
  doc->attrs.clear();
  doc->top_level.clear();
  doc->texts.clear();
  doc->names.clear();
  doc->overrides.clear();
  if (html.size() > limits.max_html_bytes) {
    *reason = "page larger than the limit";
    return false;
  }
  doc->elements.reserve(html.size() / 48 + 16);
  doc->attrs.reserve(html.size() / 40 + 16);
  HtmlParser parser(html, limits, doc);
  return parser.Run(reason);
}

void UseHtmlparser2v10Names(HtmlDocument* doc) {
  for (HtmlElement& el : doc->elements) {
    const std::string_view name = el.name;
    if (name == "img") {
      if (el.name_end - el.tag_begin == 6) el.name = "image";  // written <image>: 12 renames it
      continue;
    }
    bool upper = false;  // only an adjusted SVG name has a capital: the scanner lowercases
    for (char c : name) upper |= c >= 'A' && c <= 'Z';
    if (!upper) continue;
    for (const auto& a : kSvgAdjust) {
      if (name == a[1]) {
        el.name = a[0];
        break;
      }
    }
  }
}

bool GetAttribute(const HtmlDocument& doc, int32_t element, std::string_view lower_name,
                  std::string_view* value) {
  const HtmlElement& el = doc.elements[element];
  if (el.overrides >= 0) {  // the engine's edits (a few elements a page)
    const AttrOverrides& o = doc.overrides[el.overrides];
    for (const std::string& r : o.removed_attrs) {
      if (r == lower_name) return false;
    }
    for (const auto& kv : o.set_attrs) {
      if (kv.first == lower_name) {
        *value = kv.second;
        return true;
      }
    }
  }
  const int32_t source = el.clone_of >= 0 ? el.clone_of : element;
  const HtmlElement& src_el = doc.elements[source];
  if (el.synthetic && el.clone_of < 0) return false;
  for (uint32_t k = 0; k < src_el.attr_count; ++k) {
    const HtmlAttr& a = doc.attrs[src_el.attr_begin + k];
    if (a.name_end - a.name_begin != lower_name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < lower_name.size(); ++i) {
      char x = doc.src[a.name_begin + i];
      if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
      if (x != lower_name[i]) {
        same = false;
        break;
      }
    }
    if (!same) continue;
    *value = doc.src.substr(a.value_begin, a.value_end - a.value_begin);
    return true;
  }
  return false;
}

}  // namespace critical_css
}  // namespace ssr_native
