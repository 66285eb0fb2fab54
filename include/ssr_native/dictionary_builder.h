// Builds a compression dictionary for a site's pages from samples of them, two ways, and keeps
// the one that makes held-out pages smallest (measured, not guessed):
//  - "trained": zstd's dictionary training (ZDICT), entropy tables plus the most useful content;
//  - "common": the raw bytes of the pages' common parts, the segments (text up to and including
//    a '>' or a newline) found in at least half of the samples (and in two at least), in the
//    order they first appear. Only shared segments are kept, so a segment found in one page
//    alone never reaches it.
#ifndef SSR_NATIVE_INCLUDE_SSR_NATIVE_DICTIONARY_BUILDER_H_
#define SSR_NATIVE_INCLUDE_SSR_NATIVE_DICTIONARY_BUILDER_H_

#include <cstddef>
#include <string>
#include <vector>

namespace ssr_native {

/// The raw "common parts" dictionary of `samples`, at most `capacity` bytes.
std::string CommonPartsDictionary(const std::vector<std::string>& samples, size_t capacity);

struct DictionaryChoice {
  std::string dictionary;    // empty when no candidate beats `current` (or none could be made)
  std::string method;        // "trained" or "common"
  size_t trained_bytes = 0;  // the held-out pages compressed with each candidate (0: not made)
  size_t common_bytes = 0;
  size_t current_bytes = 0;  // ... with `current` (0 when there is none)
};

/// Splits `samples` into training pages and held-out pages (every fourth, at least one), builds
/// both candidates from the training pages and measures them (zstd at `level`) on the held-out
/// ones. With a non-empty `current`, a candidate is chosen only when it makes the held-out pages
/// at most `improvement` (e.g. 0.9) times the bytes `current` does.
DictionaryChoice ChooseDictionary(const std::vector<std::string>& samples, size_t capacity,
                                  int level, const std::string& current, double improvement);

}  // namespace ssr_native

#endif  // SSR_NATIVE_INCLUDE_SSR_NATIVE_DICTIONARY_BUILDER_H_
