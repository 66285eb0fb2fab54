// A rule's selector as beasties evaluates it: postcss's list.comma split, beasties'
// normalizeCssSelector (pseudo-classes and pseudo-elements removed by its regular expression,
// combinators left empty given a "*"), css-what 8's grammar, then css-select 7's compilation
// (lowercased names, case-insensitive HTML attributes, selectors that can never match, and the
// shapes it throws on, which beasties leaves out of the critical CSS).
#include <cctype>
#include <cstring>

#include "critical_css_internal.h"

namespace ssr_native {
namespace critical_css {
namespace {

// Length of the JavaScript `\s` character at s[i] (UTF-8), 0 when it is not one.
size_t JsSpaceAt(std::string_view s, size_t i) {
  if (i >= s.size()) return 0;
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= 0x09 && c <= 0x0d)) return 1;
  if (c < 0x80) return 0;
  auto at = [&](size_t k) -> unsigned {
    return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u;
  };
  if (c == 0xC2 && at(i + 1) == 0xA0) return 2;
  if (c == 0xE1 && at(i + 1) == 0x9A && at(i + 2) == 0x80) return 3;
  if (c == 0xE2 && at(i + 1) == 0x80) {
    const unsigned d = at(i + 2);
    if ((d >= 0x80 && d <= 0x8A) || d == 0xA8 || d == 0xA9 || d == 0xAF) return 3;
  }
  if (c == 0xE2 && at(i + 1) == 0x81 && at(i + 2) == 0x9F) return 3;
  if (c == 0xE3 && at(i + 1) == 0x80 && at(i + 2) == 0x80) return 3;
  if (c == 0xEF && at(i + 1) == 0xBB && at(i + 2) == 0xBF) return 3;
  return 0;
}

// A line terminator for JavaScript's "." (\n, \r, U+2028, U+2029).
bool LineTerminatorAt(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == '\n' || c == '\r') return true;
  return c == 0xE2 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
         (static_cast<unsigned char>(s[i + 2]) == 0xA8 ||
          static_cast<unsigned char>(s[i + 2]) == 0xA9);
}

size_t Utf8Length(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xF0) return 4;
  if (c >= 0xE0) return 3;
  if (c >= 0xC0) return 2;
  return 1;
}

std::string_view JsTrim(std::string_view s) {
  size_t b = 0;
  while (b < s.size()) {
    const size_t k = JsSpaceAt(s, b);
    if (k == 0) break;
    b += k;
  }
  size_t e = s.size();
  while (e > b) {
    // step back one code point and test it
    size_t k = e - 1;
    while (k > b && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    if (JsSpaceAt(s, k) != e - k) break;
    e = k;
  }
  return s.substr(b, e - b);
}

bool IsCombinatorChar(char c) { return c == '>' || c == '+' || c == '~'; }

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    if (cp > 0x10FFFF) cp = 0xFFFD;
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// css-what's unescapeCSS.
std::string UnescapeCss(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i++]);
      continue;
    }
    size_t j = i + 1;
    if (IsHex(s[j])) {
      uint32_t cp = 0;
      size_t k = j;
      while (k < s.size() && k < j + 6 && IsHex(s[k])) {
        const char h = s[k];
        cp = cp * 16 + static_cast<uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
        ++k;
      }
      k += JsSpaceAt(s, k);
      AppendUtf8(cp, &out);
      i = k;
      continue;
    }
    const size_t ws = JsSpaceAt(s, j);
    if (ws > 0) {
      out.append(s.substr(j, ws));
      i = j + ws;
      continue;
    }
    if (LineTerminatorAt(s, j)) {
      out.push_back(s[i++]);
      continue;
    }
    const size_t len = Utf8Length(static_cast<unsigned char>(s[j]));
    out.append(s.substr(j, len));
    i = j + len;
  }
  return out;
}

// One unit of css-what's reName after the optional first character, or 0.
size_t NameUnitAt(std::string_view s, size_t i) {
  if (i >= s.size()) return 0;
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == '\\') {
    if (i + 1 >= s.size()) return 0;
    if (IsHex(s[i + 1])) {
      size_t k = i + 1;
      while (k < s.size() && k < i + 7 && IsHex(s[k])) ++k;
      return k + JsSpaceAt(s, k) - i;
    }
    if (LineTerminatorAt(s, i + 1)) return 0;
    return 1 + Utf8Length(static_cast<unsigned char>(s[i + 1]));
  }
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
      c == '-') {
    return 1;
  }
  if (c >= 0x80) {
    // U+0080..U+00AF are outside [\u00B0-\uFFFF].
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xB0) return 0;
    return Utf8Length(c);
  }
  return 0;
}

size_t NameUnitsFrom(std::string_view s, size_t i) {
  size_t p = i;
  for (;;) {
    const size_t k = NameUnitAt(s, p);
    if (k == 0) break;
    p += k;
  }
  return p - i;
}

// css-what's reName at i: the length of the match, 0 for none.
size_t MatchName(std::string_view s, size_t i) {
  if (i >= s.size()) return 0;
  const char c = s[i];
  if (c != '#' && c != '\\') {
    const size_t first = Utf8Length(static_cast<unsigned char>(c));
    const size_t rest = NameUnitsFrom(s, i + first);
    if (rest > 0) return first + rest;
  }
  return NameUnitsFrom(s, i);
}

bool IsCssWhite(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }

const char* const kCaseInsensitiveAttributes[] = {
    "accept",     "accept-charset", "align",     "alink",    "axis",     "bgcolor", "charset",
    "checked",    "clear",          "codetype",  "color",    "compact",  "declare", "defer",
    "dir",        "direction",      "disabled",  "enctype",  "face",     "frame",   "hreflang",
    "http-equiv", "lang",           "language",  "link",     "media",    "method",  "multiple",
    "nohref",     "noresize",       "noshade",   "nowrap",   "readonly", "rel",     "rev",
    "rules",      "scope",          "scrolling", "selected", "shape",    "target",  "text",
    "type",       "valign",         "valuetype", "vlink"};

bool CaseInsensitiveAttribute(const std::string& name) {
  for (const char* a : kCaseInsensitiveAttributes) {
    if (name == a) return true;
  }
  return false;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

// css-what tokens, the subset beasties can meet after normalization.
enum class TokenType : uint8_t {
  kTag,
  kUniversal,
  kAttribute,
  kDescendant,
  kChild,
  kParent,
  kSibling,
  kAdjacent,
  kColumn,
  kPseudo
};
struct Token {
  TokenType type;
  std::string name;
  std::string value;
  AttrAction action = AttrAction::kExists;
  int ignore_case = -1;  // -1 null, 0 false, 1 true, 2 "quirks"
  bool namespaced = false;
};

bool IsTraversal(TokenType t) {
  return t == TokenType::kDescendant || t == TokenType::kChild || t == TokenType::kParent ||
         t == TokenType::kSibling || t == TokenType::kAdjacent || t == TokenType::kColumn;
}

// css-what's parse(); false where it throws.
bool ParseSelectorGroups(std::string_view s, std::vector<std::vector<Token>>* groups) {
  size_t i = 0;
  std::vector<Token> tokens;
  auto strip = [&](size_t offset) {
    i += offset;
    while (i < s.size() && IsCssWhite(s[i])) ++i;
  };
  auto get_name = [&](size_t offset, std::string* name) -> bool {
    const size_t len = MatchName(s, i + offset);
    if (len == 0) return false;
    *name = UnescapeCss(s.substr(i + offset, len));
    i += offset + len;
    return true;
  };
  auto add_traversal = [&](TokenType type) -> bool {
    if (!tokens.empty() && tokens.back().type == TokenType::kDescendant) {
      tokens.back().type = type;
      return true;
    }
    if (!tokens.empty() && IsTraversal(tokens.back().type)) return false;
    Token t;
    t.type = type;
    tokens.push_back(std::move(t));
    return true;
  };
  auto finalize = [&]() -> bool {
    if (!tokens.empty() && tokens.back().type == TokenType::kDescendant) tokens.pop_back();
    if (tokens.empty()) return false;
    groups->push_back(std::move(tokens));
    tokens.clear();
    return true;
  };
  strip(0);
  if (i == s.size()) return true;
  while (i < s.size()) {
    const char c = s[i];
    switch (c) {
      case ' ':
      case '\t':
      case '\n':
      case '\f':
      case '\r': {
        if (tokens.empty() || tokens[0].type != TokenType::kDescendant) {
          if (!tokens.empty() && IsTraversal(tokens.back().type)) return false;
          Token t;
          t.type = TokenType::kDescendant;
          tokens.push_back(std::move(t));
        }
        strip(1);
        break;
      }
      case '>':
        if (!add_traversal(TokenType::kChild)) return false;
        strip(1);
        break;
      case '<':
        if (!add_traversal(TokenType::kParent)) return false;
        strip(1);
        break;
      case '~':
        if (!add_traversal(TokenType::kSibling)) return false;
        strip(1);
        break;
      case '+':
        if (!add_traversal(TokenType::kAdjacent)) return false;
        strip(1);
        break;
      case '.':
      case '#': {
        Token t;
        t.type = TokenType::kAttribute;
        t.name = c == '.' ? "class" : "id";
        t.action = c == '.' ? AttrAction::kElement : AttrAction::kEquals;
        t.ignore_case = 2;
        if (!get_name(1, &t.value)) return false;
        tokens.push_back(std::move(t));
        break;
      }
      case '[': {
        strip(1);
        Token t;
        t.type = TokenType::kAttribute;
        if (i < s.size() && s[i] == '|') {
          if (!get_name(1, &t.name)) return false;
        } else if (s.compare(i, 2, "*|") == 0) {
          t.namespaced = true;
          if (!get_name(2, &t.name)) return false;
        } else {
          if (!get_name(0, &t.name)) return false;
          if (i < s.size() && s[i] == '|' && !(i + 1 < s.size() && s[i + 1] == '=')) {
            t.namespaced = true;
            if (!get_name(1, &t.name)) return false;
          }
        }
        strip(0);
        AttrAction action = AttrAction::kExists;
        bool has_action = false;
        if (i < s.size()) {
          switch (s[i]) {
            case '~':
              action = AttrAction::kElement;
              has_action = true;
              break;
            case '^':
              action = AttrAction::kStart;
              has_action = true;
              break;
            case '$':
              action = AttrAction::kEnd;
              has_action = true;
              break;
            case '*':
              action = AttrAction::kAny;
              has_action = true;
              break;
            case '!':
              action = AttrAction::kNot;
              has_action = true;
              break;
            case '|':
              action = AttrAction::kHyphen;
              has_action = true;
              break;
            default:
              break;
          }
        }
        if (has_action) {
          if (!(i + 1 < s.size() && s[i + 1] == '=')) return false;
          strip(2);
        } else if (i < s.size() && s[i] == '=') {
          action = AttrAction::kEquals;
          strip(1);
        }
        t.action = action;
        if (action != AttrAction::kExists) {
          if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
            const char q = s[i];
            ++i;
            const size_t start = i;
            while (i < s.size() && s[i] != q) i += s[i] == '\\' ? 2 : 1;
            if (i >= s.size() || s[i] != q) return false;
            t.value = UnescapeCss(s.substr(start, i - start));
            ++i;
          } else {
            const size_t start = i;
            while (i < s.size() && !IsCssWhite(s[i]) && s[i] != ']') i += s[i] == '\\' ? 2 : 1;
            if (i > s.size()) i = s.size();
            t.value = UnescapeCss(s.substr(start, i - start));
          }
          strip(0);
          if (i < s.size()) {
            const char f = static_cast<char>(s[i] | 0x20);
            if (f == 'i') {
              t.ignore_case = 1;
              strip(1);
            } else if (f == 's') {
              t.ignore_case = 0;
              strip(1);
            }
          }
        }
        if (i >= s.size() || s[i] != ']') return false;
        ++i;
        tokens.push_back(std::move(t));
        break;
      }
      case ':': {
        // Anything left that css-what reads as a pseudo-class or pseudo-element: css-select
        // throws on it or beasties never keeps it; parse only to keep the error position.
        return false;  // the caller treats it as "never", as for a parse error
      }
      case ',': {
        if (!finalize()) return false;
        strip(1);
        break;
      }
      default: {
        if (s.compare(i, 2, "/*") == 0) {
          const size_t e = s.find("*/", i + 2);
          if (e == std::string_view::npos) return false;
          i = e + 2;
          if (tokens.empty()) strip(0);
          break;
        }
        Token t;
        std::string name;
        if (c == '*') {
          ++i;
          name = "*";
        } else if (c == '|') {
          if (i + 1 < s.size() && s[i + 1] == '|') {
            if (!add_traversal(TokenType::kColumn)) return false;
            strip(2);
            break;
          }
        } else if (MatchName(s, i) > 0) {
          if (!get_name(0, &name)) return false;
        } else {
          goto done;
        }
        if (i < s.size() && s[i] == '|' && !(i + 1 < s.size() && s[i + 1] == '|')) {
          t.namespaced = true;
          if (i + 1 < s.size() && s[i + 1] == '*') {
            name = "*";
            i += 2;
          } else if (!get_name(1, &name)) {
            return false;
          }
        }
        t.type = name == "*" ? TokenType::kUniversal : TokenType::kTag;
        t.name = std::move(name);
        tokens.push_back(std::move(t));
        break;
      }
    }
  }
done:
  if (!finalize()) return false;
  return i >= s.size();  // "Unmatched selector"
}

bool HasJsSpace(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (JsSpaceAt(s, i) > 0) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string_view> SplitSelectorList(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  size_t func = 0;
  bool in_quote = false;
  char quote = 0;
  bool escape = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    bool split = false;
    if (escape) {
      escape = false;
    } else if (c == '\\') {
      escape = true;
    } else if (in_quote) {
      if (c == quote) in_quote = false;
    } else if (c == '"' || c == '\'') {
      in_quote = true;
      quote = c;
    } else if (c == '(') {
      ++func;
    } else if (c == ')') {
      if (func > 0) --func;
    } else if (func == 0 && c == ',') {
      split = true;
    }
    if (split) {
      if (i > start) out.push_back(JsTrim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(JsTrim(s.substr(start)));
  return out;
}

std::string NormalizeSelector(std::string_view s) {
  // 1. /(?<!\\)::?[a-z-]+(?:\(.+\))?/gi -> ""
  std::string a;
  a.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ':' && (i == 0 || s[i - 1] != '\\')) {
      auto name_end = [&](size_t from) {
        size_t k = from;
        while (k < s.size() &&
               ((s[k] | 0x20) >= 'a' && (s[k] | 0x20) <= 'z' ? true : s[k] == '-')) {
          ++k;
        }
        return k;
      };
      size_t j = i + 1;
      size_t k = 0;
      if (j < s.size() && s[j] == ':') {
        k = name_end(j + 1);
        if (k == j + 1) k = 0;  // "::" then no name: try ":" alone (fails: ":" is no name)
      } else {
        k = name_end(j);
        if (k == j) k = 0;
      }
      if (k > 0) {
        size_t end = k;
        if (k < s.size() && s[k] == '(') {
          size_t line_end = k + 1;
          while (line_end < s.size() && !LineTerminatorAt(s, line_end)) ++line_end;
          for (size_t m = line_end; m > k + 1; --m) {
            if (s[m - 1] == ')' && m - 1 >= k + 2) {
              end = m;
              break;
            }
          }
        }
        i = end;
        continue;
      }
    }
    a.push_back(s[i]);
    ++i;
  }
  // 2. /\(\s*,|,\s*\)/g -> "(" or ")"
  std::string b;
  b.reserve(a.size());
  i = 0;
  while (i < a.size()) {
    if (a[i] == '(') {
      size_t j = i + 1;
      for (size_t k; (k = JsSpaceAt(a, j)) > 0;) j += k;
      if (j < a.size() && a[j] == ',') {
        b.push_back('(');
        i = j + 1;
        continue;
      }
    } else if (a[i] == ',') {
      size_t j = i + 1;
      for (size_t k; (k = JsSpaceAt(a, j)) > 0;) j += k;
      if (j < a.size() && a[j] == ')') {
        b.push_back(')');
        i = j + 1;
        continue;
      }
    }
    b.push_back(a[i]);
    ++i;
  }
  // 3. /([>+~])\s*(?!\1)([>+~])/g -> "$1 * $2"
  std::string c;
  c.reserve(b.size() + 8);
  i = 0;
  while (i < b.size()) {
    if (IsCombinatorChar(b[i])) {
      size_t j = i + 1;
      for (size_t k; (k = JsSpaceAt(b, j)) > 0;) j += k;
      if (j < b.size() && IsCombinatorChar(b[j]) && b[j] != b[i]) {
        c.push_back(b[i]);
        c.append(" * ");
        c.push_back(b[j]);
        i = j + 1;
        continue;
      }
    }
    c.push_back(b[i]);
    ++i;
  }
  // 4. /([>+~])\s*(?=\1|$)/g -> "$1 *"
  std::string d;
  d.reserve(c.size() + 8);
  i = 0;
  while (i < c.size()) {
    if (IsCombinatorChar(c[i])) {
      size_t j = i + 1;
      for (size_t k; (k = JsSpaceAt(c, j)) > 0;) j += k;
      if (j == c.size() || c[j] == c[i]) {
        d.push_back(c[i]);
        d.append(" *");
        i = j;
        continue;
      }
    }
    d.push_back(c[i]);
    ++i;
  }
  return std::string(JsTrim(d));
}

bool IsAlwaysCritical(std::string_view s) {
  return s == ":root" || s == "html" || s == "body" || s == ":before" || s == "::before" ||
         s == ":after" || s == "::after";
}

namespace {

// A pseudo-class or pseudo-element at s[i] (`:root`, `:not(...)`, `::x`): its length (0 when
// there is none), its name, and the text between its parentheses (null data without them).
struct Pseudo {
  size_t length = 0;
  std::string_view name;
  std::string_view args;
};

Pseudo PseudoAt(std::string_view s, size_t i) {
  Pseudo p;
  size_t j = i;
  while (j < s.size() && j < i + 2 && s[j] == ':') ++j;
  if (j == i) return p;
  const size_t begin = j;
  while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '-')) ++j;
  if (j == begin) return p;
  p.name = s.substr(begin, j - begin);
  if (j == s.size() || s[j] != '(') {
    p.length = j - i;
    return p;
  }
  int depth = 0;
  for (size_t k = j; k < s.size(); ++k) {
    if (s[k] == '\\') {
      ++k;
    } else if (s[k] == '(') {
      ++depth;
    } else if (s[k] == ')' && --depth == 0) {
      p.args = s.substr(j + 1, k - j - 1);
      p.length = k + 1 - i;
      return p;
    }
  }
  return Pseudo();  // unclosed
}

CompiledSelector CompileSelectorAt(std::string_view selector, const Limits& limits, int depth);

// A selector beasties' normalization leaves empty, as the browser reads it. Pseudo-elements alone
// (`::file-selector-button`): applied wherever the element has that part, as `*::x`. `:root`
// with pseudo-classes (`:root:not([data-theme=dark])`): the document element, which every page
// has, its pseudo-classes stripped as beasties strips them everywhere. `:is(list)` /
// `:where(list)`: any selector of the list (Pico's `:where(:root)`, daisyUI's
// `:where(:root,[data-theme])`). Anything else: left out, as beasties does
// (docs/critical-css-differences.md).
CompiledSelector CompileEmptied(std::string_view selector, const Limits& limits, int depth) {
  CompiledSelector out;
  const std::string_view s = JsTrim(selector);
  const Pseudo first = PseudoAt(s, 0);
  if (first.length == 0) return out;
  if (s.size() > 2 && s[0] == ':' && s[1] == ':') {
    out.mode = SelectorMode::kAlways;
    return out;
  }
  // Compounds of pseudo-classes alone joined by combinators: each before the last reads as any
  // element, as beasties strips pseudo-classes (Pico's `:where(p, ul) ~ :is(h1, h2)` as
  // `* ~ h1`, `* ~ h2`).
  std::string prefix;
  size_t last = 0;  // where the last compound begins
  for (size_t i = first.length; i < s.size();) {
    const size_t n = PseudoAt(s, i).length;
    if (n > 0) {
      i += n;
      continue;
    }
    std::string combinator = " ";
    size_t j = i;
    for (; j < s.size() && (IsCssWhite(s[j]) || IsCombinatorChar(s[j])); ++j) {
      if (!IsCombinatorChar(s[j])) continue;
      if (combinator != " ") return out;
      combinator = std::string(" ") + s[j] + " ";
    }
    if (j == i || j == s.size()) return out;
    prefix += "*" + combinator;
    last = i = j;
  }
  const Pseudo subject = PseudoAt(s, last);
  const std::string_view name = subject.name;
  const std::string_view args = subject.args;
  if (name == "root" && args.data() == nullptr) {
    if (!prefix.empty()) return out;
    out.mode = SelectorMode::kAlways;
    return out;
  }
  if ((name != "is" && name != "where") || args.data() == nullptr || depth >= 4) return out;
  // The list, each selector compiled as css-select matches it (no class / id cache).
  for (std::string_view item : SplitSelectorList(args)) {
    CompiledSelector one = CompileSelectorAt(prefix + std::string(item), limits, depth + 1);
    switch (one.mode) {
      case SelectorMode::kAlways:
        return one;
      case SelectorMode::kNever:
        break;
      case SelectorMode::kFastPath:
        for (FastToken& f : one.fast) {
          ComplexSelector cs;
          cs.compounds.emplace_back();
          AttrTest a;
          a.name = f.is_class ? "class" : "id";
          a.action = f.is_class ? AttrAction::kElement : AttrAction::kEquals;
          a.value = std::move(f.value);
          cs.compounds.back().attrs.push_back(std::move(a));
          out.groups.push_back(std::move(cs));
        }
        break;
      case SelectorMode::kMatch:
        for (ComplexSelector& cs : one.groups) out.groups.push_back(std::move(cs));
        break;
    }
  }
  if (!out.groups.empty()) out.mode = SelectorMode::kMatch;
  return out;
}

}  // namespace

CompiledSelector CompileSelector(std::string_view selector, const Limits& limits) {
  return CompileSelectorAt(selector, limits, 0);
}

namespace {

CompiledSelector CompileSelectorAt(std::string_view selector, const Limits& limits, int depth) {
  CompiledSelector out;
  if (IsAlwaysCritical(selector)) {
    out.mode = SelectorMode::kAlways;
    return out;
  }
  if (selector.size() > limits.max_selector_bytes) return out;  // kNever
  std::string normalized = NormalizeSelector(selector);
  if (normalized.empty()) return CompileEmptied(selector, limits, depth);
  // A first compound of pseudo-classes alone (UIkit's `:not(pre) > code`): the normalization
  // leaves the combinator first, which css-select reads from the container (`:scope > code`);
  // the browser reads the compound as any element, as `* > code`
  // (docs/critical-css-differences.md).
  const std::string_view raw = JsTrim(selector);
  if (raw.size() > 1 && raw[0] == ':' && raw[1] != ':' && IsCombinatorChar(normalized[0]))
    normalized.insert(0, "* ");
  std::vector<std::vector<Token>> groups;
  if (!ParseSelectorGroups(normalized, &groups)) {
    // beasties' normalization takes a pseudo-class with its parentheses only when they close on
    // the same line: Font Awesome's `:is(.fas,\n.fab)::before` leaves `(.fas,\n.fab)`, which
    // css-what refuses, so beasties drops it. The browser reads a line break as a space: such a
    // selector is read as written on one line (docs/critical-css-differences.md).
    if (selector.find_first_of("\n\r") == std::string_view::npos) return out;
    std::string one_line(selector);
    for (char& c : one_line) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return CompileSelectorAt(one_line, limits, depth);
  }
  // beasties' cache shortcut: every group a single token, at least one of them class / id.
  // Taken only where the cache reads the token as the browser does (`.x`, `#x`, `[class=x]`,
  // `[class~=x]`): beasties also reads `[class*=x]`, `^=`, `$=`, `|=`, `[class]` and an `i`
  // flag as the whole class `x`, leaving out rules that paint (docs/critical-css-differences.md);
  // those go through css-select's matching.
  bool all_single = !groups.empty();
  for (const auto& g : groups) {
    if (g.size() != 1) {
      all_single = false;
    } else if (g[0].type == TokenType::kAttribute && (g[0].name == "class" || g[0].name == "id") &&
               ((g[0].action != AttrAction::kElement && g[0].action != AttrAction::kEquals) ||
                g[0].ignore_case == 1)) {
      all_single = false;
    }
  }
  if (all_single) {
    std::vector<FastToken> fast;
    for (const auto& g : groups) {
      const Token& t = g[0];
      if (t.type == TokenType::kAttribute && (t.name == "class" || t.name == "id")) {
        FastToken f;
        f.is_class = t.name == "class";
        f.value = t.value;
        fast.push_back(std::move(f));
      }
    }
    if (!fast.empty()) {
      out.mode = SelectorMode::kFastPath;
      out.fast = std::move(fast);
      return out;
    }
  }
  // css-select's compilation: a throw anywhere leaves the selector out.
  std::vector<ComplexSelector> compiled;
  for (auto& g : groups) {
    ComplexSelector cs;
    bool never = false;
    size_t start = 0;
    if (!g.empty() && IsTraversal(g[0].type) && g[0].type != TokenType::kDescendant) {
      if (g[0].type == TokenType::kChild) {
        cs.scope_child = true;
      } else {
        never = true;  // ":scope + x", ":scope ~ x" under <html>: nothing in reach
      }
      start = 1;
    }
    Compound current;
    bool have_compound = false;
    for (size_t k = start; k < g.size(); ++k) {
      Token& t = g[k];
      switch (t.type) {
        case TokenType::kPseudo:
        case TokenType::kColumn:
          return CompiledSelector();  // css-select throws
        case TokenType::kParent:
          never = true;  // "<" is not reproduced; documented
          break;
        case TokenType::kDescendant:
        case TokenType::kChild:
        case TokenType::kSibling:
        case TokenType::kAdjacent:
          cs.compounds.push_back(std::move(current));
          current = Compound();
          have_compound = false;
          cs.combinators.push_back(t.type == TokenType::kDescendant ? Combinator::kDescendant
                                   : t.type == TokenType::kChild    ? Combinator::kChild
                                   : t.type == TokenType::kSibling  ? Combinator::kSibling
                                                                    : Combinator::kAdjacent);
          break;
        // A namespace (`svg|rect`, `*|p`, `[xlink|href]`; css-select refuses them) is read
        // as any: a namespaced attribute matches every element. Keeping too much costs bytes,
        // leaving out what the browser applies costs paint (docs/critical-css-differences.md).
        case TokenType::kUniversal:
          have_compound = true;
          break;
        case TokenType::kTag:
          current.tags.push_back(AsciiLower(t.name));
          have_compound = true;
          break;
        case TokenType::kAttribute: {
          have_compound = true;
          if (t.namespaced) break;
          AttrTest a;
          a.name = AsciiLower(t.name);
          a.action = t.action;
          a.value = t.value;
          a.ignore_case = t.ignore_case == 1 ? true
                          : t.ignore_case == 0 || t.ignore_case == 2
                              ? false
                              : CaseInsensitiveAttribute(a.name);
          if ((a.action == AttrAction::kStart || a.action == AttrAction::kEnd ||
               a.action == AttrAction::kAny) &&
              a.value.empty()) {
            never = true;
          }
          if (a.action == AttrAction::kElement && HasJsSpace(a.value)) never = true;
          if (a.ignore_case) {
            for (char& ch : a.value) {
              if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch + 32);
            }
          }
          current.attrs.push_back(std::move(a));
          have_compound = true;
          break;
        }
      }
    }
    (void)have_compound;
    cs.compounds.push_back(std::move(current));
    if (cs.compounds.size() > 256) never = true;
    if (!never) compiled.push_back(std::move(cs));
  }
  if (compiled.empty()) return out;  // kNever
  out.mode = SelectorMode::kMatch;
  out.groups = std::move(compiled);
  return out;
}

}  // namespace

}  // namespace critical_css
}  // namespace ssr_native
