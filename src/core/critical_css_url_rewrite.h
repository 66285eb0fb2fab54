// beasties 0.5's rewriteCssUrls: the url()s of a stylesheet's kept rules resolved against the
// link's href, as path.posix.join resolves them (beasties 0.4 writes them as they are).
#ifndef SSR_NATIVE_CRITICAL_CSS_URL_REWRITE_H_
#define SSR_NATIVE_CRITICAL_CSS_URL_REWRITE_H_

#include <string>
#include <string_view>

namespace ssr_native {
namespace critical_css {

// Rewrites *sheet in place against the stylesheet `href` (as the link writes it); leaves it
// untouched (no copy) when no url() changes, or when the href is remote.
void RewriteCssUrls(std::string* sheet, std::string_view href);

}  // namespace critical_css
}  // namespace ssr_native

#endif  // SSR_NATIVE_CRITICAL_CSS_URL_REWRITE_H_
