// Critical CSS: the step Angular's InlineCriticalCssProcessor (beasties 0.5.4 with Angular's
// options) runs on a server-rendered page, rebuilt so that the stylesheet is parsed once.
//
//   Plan       one stylesheet, parsed once: rules, selectors normalized and compiled the way
//              beasties evaluates them, indexed by the key of their rightmost compound.
//   FindLinks  the stylesheet links of a page that beasties would fetch, in document order.
//   Inline     the page with, before each such link, a <style> holding the rules the page
//              uses, the link deferred (media="print" onload=...) with a <noscript> copy.
//
// The page is read as htmlparser2 12 reads it (beasties' parser: its tokenizer states, its
// implied end tags, attribute values left undecoded), selectors are matched with css-select 7's
// semantics, and the kept rules are written as postcss writes them (compress off: the source
// text of each kept rule; compress on: beasties' minifying writer). The page itself is edited
// in place at byte offsets, never re-serialized.
//
// Errors are values: a page the engine cannot process (beyond its limits, or a shape it does
// not reproduce) gives Status::kSkipped and the caller sends the page as it was.
#ifndef SSR_NATIVE_CRITICAL_CSS_H_
#define SSR_NATIVE_CRITICAL_CSS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ssr_native {
namespace critical_css {

/// A stylesheet compiled once; immutable, so it may be shared by threads.
class Plan;

/// Limits that keep hostile input linear and bounded.
struct Limits {
  size_t max_css_bytes = 16u << 20;     ///< larger stylesheets are not compiled
  size_t max_html_bytes = 16u << 20;    ///< larger pages are skipped
  uint32_t max_depth = 512;             ///< element nesting beyond this skips the page
  uint32_t max_attributes = 1024;       ///< attributes on one element beyond this skip the page
  uint32_t max_selector_bytes = 4096;   ///< longer selectors never match (kept out)
  uint64_t max_match_steps = 20000000;  ///< matcher work per page beyond this skips the page
  /// Output bounds (Status::kOverBound): each stylesheet link may add a copy of its CSS, so a page
  /// could otherwise multiply its size by the number of links. Angular pages link a handful.
  uint32_t max_stylesheet_links = 64;  ///< more link[rel=stylesheet] than this: page sent as it was
  size_t max_inlined_bytes =
      4u << 20;  ///< CSS written into <style> beyond this: page sent as it was
};

struct CompileResult {
  std::shared_ptr<const Plan> plan;  ///< null on error
  std::string error;                 ///< why not, when plan is null
};

/// Parses and indexes one stylesheet (its UTF-8 text, a leading BOM ignored as postcss does).
CompileResult CompilePlan(std::string_view css, const Limits& limits = Limits());

/// Bytes the plan holds (text, rules, selectors, index), for bounding a cache of plans.
size_t PlanMemoryBytes(const Plan& plan);
/// Rules (style rules and at-rules, at any depth) in the plan.
size_t PlanRuleCount(const Plan& plan);

enum class Status : int {
  kDone = 0,       ///< output holds the processed page
  kSkipped = 1,    ///< the page is to be sent as it was; reason says why
  kOverBound = 2,  ///< as kSkipped: the page passed an output bound (Limits), checked before the
                   ///< output is built
};

/// One `<link rel="stylesheet">` of a page, as beasties finds it.
struct PageLink {
  std::string href;      ///< the href attribute as written (undecoded)
  bool fetched = false;  ///< false: beasties would not fetch it (data-beasties-skip, not .css)
};

struct LinksResult {
  Status status = Status::kDone;
  std::string reason;
  std::vector<PageLink> links;
};

/// The stylesheet links of a page in document order, as `link[rel="stylesheet"]` finds them.
LinksResult FindLinks(std::string_view html, const Limits& limits = Limits());

/// Angular's beasties options that change the output.
struct InlineOptions {
  bool compress = false;          ///< beasties `compress` (Angular: `minify` at build time)
  bool noscript_fallback = true;  ///< the <noscript><link></noscript> copy
  bool inline_fonts = true;       ///< keep @font-face rules whose family a kept rule uses
  /// beasties 0.4 (Angular 21) @font-face selection: a face with a url() source is kept when
  /// its font-family text occurs in the values of the kept rules' font properties; no
  /// unicode-range filtering; url()s written as the stylesheet has them. False: beasties 0.5
  /// (families parsed and normalized, url()s resolved against the stylesheet's href).
  bool beasties_0_4 = false;
  /// beasties' `preload: 'media-script'` with its `nonce` option (Angular 22.2's CommonEngine,
  /// AppEngine and build): a deferred link gets `media="print" data-beasties-media="…"`, one
  /// script at the end of <body> sets the media, and the nonce of `ngCspNonce` goes on that
  /// script and every <style> added. False: `preload: 'media'` (`onload="this.media='…'"`) with
  /// Angular 21's CSP override (`ngCspMedia`, its listener script, the nonce on <head>'s styles).
  bool media_script = false;
  /// A prerendered page (`ng-server-context` naming `ssg`) that already carries inlined critical
  /// CSS (a data-beasties-container, a deferred stylesheet link) is skipped: Angular serves its
  /// prerendered pages as they were built, never through its inliner. False: the page is
  /// processed as Angular's processor would process it (Angular 21 undoes the deferral first).
  bool leave_inlined_prerendered = false;
  /// Any page that already carries inlined critical CSS (a data-beasties-container, a link
  /// deferred with data-beasties-media, or with media="print", a media onload handler and a
  /// <noscript> after it) is skipped, prerendered or not: serving behind Angular's own inliner
  /// (`inlineCritical` left on), a second pass would inline twice, and under beasties 0.5 defer
  /// the already deferred link for good (its loader would set media back to "print").
  bool leave_inlined = false;
};

struct InlineResult {
  Status status = Status::kDone;
  std::string reason;
  std::string html;           ///< the processed page (kDone)
  size_t inlined_bytes = 0;   ///< bytes of CSS written into <style> elements
  size_t styles_inlined = 0;  ///< <style> elements added
};

/// Inlines the critical CSS of `html`. `plans` has one entry per link FindLinks returned (same
/// order); null where the stylesheet was not fetched or could not be read (the link is then left
/// as beasties leaves it).
InlineResult Inline(std::string_view html, const std::vector<const Plan*>& plans,
                    const InlineOptions& options, const Limits& limits = Limits());

/// The plan for the stylesheet link `index` (in FindLinks order) whose href is `href`, or null
/// to leave that link as beasties leaves an unreadable stylesheet. Called only for the links
/// beasties would fetch, in document order, during Inline (one parse of the page).
using PlanResolver = std::function<const Plan*(size_t index, std::string_view href)>;

InlineResult Inline(std::string_view html, const PlanResolver& resolve,
                    const InlineOptions& options, const Limits& limits = Limits());

/// The text of the script Angular 21 adds for a page with a CSP nonce (its `ngCspMedia`
/// listener, @angular/ssr's LINK_LOAD_SCRIPT_CONTENT), as Inline writes it.
std::string_view CspLoaderScript();

/// The text of beasties 0.5's `media-script` loader (InlineOptions::media_script), as Inline
/// writes it at the end of <body>.
std::string_view MediaLoaderScript();

}  // namespace critical_css
}  // namespace ssr_native

#endif  // SSR_NATIVE_CRITICAL_CSS_H_
