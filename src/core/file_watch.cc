// FileCache's change detection: inotify watches on the directories of cached files (and on the
// directories a settled miss depends on), the background thread that reads their events, and the
// stat sweep for entries no watch covers (no inotify, its limit reached, a symlinked file).
// The store itself (lookups, loads, eviction, variants) is in file_cache.cc.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "file_cache_internal.h"
#include "file_read.h"
#include "ssr_native/file_cache.h"

#if defined(__linux__)
#include <sys/inotify.h>
#endif

namespace ssr_native {

using internal::DirectoryOf;
using internal::HasPrefix;

#if defined(__linux__)
namespace {
// Every change to a name in a watched directory, and the directory itself going away.
constexpr uint32_t kWatchMask = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE |
                                IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF;
}  // namespace
#endif

void FileCache::StartWatching() {
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

void FileCache::StopWatching() {
  stopping_.store(true);
  Wake();
  if (thread_.joinable()) thread_.join();
  if (wake_fd_[0] >= 0) close(wake_fd_[0]);
  if (wake_fd_[1] >= 0) close(wake_fd_[1]);
  if (inotify_fd_ >= 0) close(inotify_fd_);
}

void FileCache::Wake() {
  if (wake_fd_[1] < 0) return;
  const char byte = 1;
  ssize_t ignored = write(wake_fd_[1], &byte, 1);
  (void)ignored;
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
      const int wd = inotify_add_watch(inotify_fd_, dir.c_str(), kWatchMask);
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
  size_t end = root.size();  // the directory to watch is target[0, end)
  while (true) {
    const std::string dir = target.substr(0, end);
    // The root itself may be a symlink (a deployment switch): followed, as everywhere else.
    const uint32_t flags = end == root.size() ? IN_ONLYDIR : IN_ONLYDIR | IN_DONT_FOLLOW;
    const int wd = inotify_add_watch(inotify_fd_, dir.c_str(), kWatchMask | flags);
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
