// What file_cache.cc (the store and its variants) and file_watch.cc (the change detection)
// share: the entry and load-ticket records and two path helpers. Internal to the core.
#ifndef SSR_NATIVE_SRC_CORE_FILE_CACHE_INTERNAL_H_
#define SSR_NATIVE_SRC_CORE_FILE_CACHE_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ssr_native/file_cache.h"

namespace ssr_native {

struct FileCache::Entry {
  std::shared_ptr<const CachedFile> file;
  std::vector<std::pair<std::string, std::shared_ptr<const FileBlob>>> variants;
  uint64_t bytes = 0;    // body + variants, what counts against max_bytes
  bool watched = false;  // its directory chain has inotify watches: no stat sweep needed
};

// A load in progress: an invalidation of its path while the file is being read marks it stale,
// so a version read before an edit is never published after the edit's event was handled.
struct FileCache::LoadTicket {
  std::string path;
  bool stale = false;
};

namespace internal {

/// The directory of an absolute path ("/" for a top-level name).
inline std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

inline bool HasPrefix(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace internal
}  // namespace ssr_native

#endif  // SSR_NATIVE_SRC_CORE_FILE_CACHE_INTERNAL_H_
