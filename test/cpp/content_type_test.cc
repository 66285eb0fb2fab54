#include "ssr_native/content_type.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace ssr_native {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

ContentTypeError Parse(const std::string& header, MediaType* out) {
  return ParseMediaType(header, out);
}

void ExpectParses(const std::string& header, const std::string& type, const Params& params) {
  MediaType media;
  ASSERT_EQ(Parse(header, &media), ContentTypeError::kNone) << header;
  EXPECT_EQ(media.type, type) << header;
  EXPECT_EQ(media.parameters, params) << header;
}

void ExpectError(const std::string& header, ContentTypeError error) {
  MediaType media;
  EXPECT_EQ(Parse(header, &media), error) << header;
}

TEST(ContentType, PlainTypes) {
  ExpectParses("text/html", "text/html", {});
  ExpectParses("application/vnd.api+json", "application/vnd.api+json", {});
  ExpectParses("IMAGE/SVG+XML", "image/svg+xml", {});
  ExpectParses("!#$%&'*+.^_`|~-/0aZ", "!#$%&'*+.^_`|~-/0az", {});
}

TEST(ContentType, TrimsJavaScriptWhitespaceAroundTheType) {
  ExpectParses(" \t\n\v\f\rtext/html \t\r\n", "text/html", {});
  ExpectParses("\xA0text/plain\xA0", "text/plain", {});
  ExpectParses("text/plain\t; charset=utf-8", "text/plain", {{"charset", "utf-8"}});
  std::u16string wide = u"\u3000\uFEFF\u2028text/html\u205F\u1680\u2000\u200A";
  MediaTypeSpan type;
  EXPECT_EQ(ScanMediaType(wide, &type, nullptr), ContentTypeError::kNone);
  EXPECT_EQ(wide.substr(type.begin, type.end - type.begin), u"text/html");
  EXPECT_FALSE(type.has_upper);
  // U+180E and U+200B are not whitespace for String.prototype.trim.
  EXPECT_EQ(ScanMediaType(std::u16string(u"\u180Etext/html"), &type, nullptr),
            ContentTypeError::kInvalidMediaType);
  EXPECT_EQ(ScanMediaType(std::u16string(u"text/html\u200B"), &type, nullptr),
            ContentTypeError::kInvalidMediaType);
}

TEST(ContentType, InvalidMediaTypes) {
  for (const char* header : {"", " ", "text", "text/", "/html", "text/html/x", "text /html",
                             "text/ html", "te\"xt/html", "text/ht@ml", "text/html\x01", "\x85/x",
                             ";charset=utf-8", "text/html=x; a=b", "text\xE9/html"}) {
    ExpectError(header, ContentTypeError::kInvalidMediaType);
  }
}

TEST(ContentType, Parameters) {
  ExpectParses("text/html; charset=utf-8", "text/html", {{"charset", "utf-8"}});
  ExpectParses("text/html;charset=UTF-8", "text/html", {{"charset", "UTF-8"}});
  ExpectParses("text/html ; CharSet  =  utf-8  ", "text/html", {{"charset", "utf-8"}});
  ExpectParses("text/html; a=1; b=2;c=3", "text/html", {{"a", "1"}, {"b", "2"}, {"c", "3"}});
  ExpectParses("multipart/form-data; boundary=\"--abc def\"", "multipart/form-data",
               {{"boundary", "--abc def"}});
  ExpectParses("a/b; q=\"\"", "a/b", {{"q", ""}});
}

TEST(ContentType, QuotedStringsAndEscapes) {
  ExpectParses("a/b; v=\"x\\\"y\"", "a/b", {{"v", "x\"y"}});
  ExpectParses("a/b; v=\"x\\\\y\"", "a/b", {{"v", "x\\y"}});
  ExpectParses("a/b; v=\"\\a\\b\"", "a/b", {{"v", "ab"}});
  ExpectParses("a/b; v=\"\\\x7F\"", "a/b", {{"v", "\x7F"}});  // DEL only as a quoted-pair
  ExpectParses("a/b; v=\"\xE9\\\xFF\"", "a/b", {{"v", "\xE9\xFF"}});
  ExpectParses("a/b; v=\"\x0B\"", "a/b", {{"v", "\x0B"}});  // VT, as the package allows
  ExpectError("a/b; v=\"\t\"", ContentTypeError::kInvalidParameterFormat);
  ExpectError("a/b; v=\"\x7F\"", ContentTypeError::kInvalidParameterFormat);
  ExpectError("a/b; v=\"\\\t\"", ContentTypeError::kInvalidParameterFormat);
  ExpectError("a/b; v=\"abc", ContentTypeError::kInvalidParameterFormat);
  ExpectError("a/b; v=\"abc\\\"", ContentTypeError::kInvalidParameterFormat);
  ExpectError("a/b; v=\"abc\"d", ContentTypeError::kInvalidParameterFormat);
}

TEST(ContentType, ReportsWhereLowerCasingIsNeeded) {
  struct Flags final : MediaTypeParameterSink {
    std::vector<bool> upper;
    void OnParameter(const MediaTypeParameterSpan& p) override {
      upper.push_back(p.name_has_upper);
    }
  } flags;
  MediaTypeSpan type;
  ASSERT_EQ(ScanMediaType(std::string("Text/html; a=B; Z=c; yY=\"Q\""), &type, &flags),
            ContentTypeError::kNone);
  EXPECT_TRUE(type.has_upper);
  EXPECT_EQ(flags.upper, (std::vector<bool>{false, true, true}));
  ASSERT_EQ(ScanMediaType(std::string("text/html"), &type, nullptr), ContentTypeError::kNone);
  EXPECT_FALSE(type.has_upper);
}

TEST(ContentType, LastDuplicateWinsInFirstPosition) {
  ExpectParses("a/b; x=1; y=2; X=3", "a/b", {{"x", "3"}, {"y", "2"}});
}

TEST(ContentType, InvalidParameterFormats) {
  for (const char* header : {"a/b;", "a/b; ", "a/b;;", "a/b; x", "a/b; x=", "a/b; =1", "a/b; x=1;",
                             "a/b; x=1 y=2", "a/b; x=1\t", "a/b;\tx=1", "a/b; x\t=1", "a/b; x=@",
                             "a/b; x=1,y=2", "a/b; x=\xE9", "a/b; x=1 ; ", "a/b; x=1;;y=2"}) {
    ExpectError(header, ContentTypeError::kInvalidParameterFormat);
  }
  MediaTypeSpan type;
  EXPECT_EQ(ScanMediaType(std::u16string(u"a/b; x=\"\u0100\""), &type, nullptr),
            ContentTypeError::kInvalidParameterFormat);
}

TEST(ContentType, ErrorMessagesAreThePackagesOwn) {
  EXPECT_STREQ(ContentTypeErrorMessage(ContentTypeError::kInvalidMediaType), "invalid media type");
  EXPECT_STREQ(ContentTypeErrorMessage(ContentTypeError::kInvalidParameterFormat),
               "invalid parameter format");
  EXPECT_STREQ(ContentTypeErrorMessage(ContentTypeError::kNone), "");
}

TEST(ContentType, UnescapeQuotedString) {
  EXPECT_EQ(UnescapeQuotedString("plain"), "plain");
  EXPECT_EQ(UnescapeQuotedString("a\\\\\\\"b"), "a\\\"b");
}

// An independent oracle: content-type 1.0.5's algorithm written with std::regex (ECMAScript
// grammar, wide characters so Latin-1 ranges compare by code point).
class RegexOracle {
 public:
  RegexOracle()
      : param_(
            L"; *([!#$%&'*+.^_`|~0-9A-Za-z-]+) *= *(\"(?:[\\x0b\\x20\\x21\\x23-\\x5b\\x5d-"
            L"\\x7e\\x80-\\xff]|\\\\[\\x0b\\x20-\\xff])*\"|[!#$%&'*+.^_`|~0-9A-Za-z-]+) *"),
        type_(L"^[!#$%&'*+.^_`|~0-9A-Za-z-]+/[!#$%&'*+.^_`|~0-9A-Za-z-]+$"),
        escape_(L"\\\\([\\x0b\\x20-\\xff])") {}

  ContentTypeError Parse(const std::wstring& header, MediaType* out) const {
    const size_t semicolon = header.find(L';');
    std::wstring type = Trim(header.substr(0, semicolon));
    if (!std::regex_match(type, type_)) return ContentTypeError::kInvalidMediaType;
    out->type.clear();
    for (wchar_t c : type) out->type.push_back(static_cast<char>(std::tolower(c)));
    out->parameters.clear();
    if (semicolon == std::wstring::npos) return ContentTypeError::kNone;
    size_t index = semicolon;
    std::wsmatch match;
    auto from = header.begin() + static_cast<std::ptrdiff_t>(index);
    while (from != header.end() && std::regex_search(from, header.end(), match, param_)) {
      if (static_cast<size_t>(match[0].first - header.begin()) != index)
        return ContentTypeError::kInvalidParameterFormat;
      index += static_cast<size_t>(match.length(0));
      from = match[0].second;
      std::string name;
      for (wchar_t c : match.str(1)) name.push_back(static_cast<char>(std::tolower(c)));
      std::wstring value = match.str(2);
      if (value[0] == L'"')
        value = std::regex_replace(value.substr(1, value.size() - 2), escape_, L"$1");
      std::string narrow;
      for (wchar_t c : value) narrow.push_back(static_cast<char>(c));
      bool replaced = false;
      for (auto& p : out->parameters) {
        if (p.first == name) {
          p.second = narrow;
          replaced = true;
        }
      }
      if (!replaced) out->parameters.emplace_back(name, narrow);
    }
    if (index != header.size()) return ContentTypeError::kInvalidParameterFormat;
    return ContentTypeError::kNone;
  }

 private:
  static bool IsTrimmed(wchar_t c) {
    return c == 0x20 || (c >= 0x09 && c <= 0x0D) || c == 0xA0;  // Latin-1 inputs only
  }
  static std::wstring Trim(const std::wstring& s) {
    size_t b = 0, e = s.size();
    while (b < e && IsTrimmed(s[b])) ++b;
    while (e > b && IsTrimmed(s[e - 1])) --e;
    return s.substr(b, e - b);
  }

  std::wregex param_;
  std::wregex type_;
  std::wregex escape_;
};

// Random headers built from the grammar's pieces and a few wrong ones, so that most inputs are
// near-valid and every branch of the scanner is taken.
std::string RandomHeader(std::mt19937* rng) {
  static const char* const kPieces[] = {
      "text",  "/",    "html", "TEXT", ";",    " ",    "=",    "\"",   "\\", "\t",   "a",
      "utf-8", "x+y",  "\xE9", "\xFF", "\x7F", "\x0B", "\x01", "@",    ",",  "\xA0", "\n",
      "\\\"",  "\\\\", "q",    "0",    "!#",   "  ",   "\"\"", "\x80", "\r", "/a",   "; b=c"};
  std::uniform_int_distribution<size_t> piece(0, sizeof(kPieces) / sizeof(kPieces[0]) - 1);
  std::uniform_int_distribution<int> count(0, 14);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string header = (*rng)() % 2 ? "text/html" : "";
  const int n = count(*rng);
  for (int i = 0; i < n; ++i) {
    if ((*rng)() % 8 == 0) {
      header.push_back(static_cast<char>(byte(*rng)));
    } else {
      header += kPieces[piece(*rng)];
    }
  }
  return header;
}

TEST(ContentType, RandomizedAgainstRegexOracle) {
  RegexOracle oracle;
  std::mt19937 rng(20261130);
  int valid = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string header = RandomHeader(&rng);
    std::wstring wide;
    for (unsigned char c : header) wide.push_back(static_cast<wchar_t>(c));
    MediaType ours, expected;
    const ContentTypeError got = ParseMediaType(header, &ours);
    const ContentTypeError want = oracle.Parse(wide, &expected);
    ASSERT_EQ(got, want) << "header: " << header;
    if (got == ContentTypeError::kNone) {
      ++valid;
      ASSERT_EQ(ours.type, expected.type) << header;
      ASSERT_EQ(ours.parameters, expected.parameters) << header;
    }
  }
  EXPECT_GT(valid, 1000);  // the generator must reach the valid grammar, not only errors
}

TEST(ContentType, Utf16AndLatin1ScansAgree) {
  std::mt19937 rng(7);
  struct Collect final : MediaTypeParameterSink {
    std::vector<uint32_t> offsets;
    void OnParameter(const MediaTypeParameterSpan& p) override {
      offsets.insert(offsets.end(), {p.name_begin, p.name_end, p.value_begin, p.value_end,
                                     static_cast<uint32_t>(p.has_escapes),
                                     static_cast<uint32_t>(p.name_has_upper)});
    }
  };
  for (int i = 0; i < 20000; ++i) {
    const std::string header = RandomHeader(&rng);
    std::u16string wide;
    for (unsigned char c : header) wide.push_back(c);
    Collect a, b;
    MediaTypeSpan ta, tb;
    const auto ea = ScanMediaType(header, &ta, &a);
    const auto eb = ScanMediaType(wide, &tb, &b);
    ASSERT_EQ(ea, eb) << header;
    if (ea == ContentTypeError::kNone) {
      EXPECT_EQ(ta.begin, tb.begin);
      EXPECT_EQ(ta.end, tb.end);
      EXPECT_EQ(ta.has_upper, tb.has_upper);
      EXPECT_EQ(a.offsets, b.offsets);
    }
  }
}

}  // namespace
}  // namespace ssr_native
