// Reading one whole file for the cache: open + fstat + read, with the errno of what failed.
// Internal to the core (no public header): FileCache is the API.
#ifndef SSR_NATIVE_SRC_CORE_FILE_READ_H_
#define SSR_NATIVE_SRC_CORE_FILE_READ_H_

#include <cstdint>
#include <memory>
#include <string>

#include "ssr_native/file_cache.h"

namespace ssr_native {
namespace internal {

enum class ReadOutcome { kRead, kDirectory, kTooLarge, kNotRegular, kError };

struct ReadResult {
  ReadOutcome outcome = ReadOutcome::kError;
  int error = 0;  // errno when kError
  FileStat stat;
  BlobBytes data;         // kRead
  size_t size = 0;        // kRead: bytes actually read
  bool unstable = false;  // kRead: the file changed during every attempt; serve, do not cache
  int attempts = 1;       // readings made (more than one when the file changed while read)
};

/// How many times ReadWholeFile reads a file that changes while it is read.
constexpr int kReadAttempts = 4;

/// Stats `path` and, when it is a regular file of at most `max_size` bytes, reads it whole.
/// Opens with O_NONBLOCK so a FIFO never blocks the caller. A file whose size or times differ
/// between the fstat before and after the read (or that has more or fewer bytes than it says)
/// is read again, up to `attempts` times in all; the last reading is then returned as kRead
/// with `unstable` set. Only a file that grew past `max_size` becomes kTooLarge.
ReadResult ReadWholeFile(const std::string& path, uint64_t max_size, int attempts = kReadAttempts);

/// stat(2) into a FileStat; returns 0 or errno.
int StatPath(const std::string& path, FileStat* out);

/// Whether lstat(2) says `path` itself is a symbolic link.
bool IsSymlink(const std::string& path);

/// realpath(3); empty on failure.
std::string RealPath(const std::string& path);

}  // namespace internal
}  // namespace ssr_native

#endif  // SSR_NATIVE_SRC_CORE_FILE_READ_H_
