// An in-memory cache of whole files for static serving: contents held outside any JavaScript
// heap and shared by reference, a content ETag (CRC-32) computed once per file version, a
// total-bytes bound with LRU eviction and a per-file cap. A background thread watches the
// cached files' directories (inotify on Linux; elsewhere, or where a watch cannot be added, a
// periodic stat sweep) and drops entries whose file changed, so a cache hit makes no
// file-system system call. Every public method is thread-safe.
#ifndef SSR_NATIVE_FILE_CACHE_H_
#define SSR_NATIVE_FILE_CACHE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ssr_native/blob_bytes.h"

namespace ssr_native {

/// What a stat() of a served path says (the fields fs.Stats has; times in nanoseconds).
struct FileStat {
  uint64_t size = 0;
  uint64_t dev = 0;
  uint64_t ino = 0;
  uint32_t mode = 0;
  uint32_t nlink = 0;
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint64_t rdev = 0;
  int64_t blksize = 0;
  int64_t blocks = 0;
  int64_t atime_ns = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  bool is_directory = false;
  bool is_regular = false;
};

/// Immutable bytes shared between the cache and every response that is sending them.
struct FileBlob {
  BlobBytes data;
  size_t size = 0;
  uint32_t crc = 0;
  std::string etag;  ///< W/"<size hex>-<crc32 hex>"
};

/// One cached file version. Immutable once published; `id` is unique per cache and version.
struct CachedFile {
  uint64_t id = 0;
  std::string path;
  FileStat stat;
  std::shared_ptr<const FileBlob> body;
};

struct FileCacheOptions {
  uint64_t max_bytes = 64ull << 20;     ///< bound on the sum of cached bodies and variants
  uint64_t max_file_size = 4ull << 20;  ///< larger files are reported as kTooLarge
  bool watch = true;                    ///< inotify where available (else stat sweep)
  int sweep_interval_ms = 250;          ///< stat sweep period for entries without a watch
  std::string root;                     ///< directories up to here are watched; see below
  bool allow_outside_root = true;  ///< false: a file whose real path leaves root -> kOutsideRoot
};

enum class FileCacheStatus {
  kHit,          ///< served from memory, no system call
  kLoaded,       ///< read from disk now (cached unless it changed while being read)
  kMiss,         ///< Lookup only: not in memory (nothing was done)
  kDirectory,    ///< the path is a directory (stat filled)
  kTooLarge,     ///< a regular file over max_file_size (stat filled): stream it from disk
  kNotRegular,   ///< neither file nor directory (FIFO, device...; stat filled)
  kOutsideRoot,  ///< its real path leaves root and allow_outside_root is false
  kError,        ///< open/stat/read failed: `error` holds errno (ENOENT, ENOTDIR, ...)
};

struct FileCacheResult {
  FileCacheStatus status = FileCacheStatus::kMiss;
  int error = 0;
  FileStat stat;
  std::shared_ptr<const CachedFile> file;  ///< kHit and kLoaded
  bool cached = false;  ///< kLoaded: kept (false when it exceeds max_bytes or changed meanwhile)
  /// kError ENOENT/ENOTDIR and kDirectory: every name whose appearance, removal or replacement
  /// could change this answer is watched (or, without inotify, the sweep moves the generation
  /// each period), so Generation() moves before a new Load could answer otherwise. Callers may
  /// memoise such an outcome while the generation stays put.
  bool settled = false;
};

struct FileCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t evictions = 0;
  uint64_t invalidations = 0;
  uint64_t watched_directories = 0;
  uint64_t rereads = 0;         ///< readings repeated because the file changed while read
  uint64_t unstable_loads = 0;  ///< loads served uncached: the file changed during every reading
  uint64_t loads = 0;           ///< files read from disk into the cache (misses that were files)
  /// Directories inotify could not watch (its limit reached): their entries are swept by stat.
  uint64_t watch_fallbacks = 0;
  bool inotify = false;  ///< change detection by inotify (else stat sweep only)
};

class FileCache {
 public:
  explicit FileCache(FileCacheOptions options);
  ~FileCache();
  FileCache(const FileCache&) = delete;
  FileCache& operator=(const FileCache&) = delete;

  /// Memory only, never a system call: kHit or kMiss.
  FileCacheResult Lookup(const std::string& path);

  /// Lookup, and on a miss open + fstat + read the file (blocking: call it off the event loop).
  /// `path` must be absolute and normalised (no "." or ".." segments). `top`: the directory the
  /// caller resolved `path` under (a static mount's root), where the watches that make a miss
  /// `settled` start; empty means the cache's own root. A cache shared by several mounts has no
  /// root of its own, so without `top` its misses are never settled.
  FileCacheResult Load(const std::string& path, const std::string& top = std::string());

  /// Marks the entry `id` as just used (LRU) if it is still cached; returns Generation().
  uint32_t Touch(uint64_t id);

  /// Attaches an encoded variant (e.g. "gzip", "br") of entry `id`; the bytes count against
  /// max_bytes. Returns nullptr when the entry is gone or the variant does not fit.
  std::shared_ptr<const FileBlob> AttachVariant(uint64_t id, const std::string& encoding,
                                                const uint8_t* data, size_t size);

  /// A variant attached before, or nullptr.
  std::shared_ptr<const FileBlob> Variant(uint64_t id, const std::string& encoding);

  /// Changes whenever a cached entry is dropped (edit, delete, eviction) or a name appears in
  /// a watched directory. Callers that memoise lookups compare it to know they must re-ask.
  uint32_t Generation() const { return generation_.load(std::memory_order_acquire); }

  /// Drops `path` (exact), or every entry under it when it ends with '/'.
  void Invalidate(const std::string& path);
  void Clear();
  FileCacheStats Stats();

 private:
  struct Entry;
  struct LoadTicket;
  using EntryList = std::list<Entry>;

  // file_watch.cc: inotify, the watcher thread and the stat sweep.
  void StartWatching();
  void StopWatching();
  void WatchThread();
  void SweepUnwatched();
  // Drops every entry and marks loads under way stale; mutex_ held.
  void ClearLocked();
  void EnsureWatchedLocked(const std::string& directory, bool* watched);
  void InvalidateLocked(const std::string& path, bool prefix);
  bool WatchAbsenceLocked(const std::string& path, const std::string& top, bool directory);
  void EraseLocked(EntryList::iterator it);
  void BumpGeneration() { generation_.fetch_add(1, std::memory_order_acq_rel); }
  bool InsertLocked(std::shared_ptr<const CachedFile> file, bool watched);
  void HandleEvents();
  void Wake();

  const FileCacheOptions options_;
  std::string real_root_;

  std::mutex mutex_;
  EntryList lru_;  // front = most recently used
  std::unordered_map<std::string, EntryList::iterator> by_path_;
  std::unordered_map<uint64_t, EntryList::iterator> by_id_;
  std::vector<std::shared_ptr<LoadTicket>> loading_;
  std::unordered_map<int, std::string> watch_dirs_;     // inotify wd -> directory
  std::unordered_map<std::string, int> watched_paths_;  // directory -> wd
  uint64_t bytes_ = 0;
  uint64_t next_id_ = 1;
  FileCacheStats counters_;

  std::atomic<uint32_t> generation_{1};
  std::atomic<uint64_t> unwatched_entries_{0};  // entries only the stat sweep can check
  std::atomic<bool> stopping_{false};
  int inotify_fd_ = -1;
  int wake_fd_[2] = {-1, -1};
  std::thread thread_;
};

}  // namespace ssr_native

#endif  // SSR_NATIVE_FILE_CACHE_H_
