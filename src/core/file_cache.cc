#include "ssr_native/file_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>

#include "file_read.h"
#include "ssr_native/crc32.h"
#include "ssr_native/etag.h"

#if defined(__linux__)
#include <sys/inotify.h>
#endif

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

namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

bool HasPrefix(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::shared_ptr<const FileBlob> MakeBlob(BlobBytes data, size_t size) {
  auto blob = std::make_shared<FileBlob>();
  blob->crc = Crc32(0, data.get(), size);
  char tag[kMaxEntityTagLength];
  blob->etag.assign(tag, FormatEntityTag(size, blob->crc, true, tag));
  blob->data = std::move(data);
  blob->size = size;
  return blob;
}

}  // namespace

FileCache::FileCache(FileCacheOptions options) : options_(std::move(options)) {
  if (!options_.root.empty()) {
    real_root_ = internal::RealPath(options_.root);
    if (real_root_.empty()) real_root_ = options_.root;
  }
#if defined(__linux__)
  if (options_.watch) inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
#endif
  counters_.inotify = inotify_fd_ >= 0;
  if (pipe(wake_fd_) == 0) {
    fcntl(wake_fd_[0], F_SETFD, FD_CLOEXEC);
    fcntl(wake_fd_[1], F_SETFD, FD_CLOEXEC);
    thread_ = std::thread([this] { WatchThread(); });
  } else {
    wake_fd_[0] = wake_fd_[1] = -1;
  }
}

void FileCache::Wake() {
  if (wake_fd_[1] < 0) return;
  const char byte = 1;
  ssize_t ignored = write(wake_fd_[1], &byte, 1);
  (void)ignored;
}

FileCache::~FileCache() {
  stopping_.store(true);
  Wake();
  if (thread_.joinable()) thread_.join();
  if (wake_fd_[0] >= 0) close(wake_fd_[0]);
  if (wake_fd_[1] >= 0) close(wake_fd_[1]);
  if (inotify_fd_ >= 0) close(inotify_fd_);
}

FileCacheResult FileCache::Lookup(const std::string& path) {
  FileCacheResult result;
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_path_.find(path);
  if (found == by_path_.end()) return result;
  lru_.splice(lru_.begin(), lru_, found->second);
  ++counters_.hits;
  result.status = FileCacheStatus::kHit;
  result.cached = true;
  result.file = found->second->file;
  result.stat = result.file->stat;
  return result;
}

FileCacheResult FileCache::Load(const std::string& path, const std::string& top) {
  FileCacheResult result = Lookup(path);
  if (result.status == FileCacheStatus::kHit) return result;

  auto ticket = std::make_shared<LoadTicket>();
  ticket->path = path;
  bool watched = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counters_.misses;
    loading_.push_back(ticket);
    // Watch before reading: an edit during the read then produces an event we will see.
    EnsureWatchedLocked(DirectoryOf(path), &watched);
  }
  internal::ReadResult read = internal::ReadWholeFile(path, options_.max_file_size);
  // A symlinked file's target may live in a directory nobody watches: sweep it by stat.
  if (watched && read.outcome == internal::ReadOutcome::kRead && internal::IsSymlink(path)) {
    watched = false;
  }
  if (!options_.allow_outside_root && read.outcome != internal::ReadOutcome::kError &&
      !real_root_.empty()) {
    const std::string real = internal::RealPath(path);
    if (real.empty() ||
        !(real == real_root_ || HasPrefix(real, real_root_ + "/") || real_root_ == "/")) {
      read.outcome = internal::ReadOutcome::kError;
      result.status = FileCacheStatus::kOutsideRoot;
    }
  }

  std::lock_guard<std::mutex> lock(mutex_);
  loading_.erase(std::find(loading_.begin(), loading_.end(), ticket));
  counters_.rereads += static_cast<uint64_t>(read.attempts - 1);
  if (read.unstable) ++counters_.unstable_loads;
  if (result.status == FileCacheStatus::kOutsideRoot) return result;
  result.stat = read.stat;
  switch (read.outcome) {
    case internal::ReadOutcome::kError:
      result.status = FileCacheStatus::kError;
      result.error = read.error;
      if (read.error == ENOENT || read.error == ENOTDIR) {
        result.settled = WatchAbsenceLocked(path, top, false);
      }
      return result;
    case internal::ReadOutcome::kDirectory:
      result.status = FileCacheStatus::kDirectory;
      result.settled = WatchAbsenceLocked(path, top, true);
      return result;
    case internal::ReadOutcome::kTooLarge:
      result.status = FileCacheStatus::kTooLarge;
      return result;
    case internal::ReadOutcome::kNotRegular:
      result.status = FileCacheStatus::kNotRegular;
      return result;
    case internal::ReadOutcome::kRead:
      break;
  }
  auto file = std::make_shared<CachedFile>();
  file->id = next_id_++;
  file->path = path;
  file->stat = read.stat;
  file->body = MakeBlob(std::move(read.data), read.size);
  result.status = FileCacheStatus::kLoaded;
  result.file = file;
  // A concurrent load of the same path may have won; keep the cached one unless ours is newer.
  // A file that kept changing while it was read is served from what was read, but not kept.
  if (!ticket->stale && !read.unstable) {
    auto existing = by_path_.find(path);
    if (existing != by_path_.end()) EraseLocked(existing->second);
    result.cached = InsertLocked(file, watched);
    if (result.cached) ++counters_.loads;
  }
  return result;
}

bool FileCache::InsertLocked(std::shared_ptr<const CachedFile> file, bool watched) {
  const uint64_t size = file->body->size;
  if (size > options_.max_bytes) return false;
  bool evicted = false;
  while (bytes_ + size > options_.max_bytes && !lru_.empty()) {
    EraseLocked(std::prev(lru_.end()));
    ++counters_.evictions;
    evicted = true;
  }
  Entry entry;
  entry.file = std::move(file);
  entry.bytes = size;
  entry.watched = watched;
  lru_.push_front(std::move(entry));
  if (!watched && unwatched_entries_.fetch_add(1) == 0) Wake();  // the sweep has work again
  by_path_[lru_.front().file->path] = lru_.begin();
  by_id_[lru_.front().file->id] = lru_.begin();
  bytes_ += size;
  if (evicted) BumpGeneration();
  return true;
}

void FileCache::EraseLocked(EntryList::iterator it) {
  bytes_ -= it->bytes;
  if (!it->watched) unwatched_entries_.fetch_sub(1);
  by_path_.erase(it->file->path);
  by_id_.erase(it->file->id);
  lru_.erase(it);
}

uint32_t FileCache::Touch(uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_id_.find(id);
  if (found != by_id_.end()) {
    lru_.splice(lru_.begin(), lru_, found->second);
    ++counters_.hits;
  }
  return Generation();
}

std::shared_ptr<const FileBlob> FileCache::AttachVariant(uint64_t id, const std::string& encoding,
                                                         const uint8_t* data, size_t size) {
  // Copy and checksum outside the lock.
  BlobBytes copy(size);
  if (size != 0) std::memcpy(copy.get(), data, size);
  auto blob = MakeBlob(std::move(copy), size);
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_id_.find(id);
  if (found == by_id_.end()) return nullptr;
  EntryList::iterator entry = found->second;
  for (const auto& variant : entry->variants) {
    if (variant.first == encoding) return variant.second;
  }
  if (size > options_.max_bytes) return nullptr;
  // Make room without evicting the entry we are extending.
  lru_.splice(lru_.begin(), lru_, entry);
  bool evicted = false;
  while (bytes_ + size > options_.max_bytes && std::prev(lru_.end()) != entry) {
    EraseLocked(std::prev(lru_.end()));
    ++counters_.evictions;
    evicted = true;
  }
  if (evicted) BumpGeneration();
  if (bytes_ + size > options_.max_bytes) return nullptr;
  entry->variants.emplace_back(encoding, blob);
  entry->bytes += size;
  bytes_ += size;
  return blob;
}

std::shared_ptr<const FileBlob> FileCache::Variant(uint64_t id, const std::string& encoding) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = by_id_.find(id);
  if (found == by_id_.end()) return nullptr;
  for (const auto& variant : found->second->variants) {
    if (variant.first == encoding) return variant.second;
  }
  return nullptr;
}

void FileCache::Invalidate(const std::string& path) {
  std::lock_guard<std::mutex> lock(mutex_);
  InvalidateLocked(path, !path.empty() && path.back() == '/');
}

void FileCache::InvalidateLocked(const std::string& path, bool prefix) {
  ++counters_.invalidations;
  for (auto& ticket : loading_) {
    if (prefix ? HasPrefix(ticket->path, path) : ticket->path == path) ticket->stale = true;
  }
  bool dropped = false;
  if (prefix) {
    for (auto it = lru_.begin(); it != lru_.end();) {
      auto next = std::next(it);
      if (HasPrefix(it->file->path, path)) {
        EraseLocked(it);
        dropped = true;
      }
      it = next;
    }
  } else {
    auto found = by_path_.find(path);
    if (found != by_path_.end()) {
      EraseLocked(found->second);
      dropped = true;
    }
  }
  if (dropped) BumpGeneration();
}

void FileCache::Clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  ClearLocked();
}

void FileCache::ClearLocked() {
  for (auto& ticket : loading_) ticket->stale = true;  // loads under way must not be cached
  lru_.clear();
  unwatched_entries_.store(0);
  by_path_.clear();
  by_id_.clear();
  bytes_ = 0;
  BumpGeneration();
}

FileCacheStats FileCache::Stats() {
  std::lock_guard<std::mutex> lock(mutex_);
  FileCacheStats stats = counters_;
  stats.entries = by_path_.size();
  stats.bytes = bytes_;
  stats.watched_directories = watched_paths_.size();
  return stats;
}

// Watches `directory` and each parent up to the root (so a renamed parent is seen too).
// `watched` says whether the whole chain is covered by inotify.
void FileCache::EnsureWatchedLocked(const std::string& directory, bool* watched) {
  *watched = false;
#if defined(__linux__)
  if (inotify_fd_ < 0) return;
  const std::string& stop = options_.root.empty() ? directory : options_.root;
  std::string dir = directory;
  while (true) {
    if (watched_paths_.find(dir) == watched_paths_.end()) {
      const uint32_t mask = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE |
                            IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;
      const int wd = inotify_add_watch(inotify_fd_, dir.c_str(), mask);
      if (wd < 0) {  // limit reached or gone: entries of this chain are swept by stat
        if (errno == ENOSPC || errno == ENOMEM) ++counters_.watch_fallbacks;
        return;
      }
      watch_dirs_[wd] = dir;
      watched_paths_[dir] = wd;
    }
    if (dir == stop || !HasPrefix(dir, stop) || dir == "/") break;
    dir = DirectoryOf(dir);
  }
  *watched = true;
#else
  (void)directory;
#endif
}

// After a load answered "no such file" (or "a directory") for `path`: makes sure the answer
// cannot change without the generation moving, and says whether that holds. Walks down from
// `top` (the caller's mount root; else the cache's root) watching each existing directory of the
// path (real directories only: a symlink or a file on the way is not followed, the answer is then
// just not settled) until the first name that does not exist; creating that name is then an event
// in a watched directory. The walk runs after the read, so what it finds is checked after its
// watches exist: a name made meanwhile is either found (not settled) or reported by inotify. It
// only descends through directories that exist, so a hostile path costs at most one system call per
// real level.
bool FileCache::WatchAbsenceLocked(const std::string& path, const std::string& top,
                                   bool directory) {
  // Without inotify the sweep moves the generation every period; without its thread, nothing.
  if (inotify_fd_ < 0) return thread_.joinable();
#if defined(__linux__)
  const std::string& root = top.empty() ? options_.root : top;
  if (root.empty() || root.back() == '/') return false;  // no known top ("/" root: never)
  std::string target = path;
  while (target.size() > root.size() + 1 && target.back() == '/') target.pop_back();
  if (target.size() <= root.size() + 1 || !HasPrefix(target, root + "/")) return false;
  const uint32_t mask = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE |
                        IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;
  size_t end = root.size();  // the directory to watch is target[0, end)
  while (true) {
    const std::string dir = target.substr(0, end);
    // The root itself may be a symlink (a deployment switch): followed, as everywhere else.
    const uint32_t flags = end == root.size() ? IN_ONLYDIR : IN_ONLYDIR | IN_DONT_FOLLOW;
    const int wd = inotify_add_watch(inotify_fd_, dir.c_str(), mask | flags);
    if (wd < 0) {
      // The first missing name, its parent watched: settled. A symlink, a file, the watch
      // limit or anything else: not.
      return end != root.size() && errno == ENOENT;
    }
    if (watch_dirs_.find(wd) == watch_dirs_.end()) {
      watch_dirs_[wd] = dir;
      watched_paths_[dir] = wd;
    }
    const size_t slash = target.find('/', end + 1);
    if (slash == std::string::npos) break;
    end = slash;
  }
  // Every directory above the final name is real and watched: the name is absent (not, say,
  // a dangling symlink) or a real directory.
  struct stat st;
  if (lstat(target.c_str(), &st) != 0) return errno == ENOENT && !directory;
  // A directory answer only changes if the name itself is replaced: an event in its parent.
  return directory && S_ISDIR(st.st_mode);
#else
  (void)path;
  (void)top;
  (void)directory;
  return false;
#endif
}

void FileCache::HandleEvents() {
#if defined(__linux__)
  alignas(struct inotify_event) char buffer[16384];
  while (true) {
    const ssize_t n = read(inotify_fd_, buffer, sizeof(buffer));
    if (n <= 0) return;  // EAGAIN: drained
    std::lock_guard<std::mutex> lock(mutex_);
    for (ssize_t offset = 0; offset < n;) {
      const auto* event = reinterpret_cast<const struct inotify_event*>(buffer + offset);
      offset += static_cast<ssize_t>(sizeof(struct inotify_event) + event->len);
      if (event->mask & IN_Q_OVERFLOW) {
        // Events were lost: nothing cached can be trusted.
        ClearLocked();
        continue;
      }
      auto dir = watch_dirs_.find(event->wd);
      if (dir == watch_dirs_.end()) continue;
      const std::string directory = dir->second;
      if (event->len == 0 || event->name[0] == '\0') {
        // The watched directory itself was deleted or moved: its subtree is unknown now.
        if (event->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
          InvalidateLocked(directory == "/" ? directory : directory + "/", true);
          if (!(event->mask & IN_IGNORED)) inotify_rm_watch(inotify_fd_, event->wd);
          watched_paths_.erase(directory);
          watch_dirs_.erase(event->wd);
          BumpGeneration();
        }
        continue;
      }
      const std::string child =
          (directory == "/" ? std::string() : directory) + "/" + std::string(event->name);
      if (event->mask & IN_ISDIR) {
        InvalidateLocked(child + "/", true);
        if (event->mask & (IN_MOVED_FROM | IN_DELETE)) {
          // Forget watches under a directory that moved away: their paths are stale.
          for (auto it = watched_paths_.begin(); it != watched_paths_.end();) {
            if (it->first == child || HasPrefix(it->first, child + "/")) {
              inotify_rm_watch(inotify_fd_, it->second);
              watch_dirs_.erase(it->second);
              it = watched_paths_.erase(it);
            } else {
              ++it;
            }
          }
        }
      } else {
        InvalidateLocked(child, false);
      }
      // A new name can change what a request resolves to (extensions, index files).
      if (event->mask & (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE)) BumpGeneration();
    }
  }
#endif
}

// Entries without an inotify watch: compare a fresh stat with the cached one.
void FileCache::SweepUnwatched() {
  std::vector<std::pair<std::string, FileStat>> candidates;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Entry& entry : lru_) {
      if (!entry.watched) candidates.emplace_back(entry.file->path, entry.file->stat);
    }
  }
  if (candidates.empty() && inotify_fd_ >= 0) return;
  std::vector<std::string> changed;
  for (const auto& candidate : candidates) {
    FileStat now;
    const int error = internal::StatPath(candidate.first, &now);
    const FileStat& then = candidate.second;
    if (error != 0 || now.size != then.size || now.mtime_ns != then.mtime_ns ||
        now.ctime_ns != then.ctime_ns || now.ino != then.ino || now.dev != then.dev) {
      changed.push_back(candidate.first);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& path : changed) InvalidateLocked(path, false);
  // Without inotify, names that appeared are only noticed by callers that re-resolve:
  // move the generation on every sweep so memoised resolutions expire.
  if (inotify_fd_ < 0) BumpGeneration();
}

// Background thread: inotify events as they come, a stat sweep every sweep_interval_ms.
void FileCache::WatchThread() {
  const auto interval = std::chrono::milliseconds(std::max(10, options_.sweep_interval_ms));
  auto next_sweep = std::chrono::steady_clock::now() + interval;
  while (!stopping_.load()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_sweep) {
      SweepUnwatched();
      next_sweep = std::chrono::steady_clock::now() + interval;
      continue;
    }
    // With inotify covering every entry there is nothing to sweep: sleep until an event or a
    // wake-up (shutdown, or an entry the sweep must check).
    const bool idle = inotify_fd_ >= 0 && unwatched_entries_.load() == 0;
    const int timeout =
        idle ? -1
             : static_cast<int>(
                   std::chrono::duration_cast<std::chrono::milliseconds>(next_sweep - now).count() +
                   1);
    struct pollfd fds[2];
    fds[0].fd = wake_fd_[0];
    fds[0].events = POLLIN;
    fds[1].fd = inotify_fd_;
    fds[1].events = POLLIN;
    const int ready = poll(fds, inotify_fd_ >= 0 ? 2 : 1, timeout);
    if (stopping_.load()) break;
    if (ready > 0 && (fds[0].revents & POLLIN)) {
      char drain[64];
      ssize_t ignored = read(wake_fd_[0], drain, sizeof(drain));
      (void)ignored;
      if (idle) next_sweep = std::chrono::steady_clock::now() + interval;
    }
    if (ready > 0 && inotify_fd_ >= 0 && (fds[1].revents & POLLIN)) HandleEvents();
  }
}

}  // namespace ssr_native
