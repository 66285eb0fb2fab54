#include "ssr_native/content_type.h"

#include <cstdint>
#include <limits>

namespace ssr_native {
namespace {

// Character classes of content-type 1.0.5's regular expressions, for code units 0x00-0xFF.
enum : uint8_t {
  kToken = 1,         // [!#$%&'*+.^_`|~0-9A-Za-z-]
  kQuotedText = 2,    // [\u000b\u0020\u0021\u0023-\u005b\u005d-\u007e\u0080-\u00ff]
  kQuotedPairEnd = 4  // [\u000b\u0020-\u00ff], what may follow a backslash
};

struct CharClassTable {
  uint8_t bits[256] = {};
  constexpr CharClassTable() {
    for (int c = '0'; c <= '9'; ++c) bits[c] |= kToken;
    for (int c = 'A'; c <= 'Z'; ++c) bits[c] |= kToken;
    for (int c = 'a'; c <= 'z'; ++c) bits[c] |= kToken;
    for (char c : {'!', '#', '$', '%', '&', '\'', '*', '+', '.', '^', '_', '`', '|', '~', '-'})
      bits[static_cast<unsigned char>(c)] |= kToken;
    bits[0x0B] |= kQuotedText | kQuotedPairEnd;
    for (int c = 0x20; c <= 0xFF; ++c) {
      bits[c] |= kQuotedPairEnd;
      if (c != '"' && c != '\\' && c != 0x7F) bits[c] |= kQuotedText;
    }
  }
};

constexpr CharClassTable kClasses;

template <typename Char>
inline bool Is(Char c, uint8_t mask) {
  const auto unit = static_cast<uint32_t>(c);
  return unit < 256 && (kClasses.bits[unit] & mask) != 0;
}

// The code units String.prototype.trim() removes: ECMAScript WhiteSpace (TAB, VT, FF, ZWNBSP and
// every Unicode "Zs" space) and LineTerminator (LF, CR, LS, PS).
template <typename Char>
inline bool IsJsWhitespace(Char c) {
  const auto unit = static_cast<uint32_t>(c);
  if (unit < 0x80) return unit == 0x20 || (unit >= 0x09 && unit <= 0x0D);
  if (unit == 0xA0) return true;
  if (unit < 0x1680) return false;
  return unit == 0x1680 || (unit >= 0x2000 && unit <= 0x200A) || unit == 0x2028 || unit == 0x2029 ||
         unit == 0x202F || unit == 0x205F || unit == 0x3000 || unit == 0xFEFF;
}

template <typename Char>
size_t SkipToken(const Char* s, size_t pos, size_t end) {
  while (pos < end && Is(s[pos], kToken)) ++pos;
  return pos;
}

template <typename Char>
bool HasUpper(const Char* s, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    if (s[i] >= 'A' && s[i] <= 'Z') return true;
  }
  return false;
}

template <typename Char>
size_t SkipSpaces(const Char* s, size_t pos, size_t end) {
  while (pos < end && s[pos] == ' ') ++pos;
  return pos;
}

template <typename Char>
ContentTypeError Scan(const Char* s, size_t n, MediaTypeSpan* type, MediaTypeParameterSink* sink) {
  if (n > std::numeric_limits<uint32_t>::max()) return ContentTypeError::kInvalidMediaType;

  // The media type: everything before the first ";", trimmed, must be token "/" token.
  size_t semicolon = 0;
  while (semicolon < n && s[semicolon] != ';') ++semicolon;
  size_t begin = 0;
  size_t end = semicolon;
  while (begin < end && IsJsWhitespace(s[begin])) ++begin;
  while (end > begin && IsJsWhitespace(s[end - 1])) --end;
  const size_t slash = SkipToken(s, begin, end);
  if (slash == begin || slash == end || s[slash] != '/') return ContentTypeError::kInvalidMediaType;
  const size_t subtype_end = SkipToken(s, slash + 1, end);
  if (subtype_end == slash + 1 || subtype_end != end) return ContentTypeError::kInvalidMediaType;
  type->begin = static_cast<uint32_t>(begin);
  type->end = static_cast<uint32_t>(end);
  type->has_upper = HasUpper(s, begin, end);

  // Parameters: each is ";" *SP token *SP "=" *SP ( token / quoted-string ) *SP, back to back,
  // up to the end of the header. Any deviation is "invalid parameter format".
  size_t pos = semicolon;
  while (pos < n) {
    if (s[pos] != ';') return ContentTypeError::kInvalidParameterFormat;
    MediaTypeParameterSpan parameter;
    pos = SkipSpaces(s, pos + 1, n);
    parameter.name_begin = static_cast<uint32_t>(pos);
    pos = SkipToken(s, pos, n);
    if (pos == parameter.name_begin) return ContentTypeError::kInvalidParameterFormat;
    parameter.name_end = static_cast<uint32_t>(pos);
    parameter.name_has_upper = HasUpper(s, parameter.name_begin, pos);
    pos = SkipSpaces(s, pos, n);
    if (pos == n || s[pos] != '=') return ContentTypeError::kInvalidParameterFormat;
    pos = SkipSpaces(s, pos + 1, n);
    if (pos < n && s[pos] == '"') {
      ++pos;
      parameter.value_begin = static_cast<uint32_t>(pos);
      for (;;) {
        if (pos == n) return ContentTypeError::kInvalidParameterFormat;
        const Char c = s[pos];
        if (c == '"') break;
        if (c == '\\') {
          if (pos + 1 == n || !Is(s[pos + 1], kQuotedPairEnd))
            return ContentTypeError::kInvalidParameterFormat;
          parameter.has_escapes = true;
          pos += 2;
        } else if (Is(c, kQuotedText)) {
          ++pos;
        } else {
          return ContentTypeError::kInvalidParameterFormat;
        }
      }
      parameter.value_end = static_cast<uint32_t>(pos);
      ++pos;  // closing quote
    } else {
      parameter.value_begin = static_cast<uint32_t>(pos);
      pos = SkipToken(s, pos, n);
      if (pos == parameter.value_begin) return ContentTypeError::kInvalidParameterFormat;
      parameter.value_end = static_cast<uint32_t>(pos);
    }
    pos = SkipSpaces(s, pos, n);
    if (sink != nullptr) sink->OnParameter(parameter);
  }
  return ContentTypeError::kNone;
}

void AppendLowerAscii(std::string_view from, std::string* to) {
  for (char c : from) to->push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
}

class MediaTypeBuilder final : public MediaTypeParameterSink {
 public:
  MediaTypeBuilder(std::string_view header, MediaType* out) : header_(header), out_(out) {}

  void OnParameter(const MediaTypeParameterSpan& p) override {
    std::string name;
    AppendLowerAscii(header_.substr(p.name_begin, p.name_end - p.name_begin), &name);
    const std::string_view raw = header_.substr(p.value_begin, p.value_end - p.value_begin);
    std::string value = p.has_escapes ? UnescapeQuotedString(raw) : std::string(raw);
    // Like assigning to a JavaScript object: a repeated name keeps its place, the last value wins.
    for (auto& existing : out_->parameters) {
      if (existing.first == name) {
        existing.second = std::move(value);
        return;
      }
    }
    out_->parameters.emplace_back(std::move(name), std::move(value));
  }

 private:
  std::string_view header_;
  MediaType* out_;
};

}  // namespace

const char* ContentTypeErrorMessage(ContentTypeError error) {
  switch (error) {
    case ContentTypeError::kNone:
      return "";
    case ContentTypeError::kInvalidMediaType:
      return "invalid media type";
    case ContentTypeError::kInvalidParameterFormat:
      return "invalid parameter format";
  }
  return "";
}

ContentTypeError ScanMediaType(std::u16string_view header, MediaTypeSpan* type,
                               MediaTypeParameterSink* sink) {
  return Scan(header.data(), header.size(), type, sink);
}

ContentTypeError ScanMediaType(std::string_view latin1_header, MediaTypeSpan* type,
                               MediaTypeParameterSink* sink) {
  return Scan(reinterpret_cast<const unsigned char*>(latin1_header.data()), latin1_header.size(),
              type, sink);
}

ContentTypeError ParseMediaType(std::string_view latin1_header, MediaType* out) {
  out->type.clear();
  out->parameters.clear();
  MediaTypeSpan type;
  MediaTypeBuilder builder(latin1_header, out);
  const ContentTypeError error = ScanMediaType(latin1_header, &type, &builder);
  if (error != ContentTypeError::kNone) return error;
  AppendLowerAscii(latin1_header.substr(type.begin, type.end - type.begin), &out->type);
  return error;
}

std::string UnescapeQuotedString(std::string_view latin1_inner) {
  std::string out;
  out.reserve(latin1_inner.size());
  for (size_t i = 0; i < latin1_inner.size(); ++i) {
    if (latin1_inner[i] == '\\' && i + 1 < latin1_inner.size()) ++i;
    out.push_back(latin1_inner[i]);
  }
  return out;
}

}  // namespace ssr_native
