// The stylesheet as postcss (through postcss-safe-parser, as beasties parses it) sees it: the
// same nodes with the same boundaries, so that the source text of a node is what postcss's
// stringifier writes for it. Only offsets are kept; nothing is copied.
//
// postcss's tokenizer decides the structure: strings (to the matching quote, across lines),
// comments, backslash escapes, `url(` followed by an unquoted value (one token up to ")"),
// parenthesised and bracketed runs (";", "{" and "}" inside them do not end anything), and at
// the top level of a block ";" ends a declaration or a statement at-rule, "{" opens a rule or an
// at-rule's block, "}" closes the block. A custom property (`--x: {...}`) nests braces.
// Iterative (an explicit stack), so deeply nested input cannot exhaust the native stack.
#include <cstring>

#include "critical_css_internal.h"

namespace ssr_native {
namespace critical_css {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// postcss RE_WORD_END: characters that end a word token.
bool IsWordEnd(char c) {
  switch (c) {
    case '\t':
    case '\n':
    case '\f':
    case '\r':
    case ' ':
    case '!':
    case '"':
    case '#':
    case '\'':
    case '(':
    case ')':
    case ':':
    case ';':
    case '@':
    case '[':
    case '\\':
    case ']':
    case '{':
    case '}':
      return true;
    default:
      return false;
  }
}

// postcss RE_AT_END: characters that end an at-word.
bool IsAtEnd(char c) {
  switch (c) {
    case '\t':
    case '\n':
    case '\f':
    case '\r':
    case ' ':
    case '"':
    case '#':
    case '\'':
    case '(':
    case ')':
    case '/':
    case ';':
    case '[':
    case '\\':
    case ']':
    case '{':
    case '}':
      return true;
    default:
      return false;
  }
}

class Parser {
 public:
  explicit Parser(CssTree* tree) : tree_(tree), s_(tree->text), n_(s_.size()) {}

  void Run();

 private:
  // Skips one token starting at p that is not structural; returns the position after it, or p
  // when s_[p] is a structural character the caller handles.
  size_t SkipComment(size_t p) const {
    size_t e = s_.find("*/", p + 2);
    return e == std::string::npos ? n_ : e + 2;
  }
  size_t SkipString(size_t p) const {
    const char q = s_[p];
    size_t i = p + 1;
    while (i < n_) {
      if (s_[i] == '\\') {
        i += 2;
        continue;
      }
      if (s_[i] == q) return i + 1;
      ++i;
    }
    return p + 1;  // unclosed: the quote alone (safe parser)
  }
  bool UrlBefore(size_t p, size_t start) const {
    if (p < start + 3) return false;
    if (std::memcmp(s_.data() + p - 3, "url", 3) != 0) return false;
    return p - 3 == start || IsWordEnd(s_[p - 4]) || s_[p - 4] == '/';
  }
  size_t SkipUrl(size_t p) const {
    size_t next = p;
    for (;;) {
      next = s_.find(')', next + 1);
      if (next == std::string::npos) return p + 1;
      size_t e = next;
      bool escaped = false;
      while (e > 0 && s_[e - 1] == '\\') {
        --e;
        escaped = !escaped;
      }
      if (!escaped) return next + 1;
    }
  }

  struct Scan {
    size_t stop = 0;     // offset of the stopping character (or n_)
    char what = 0;       // ';', '{', '}' or 0 at the end
    bool colon = false;  // ":" at depth 0 before the stop
    size_t colon_at = 0;
    size_t last_sig_end = 0;  // end of the last token that is not space or comment
  };
  Scan ScanStatement(size_t p, bool custom_property) const;
  size_t SwallowedEnd(size_t p);

  uint32_t AddNode(CssKind kind, size_t before_begin, size_t begin, int32_t parent) {
    CssNode node;
    node.kind = kind;
    node.before_begin = static_cast<uint32_t>(before_begin);
    node.begin = static_cast<uint32_t>(begin);
    node.parent = parent;
    tree_->nodes.push_back(node);
    last_child_.push_back(-1);
    const uint32_t index = static_cast<uint32_t>(tree_->nodes.size() - 1);
    if (parent < 0) {
      tree_->roots.push_back(index);
    } else {
      ++tree_->nodes[parent].child_count;
      last_child_[parent] = static_cast<int32_t>(index);
    }
    return index;
  }
  void FillDecl(uint32_t index, size_t begin, const Scan& scan, size_t end);

  CssTree* tree_;
  std::vector<int32_t> last_child_;  // per node, while parsing (the tree's lists come after)
  const std::string& s_;
  size_t n_;
};

Parser::Scan Parser::ScanStatement(size_t p, bool custom_property) const {
  Scan scan;
  scan.last_sig_end = p;
  const size_t start = p;
  std::vector<char> closers;
  while (p < n_) {
    const char c = s_[p];
    if (IsSpace(c)) {
      ++p;
      continue;
    }
    if (c == '/' && p + 1 < n_ && s_[p + 1] == '*') {
      p = SkipComment(p);
      continue;
    }
    if (c == '"' || c == '\'') {
      p = SkipString(p);
      scan.last_sig_end = p;
      continue;
    }
    if (c == '\\') {
      p = p + 2 > n_ ? n_ : p + 2;
      scan.last_sig_end = p;
      continue;
    }
    if (c == '(') {
      if (UrlBefore(p, start)) {
        const char nc = p + 1 < n_ ? s_[p + 1] : 0;
        if (nc != '"' && nc != '\'' && !IsSpace(nc)) {
          p = SkipUrl(p);
          scan.last_sig_end = p;
          continue;
        }
      }
      closers.push_back(')');
      ++p;
      scan.last_sig_end = p;
      continue;
    }
    if (c == '[') {
      closers.push_back(']');
      ++p;
      scan.last_sig_end = p;
      continue;
    }
    if (!closers.empty()) {
      if (c == closers.back()) closers.pop_back();
      ++p;
      scan.last_sig_end = p;
      continue;
    }
    if (c == ';' || c == '}') {
      scan.stop = p;
      scan.what = c;
      return scan;
    }
    if (c == '{') {
      if (custom_property && scan.colon) {
        closers.push_back('}');
        ++p;
        scan.last_sig_end = p;
        continue;
      }
      scan.stop = p;
      scan.what = '{';
      return scan;
    }
    if (c == ':' && !scan.colon) {
      scan.colon = true;
      scan.colon_at = p;
    }
    ++p;
    scan.last_sig_end = p;
  }
  scan.stop = n_;
  scan.what = 0;
  return scan;
}

// A `}` at the top level, as the browser reads it (CSS Syntax 3, "consume a qualified rule"):
// it starts a rule whose prelude runs to the next `{` outside ( ) and [ ] and whose block ends
// at the matching `}`; its selector is invalid, so the whole rule is dropped. p: after the `}`.
// Returns that rule's end (n_ when the sheet ends first). Each further top-level `}` in the
// prelude joins the root's raws.after with the spaces before it, as the safe parser's does.
size_t Parser::SwallowedEnd(size_t p) {
  const size_t start = p;
  std::vector<char> closers;
  while (p < n_) {
    const char c = s_[p];
    if (c == '/' && p + 1 < n_ && s_[p + 1] == '*') {
      p = SkipComment(p);
    } else if (c == '"' || c == '\'') {
      p = SkipString(p);
    } else if (c == '\\') {
      p = p + 2 > n_ ? n_ : p + 2;
    } else if (c == '(' && UrlBefore(p, start) && p + 1 < n_ && s_[p + 1] != '"' &&
               s_[p + 1] != '\'' && !IsSpace(s_[p + 1])) {
      p = SkipUrl(p);
    } else {
      if (c == '(') {
        closers.push_back(')');
      } else if (c == '[') {
        closers.push_back(']');
      } else if (c == '{') {
        closers.push_back('}');
      } else if (!closers.empty() && c == closers.back()) {
        closers.pop_back();
        if (closers.empty() && c == '}') return p + 1;
      } else if (closers.empty() && c == '}') {
        size_t b = p;
        while (b > start && IsSpace(s_[b - 1])) --b;
        tree_->root_after_prefix.append(s_, b, p + 1 - b);
      }
      ++p;
    }
  }
  return n_;
}

void Parser::FillDecl(uint32_t index, size_t begin, const Scan& scan, size_t end) {
  CssNode& node = tree_->nodes[index];
  node.end = static_cast<uint32_t>(end);
  node.a_begin = static_cast<uint32_t>(begin);
  size_t p = begin;
  while (p < scan.colon_at && !IsSpace(s_[p]) &&
         !(s_[p] == '/' && p + 1 < n_ && s_[p + 1] == '*')) {
    ++p;
  }
  node.a_end = static_cast<uint32_t>(p);
  // Value: after ":" and the spaces / comments that follow it.
  size_t v = scan.colon_at + 1;
  const size_t value_limit = scan.last_sig_end;
  for (;;) {
    while (v < value_limit && IsSpace(s_[v])) ++v;
    if (v + 1 < value_limit && s_[v] == '/' && s_[v + 1] == '*') {
      v = SkipComment(v);
      continue;
    }
    break;
  }
  if (v > value_limit) v = value_limit;
  // No word after ":" (only spaces / comments): postcss keeps those spaces in the value.
  if (v == value_limit) v = scan.colon_at + 1;
  node.value_text_begin = static_cast<uint32_t>(v);
  // Semantic value: without a trailing !important.
  size_t ve = value_limit;
  {
    size_t q = ve;
    while (q > v && IsSpace(s_[q - 1])) --q;
    static const char kImportant[] = "important";
    if (q >= v + 9) {
      bool match = true;
      for (size_t i = 0; i < 9; ++i) {
        char ch = s_[q - 9 + i];
        if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch + 32);
        if (ch != kImportant[i]) match = false;
      }
      if (match) {
        size_t r = q - 9;
        while (r > v && IsSpace(s_[r - 1])) --r;
        if (r > v && s_[r - 1] == '!') {
          --r;
          while (r > v && IsSpace(s_[r - 1])) --r;
          ve = r;
        }
      }
    }
  }
  while (ve > v && IsSpace(s_[ve - 1])) --ve;
  node.b_begin = static_cast<uint32_t>(v);
  node.b_end = static_cast<uint32_t>(ve);
}

void Parser::Run() {
  int32_t current = -1;  // the open block (-1: root)
  size_t p = 0;
  size_t before_begin = 0;
  bool last_semicolon = false;  // postcss `this.semicolon`: the last node ended with ";"
  auto close_block = [&](size_t close_at, bool closed) {
    CssNode& node = tree_->nodes[current];
    node.after_begin = static_cast<uint32_t>(before_begin);
    node.close = static_cast<uint32_t>(close_at);
    node.closed = closed;
    node.end = static_cast<uint32_t>(closed ? close_at + 1 : close_at);
    node.semicolon = node.child_count != 0 && last_semicolon;
    current = node.parent;
    last_semicolon = false;
  };
  while (p < n_) {
    const char c = s_[p];
    if (IsSpace(c)) {
      ++p;
      continue;
    }
    if (c == ';') {
      // postcss freeSemicolon: the first ";" after a rule becomes the rule's ownSemicolon
      // (with the spaces before it); any other joins the spaces before the next node.
      const int32_t last =
          current < 0 ? (tree_->roots.empty() ? -1 : static_cast<int32_t>(tree_->roots.back()))
                      : last_child_[current];
      if (last >= 0) {
        CssNode& prev = tree_->nodes[last];
        if (prev.kind == CssKind::kRule && !prev.own_semicolon && prev.closed &&
            before_begin == prev.end) {
          prev.own_semicolon = true;
          prev.end = static_cast<uint32_t>(p + 1);
          before_begin = p + 1;
        }
      }
      ++p;
      continue;
    }
    if (c == '}') {
      if (current < 0) {
        // postcss-safe-parser's unexpectedClose: the root's raws.after takes the spaces
        // before it and the `}`. The rule it swallows in the browser is left out.
        tree_->root_after_prefix.append(s_, before_begin, p - before_begin);
        tree_->root_after_prefix += '}';
        p = SwallowedEnd(p + 1);
        before_begin = p;
        continue;
      }
      close_block(p, true);
      ++p;
      before_begin = p;
      continue;
    }
    if (c == '/' && p + 1 < n_ && s_[p + 1] == '*') {
      const uint32_t index = AddNode(CssKind::kComment, before_begin, p, current);
      p = SkipComment(p);
      CssNode& node = tree_->nodes[index];
      node.end = static_cast<uint32_t>(p);
      node.a_begin = node.begin + 2;
      node.a_end = p >= node.begin + 4 && s_.compare(p - 2, 2, "*/") == 0
                       ? static_cast<uint32_t>(p - 2)
                       : static_cast<uint32_t>(p);
      before_begin = p;
      continue;
    }
    if (c == '@') {
      const uint32_t index = AddNode(CssKind::kAtRule, before_begin, p, current);
      size_t q = p + 1;
      while (q < n_ && !IsAtEnd(s_[q])) ++q;
      {
        CssNode& node = tree_->nodes[index];
        node.a_begin = static_cast<uint32_t>(p + 1);
        node.a_end = static_cast<uint32_t>(q);
      }
      const Scan scan = ScanStatement(q, false);
      CssNode& node = tree_->nodes[index];
      // params: trimmed [q, last_sig_end)
      size_t pb = q;
      while (pb < scan.last_sig_end && IsSpace(s_[pb])) ++pb;
      node.b_begin = static_cast<uint32_t>(pb);
      node.b_end = static_cast<uint32_t>(scan.last_sig_end < pb ? pb : scan.last_sig_end);
      if (scan.what == '{') {
        node.has_block = true;
        node.open = static_cast<uint32_t>(scan.stop);
        current = static_cast<int32_t>(index);
        last_semicolon = false;
        p = scan.stop + 1;
        before_begin = p;
        continue;
      }
      if (scan.what == ';') {
        node.own_semicolon = true;
        node.end = static_cast<uint32_t>(scan.stop + 1);
        last_semicolon = true;
        p = scan.stop + 1;
      } else {  // "}" or the end: the statement ends before it
        node.end = static_cast<uint32_t>(scan.last_sig_end);
        last_semicolon = false;
        p = scan.last_sig_end;
      }
      before_begin = p;
      continue;
    }
    // A rule or a declaration.
    const bool custom_property = p + 1 < n_ && s_[p] == '-' && s_[p + 1] == '-';
    const Scan scan = ScanStatement(p, custom_property);
    if (scan.what == '{') {
      const uint32_t index = AddNode(CssKind::kRule, before_begin, p, current);
      CssNode& node = tree_->nodes[index];
      node.has_block = true;
      node.a_begin = static_cast<uint32_t>(p);
      node.a_end = static_cast<uint32_t>(scan.last_sig_end);
      node.open = static_cast<uint32_t>(scan.stop);
      current = static_cast<int32_t>(index);
      last_semicolon = false;
      p = scan.stop + 1;
      before_begin = p;
      continue;
    }
    if (!scan.colon) {
      // Not a declaration: the safe parser keeps unknown words as spaces.
      p = scan.what == ';' ? scan.stop + 1 : scan.stop;
      if (scan.what == 0) p = n_;
      continue;
    }
    const uint32_t index = AddNode(CssKind::kDecl, before_begin, p, current);
    tree_->nodes[index].custom_property = custom_property;
    if (scan.what == ';') {
      FillDecl(index, p, scan, scan.stop + 1);
      tree_->nodes[index].own_semicolon = true;
      last_semicolon = true;
      p = scan.stop + 1;
    } else {
      // Ended by "}" or the end: trailing spaces go back to the block, except that a custom
      // property keeps them in its value (postcss).
      Scan trimmed = scan;
      if (custom_property) trimmed.last_sig_end = scan.stop;
      FillDecl(index, p, trimmed, trimmed.last_sig_end);
      last_semicolon = false;
      p = trimmed.last_sig_end;
    }
    before_begin = p;
  }
  while (current >= 0) close_block(n_, false);
  tree_->root_after_begin = static_cast<uint32_t>(before_begin);
  tree_->root_semicolon = !tree_->roots.empty() && last_semicolon;
}

}  // namespace

void ParseCss(std::string_view css, CssTree* tree) {
  if (css.size() >= 3 && static_cast<unsigned char>(css[0]) == 0xEF &&
      static_cast<unsigned char>(css[1]) == 0xBB && static_cast<unsigned char>(css[2]) == 0xBF) {
    css.remove_prefix(3);
  }
  tree->text.assign(css.data(), css.size());
  tree->nodes.clear();
  tree->roots.clear();
  tree->child_list.clear();
  Parser parser(tree);
  parser.Run();
  // Children as one flat list: a node's children are [child_begin, child_begin + child_count)
  // in document order (nodes are numbered in document order, so a counting pass places them).
  uint32_t offset = 0;
  for (CssNode& node : tree->nodes) {
    node.child_begin = offset;
    offset += node.child_count;
  }
  tree->child_list.assign(offset, 0);
  std::vector<uint32_t> fill;
  fill.reserve(tree->nodes.size());
  for (const CssNode& node : tree->nodes) fill.push_back(node.child_begin);
  for (uint32_t i = 0; i < tree->nodes.size(); ++i) {
    const int32_t parent = tree->nodes[i].parent;
    if (parent >= 0) tree->child_list[fill[parent]++] = i;
  }
}

}  // namespace critical_css
}  // namespace ssr_native
