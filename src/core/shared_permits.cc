// SharedPermits: slot i is byte i of the lock file, write-locked with F_OFD_SETLK. Open file
// description locks (Linux >= 3.15) belong to the open file, not to the process's every file
// descriptor like classic POSIX locks, so closing an unrelated descriptor of the same file does
// not drop them; all threads of this process share one description, hence the `mine_` bitmap.
#include "ssr_native/shared_permits.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "own_file.h"

#if defined(__linux__)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#endif

namespace ssr_native {

#if defined(__linux__)

namespace {

bool LockByte(int fd, unsigned slot, short type, int command) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  lock.l_start = static_cast<off_t>(slot);
  lock.l_len = 1;
  lock.l_pid = 0;  // required for OFD locks
  return fcntl(fd, command, &lock) == 0;
}

// Opens the lock file, creating it when absent, and returns its descriptor; -1 with *error set
// (naming the file and why) when it cannot be opened or is not ours. The name is predictable and
// the folder (/dev/shm) world-writable, so a file someone else made first must be refused: its
// owner could hold every byte's lock and starve this budget.
int OpenOwnLockFile(const std::string& path, std::string* error) {
  // Two rounds: the file may be removed between a failed create and the open of the existing one.
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;  // created by us, mode 0600 (the umask can only narrow it)
    if (errno != EEXIST) {
      *error = path + ": " + std::strerror(errno);
      return -1;
    }
    // O_NONBLOCK: a FIFO or device planted under the name must not block the open.
    fd = open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      *error = path + ": " + (errno == ELOOP ? "a symbolic link, refused" : std::strerror(errno));
      return -1;
    }
    const std::string why = WhyNotOurs(fd);
    if (!why.empty()) {
      close(fd);
      *error = path + ": refused, " + why;
      return -1;
    }
    return fd;
  }
  *error = path + ": removed while being opened";
  return -1;
}

}  // namespace

std::unique_ptr<SharedPermits> SharedPermits::Open(const std::string& path, unsigned slots,
                                                   std::string* error) {
  if (slots == 0) {
    *error = "at least one slot";
    return nullptr;
  }
  const int fd = OpenOwnLockFile(path, error);
  if (fd < 0) return nullptr;
  // Probe: a kernel without OFD locks answers EINVAL.
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = 0;
  probe.l_len = 1;
  if (fcntl(fd, F_OFD_GETLK, &probe) != 0) {
    *error = std::string("open file description locks: ") + std::strerror(errno);
    close(fd);
    return nullptr;
  }
  return std::unique_ptr<SharedPermits>(new SharedPermits(fd, slots));
}

SharedPermits::SharedPermits(int fd, unsigned slots) : fd_(fd), slots_(slots), mine_(slots) {}

SharedPermits::~SharedPermits() { close(fd_); }  // drops any lock still held

bool SharedPermits::TryAcquire(unsigned* slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (unsigned i = 0; i < slots_; ++i) {
    if (mine_[i]) continue;
    if (LockByte(fd_, i, F_WRLCK, F_OFD_SETLK)) {
      mine_[i] = true;
      *slot = i;
      return true;
    }
  }
  return false;
}

unsigned SharedPermits::Acquire() {
  unsigned slot = 0;
  auto wait = std::chrono::milliseconds(1);
  while (!TryAcquire(&slot)) {
    // Polling, not F_OFD_SETLKW on one slot: any slot may free up first. A hash takes tens of
    // milliseconds, so a few wake-ups per hash cost nothing.
    std::this_thread::sleep_for(wait);
    wait = std::min(wait * 2, std::chrono::milliseconds(10));
  }
  return slot;
}

void SharedPermits::Release(unsigned slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (slot >= slots_ || !mine_[slot]) return;
  LockByte(fd_, slot, F_UNLCK, F_OFD_SETLK);
  mine_[slot] = false;
}

unsigned SharedPermits::HeldHere() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<unsigned>(std::count(mine_.begin(), mine_.end(), true));
}

unsigned SharedPermits::HeldMachineWide() const {
  std::lock_guard<std::mutex> lock(mutex_);
  unsigned held = 0;
  for (unsigned i = 0; i < slots_; ++i) {
    if (mine_[i]) {
      ++held;
      continue;
    }
    struct flock probe {};
    probe.l_type = F_WRLCK;
    probe.l_whence = SEEK_SET;
    probe.l_start = static_cast<off_t>(i);
    probe.l_len = 1;
    if (fcntl(fd_, F_OFD_GETLK, &probe) == 0 && probe.l_type != F_UNLCK) ++held;
  }
  return held;
}

#else  // Not Linux: no machine-wide budget (Open fails; callers keep the per-process limit).

std::unique_ptr<SharedPermits> SharedPermits::Open(const std::string&, unsigned,
                                                   std::string* error) {
  *error = "a machine-wide budget needs Linux (open file description locks)";
  return nullptr;
}
SharedPermits::SharedPermits(int fd, unsigned slots) : fd_(fd), slots_(slots), mine_(slots) {}
SharedPermits::~SharedPermits() = default;
bool SharedPermits::TryAcquire(unsigned*) { return false; }
unsigned SharedPermits::Acquire() { return 0; }
void SharedPermits::Release(unsigned) {}
unsigned SharedPermits::HeldHere() const { return 0; }
unsigned SharedPermits::HeldMachineWide() const { return 0; }

#endif

}  // namespace ssr_native
