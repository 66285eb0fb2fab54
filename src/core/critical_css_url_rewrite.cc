// url() rewriting of the inlined CSS (beasties 0.5's rewriteCssUrls, resolveCssUrl), with the
// path.posix pieces it leans on.
#include "critical_css_url_rewrite.h"

#include <vector>

#include "critical_css_internal.h"

namespace ssr_native {
namespace critical_css {
namespace {

// path.posix.normalize-like join of a directory and a relative URL (path.posix.join).
std::string PosixJoin(std::string_view dir, std::string_view url) {
  std::string joined(dir);
  joined.push_back('/');
  joined.append(url);
  const bool absolute = !joined.empty() && joined[0] == '/';
  const bool trailing = !joined.empty() && joined.back() == '/';
  std::vector<std::string_view> parts;
  std::string_view rest(joined);
  size_t p = 0;
  while (p <= rest.size()) {
    size_t q = rest.find('/', p);
    if (q == std::string_view::npos) q = rest.size();
    const std::string_view seg = rest.substr(p, q - p);
    if (seg.empty() || seg == ".") {
      // skip
    } else if (seg == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(seg);
      }
    } else {
      parts.push_back(seg);
    }
    p = q + 1;
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out.push_back('/');
    out.append(parts[i]);
  }
  if (out.empty() && !absolute) out = ".";
  if (trailing && out.back() != '/') out.push_back('/');
  return out;
}

// beasties' resolveCssUrl for a local stylesheet href; `dir` is path.posix.dirname(base).
bool IsAbsoluteUrl(std::string_view url) {
  if (url.compare(0, 2, "//") == 0 || url.compare(0, 1, "/") == 0 || url.compare(0, 1, "#") == 0) {
    return true;
  }
  if (url.empty()) return false;
  const char c0 = url[0];
  if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z'))) return false;
  for (size_t i = 1; i < url.size(); ++i) {
    const char c = url[i];
    if (c == ':') return true;
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '+' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return false;
}

std::string Dirname(std::string_view path) {
  // path.posix.dirname
  if (path.empty()) return ".";
  const bool absolute = path[0] == '/';
  size_t end = path.size();
  while (end > 1 && path[end - 1] == '/') --end;
  size_t slash = path.rfind('/', end - 1);
  if (slash == std::string_view::npos) return absolute ? "/" : ".";
  while (slash > 0 && path[slash - 1] == '/') --slash;
  if (slash == 0) return absolute ? "/" : ".";
  return std::string(path.substr(0, slash));
}

}  // namespace

// beasties' rewriteCssUrls (/url\((?:'([^']*)'|"([^"]*)"|([^()]*))\)/gi).
// Rewrites *sheet in place; leaves it untouched (no copy) when no url() changes.
void RewriteCssUrls(std::string* sheet, std::string_view href) {
  const std::string& css = *sheet;
  std::string_view base = href.substr(0, href.find('?'));
  base = base.substr(0, base.find('#'));
  if (base.compare(0, 7, "http://") == 0 || base.compare(0, 8, "https://") == 0 ||
      base.compare(0, 2, "//") == 0) {
    return;  // remote stylesheets are never read (beasties' `remote` is off)
  }
  const std::string dir = Dirname(base);
  if (dir == "." || dir.empty()) return;
  std::string out;
  size_t cursor = 0;
  size_t i = 0;
  while (i + 4 <= css.size()) {
    if (!((css[i] | 0x20) == 'u' && (css[i + 1] | 0x20) == 'r' && (css[i + 2] | 0x20) == 'l' &&
          css[i + 3] == '(')) {
      ++i;
      continue;
    }
    const size_t v = i + 4;
    size_t match_end = std::string::npos;
    std::string quote;
    std::string url;
    if (v < css.size() && css[v] == '\'') {
      const size_t q = css.find('\'', v + 1);
      if (q != std::string::npos && q + 1 < css.size() && css[q + 1] == ')') {
        match_end = q + 2;
        quote = "'";
        url = css.substr(v + 1, q - v - 1);
      }
    }
    if (match_end == std::string::npos && v < css.size() && css[v] == '"') {
      const size_t q = css.find('"', v + 1);
      if (q != std::string::npos && q + 1 < css.size() && css[q + 1] == ')') {
        match_end = q + 2;
        quote = "\"";
        url = css.substr(v + 1, q - v - 1);
      }
    }
    if (match_end == std::string::npos) {
      size_t q = v;
      while (q < css.size() && css[q] != '(' && css[q] != ')') ++q;
      if (q < css.size() && css[q] == ')') {
        match_end = q + 1;
        url = std::string(TrimAscii(std::string_view(css).substr(v, q - v)));
      }
    }
    if (match_end == std::string::npos) {
      ++i;
      continue;
    }
    if (!url.empty() && !IsAbsoluteUrl(url)) {
      const std::string resolved = PosixJoin(dir, url);
      if (resolved != url) {
        out.append(css, cursor, i - cursor);
        out.append("url(");
        out.append(quote);
        out.append(resolved);
        out.append(quote);
        out.push_back(')');
        cursor = match_end;
      }
    }
    i = match_end;
  }
  if (cursor == 0) return;
  out.append(css, cursor, std::string::npos);
  *sheet = std::move(out);
}

}  // namespace critical_css
}  // namespace ssr_native
