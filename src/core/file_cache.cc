#include "ssr_native/file_cache.h"

#include <errno.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "file_cache_internal.h"
#include "file_read.h"
#include "ssr_native/crc32.h"
#include "ssr_native/etag.h"

namespace ssr_native {

namespace {

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
  StartWatching();
}

FileCache::~FileCache() { StopWatching(); }

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
    EnsureWatchedLocked(internal::DirectoryOf(path), &watched);
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
        !(real == real_root_ || internal::HasPrefix(real, real_root_ + "/") || real_root_ == "/")) {
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
    if (prefix ? internal::HasPrefix(ticket->path, path) : ticket->path == path)
      ticket->stale = true;
  }
  bool dropped = false;
  if (prefix) {
    for (auto it = lru_.begin(); it != lru_.end();) {
      auto next = std::next(it);
      if (internal::HasPrefix(it->file->path, path)) {
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

}  // namespace ssr_native
