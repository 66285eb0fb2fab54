// A machine-wide limit on concurrent hashes, shared by cooperating processes (the workers of
// one cluster): N permit slots, each one byte of a lock file held with an open file
// description lock (F_OFD_SETLK). The kernel drops a process's locks when it dies, so a worker
// killed mid-hash (even with SIGKILL) cannot leak its permit.
#ifndef SSR_NATIVE_SHARED_PERMITS_H_
#define SSR_NATIVE_SHARED_PERMITS_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ssr_native {

class SharedPermits {
 public:
  /// Opens the lock file at `path` with `slots` permits, creating it (O_EXCL, mode 0600) when
  /// absent. An existing file is used only when it is ours: a regular file (not a symbolic link,
  /// directory or FIFO) owned by this effective uid, with no group or other permission bits and
  /// one link. Returns null and sets *error (naming the file and why) when the file cannot be
  /// opened, is refused, or locks are not supported.
  static std::unique_ptr<SharedPermits> Open(const std::string& path, unsigned slots,
                                             std::string* error);
  ~SharedPermits();
  SharedPermits(const SharedPermits&) = delete;
  SharedPermits& operator=(const SharedPermits&) = delete;

  /// Takes a free slot without waiting; false when every slot is held (by anyone).
  bool TryAcquire(unsigned* slot);
  /// Takes a slot, waiting (polling every 1..10 ms) until one is free.
  unsigned Acquire();
  void Release(unsigned slot);

  unsigned slots() const { return slots_; }
  /// Slots held by this process.
  unsigned HeldHere() const;
  /// Slots held by every process together (this one included): a snapshot.
  unsigned HeldMachineWide() const;

 private:
  SharedPermits(int fd, unsigned slots);
  int fd_;
  unsigned slots_;
  mutable std::mutex mutex_;
  std::vector<bool> mine_;  // slots this process holds (one OFD: it cannot conflict with itself)
};

}  // namespace ssr_native

#endif  // SSR_NATIVE_SHARED_PERMITS_H_
