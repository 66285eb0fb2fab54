#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace ssr_native {
namespace internal {
namespace {

int64_t Nanos(const struct timespec& t) {
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + static_cast<int64_t>(t.tv_nsec);
}

void Fill(const struct stat& st, FileStat* out) {
  out->size = static_cast<uint64_t>(st.st_size);
  out->dev = static_cast<uint64_t>(st.st_dev);
  out->ino = static_cast<uint64_t>(st.st_ino);
  out->mode = static_cast<uint32_t>(st.st_mode);
  out->nlink = static_cast<uint32_t>(st.st_nlink);
  out->uid = static_cast<uint32_t>(st.st_uid);
  out->gid = static_cast<uint32_t>(st.st_gid);
  out->rdev = static_cast<uint64_t>(st.st_rdev);
  out->blksize = static_cast<int64_t>(st.st_blksize);
  out->blocks = static_cast<int64_t>(st.st_blocks);
#if defined(__APPLE__)
  out->atime_ns = Nanos(st.st_atimespec);
  out->mtime_ns = Nanos(st.st_mtimespec);
  out->ctime_ns = Nanos(st.st_ctimespec);
#else
  out->atime_ns = Nanos(st.st_atim);
  out->mtime_ns = Nanos(st.st_mtim);
  out->ctime_ns = Nanos(st.st_ctim);
#endif
  out->is_directory = S_ISDIR(st.st_mode);
  out->is_regular = S_ISREG(st.st_mode);
}

// Closes the descriptor on every path out of ReadWholeFile.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

int StatPath(const std::string& path, FileStat* out) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return errno;
  Fill(st, out);
  return 0;
}

bool IsSymlink(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

std::string RealPath(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return std::string();
  std::string result(resolved);
  free(resolved);
  return result;
}

namespace {

// One open + fstat + read to end of file + fstat. `changed` says whether the file moved under the
// read: another size or time after than before, or more or fewer bytes than the final size.
ReadResult ReadOnce(const std::string& path, uint64_t max_size, bool* changed) {
  ReadResult result;
  *changed = false;
  int flags = O_RDONLY | O_NONBLOCK;
#ifdef O_CLOEXEC
  flags |= O_CLOEXEC;
#endif
  Fd fd(open(path.c_str(), flags));
  if (fd.get() < 0) {
    result.error = errno;
    return result;
  }
  struct stat before;
  if (fstat(fd.get(), &before) != 0) {
    result.error = errno;
    return result;
  }
  Fill(before, &result.stat);
  if (result.stat.is_directory) {
    result.outcome = ReadOutcome::kDirectory;
    return result;
  }
  if (!result.stat.is_regular) {
    result.outcome = ReadOutcome::kNotRegular;
    return result;
  }
  if (result.stat.size > max_size) {
    result.outcome = ReadOutcome::kTooLarge;
    return result;
  }
  // Read to the end of the file, not to the stat'ed size: a file that grows meanwhile is seen
  // growing (one byte of room beyond the size reveals it), up to max_size + 1 bytes.
  const size_t limit = max_size >= SIZE_MAX - 1 ? SIZE_MAX : static_cast<size_t>(max_size) + 1;
  size_t capacity = static_cast<size_t>(result.stat.size) + 1;
  BlobBytes data(capacity);
  size_t filled = 0;
  while (true) {
    if (filled == capacity) {
      if (capacity >= limit) break;
      const size_t grown = capacity > limit / 2 ? limit : capacity * 2;
      BlobBytes bigger(grown);
      std::memcpy(bigger.get(), data.get(), filled);
      data = std::move(bigger);
      capacity = grown;
    }
    const ssize_t n = read(fd.get(), data.get() + filled, capacity - filled);
    if (n < 0) {
      if (errno == EINTR) continue;
      result.error = errno;
      return result;
    }
    if (n == 0) break;
    filled += static_cast<size_t>(n);
  }
  struct stat after;
  if (fstat(fd.get(), &after) != 0) {
    result.error = errno;
    return result;
  }
  const FileStat first = result.stat;
  Fill(after, &result.stat);
  if (filled > max_size) {
    result.outcome = ReadOutcome::kTooLarge;  // it grew past the cap: stream it from disk
    return result;
  }
  *changed = first.size != result.stat.size || first.mtime_ns != result.stat.mtime_ns ||
             first.ctime_ns != result.stat.ctime_ns || result.stat.size != filled;
  result.stat.size = filled;
  result.data = std::move(data);
  result.size = filled;
  result.outcome = ReadOutcome::kRead;
  return result;
}

}  // namespace

ReadResult ReadWholeFile(const std::string& path, uint64_t max_size, int attempts) {
  if (path.find('\0') != std::string::npos) {
    ReadResult result;
    result.error = ENOENT;
    return result;
  }
  for (int attempt = 1;; ++attempt) {
    bool changed = false;
    ReadResult result = ReadOnce(path, max_size, &changed);
    result.attempts = attempt;
    if (result.outcome != ReadOutcome::kRead || !changed) return result;
    // Written to while we read: read it again, a few times; then these bytes are what we serve
    // (their tag is computed from them), once, and not cached.
    if (attempt >= attempts) {
      result.unstable = true;
      return result;
    }
  }
}

}  // namespace internal
}  // namespace ssr_native
