// A persistent pool of threads for CPU-heavy hashing, separate from libuv's pool so fs, dns
// and zlib work never waits behind a password hash.
#ifndef SSR_NATIVE_HASH_POOL_H_
#define SSR_NATIVE_HASH_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ssr_native {

/// Runs submitted jobs on a fixed set of threads created up front (none per job). A job may
/// call ParallelFor to split its work: idle threads join in, busy ones do not, so a lone job
/// uses the whole pool while under load each thread works through whole jobs. Threads run
/// at a lower OS priority (a positive nice value) so they yield the CPU to the JS thread.
class HashPool {
 public:
  /// Linux scheduling policy of the pool threads. kBatch: CFS weight from `nice`, but no
  /// wakeup preemption of other threads. kIdle: runs only when nothing else wants the CPU
  /// (`nice` is ignored); leaving it again needs CAP_SYS_NICE.
  enum class Policy { kNormal = 0, kBatch = 1, kIdle = 2 };

  struct Options {
    unsigned threads = 0;  // 0: the number of CPUs this process may run on
    int nice = 10;         // added niceness of the pool threads, 0..19 (Linux, per thread)
    Policy policy = Policy::kNormal;
    /// Called on a pool thread once it has been idle for idle_ms after running a job: the
    /// place to free per-thread caches (Argon2's kept memory).
    std::function<void()> on_idle;
    unsigned idle_ms = 2000;
  };

  explicit HashPool(const Options& options);
  /// Finishes the queued jobs, then joins the threads.
  ~HashPool();
  HashPool(const HashPool&) = delete;
  HashPool& operator=(const HashPool&) = delete;

  /// Queues `job`; it runs on a pool thread. Jobs must not throw.
  void Submit(std::function<void()> job);

  /// Runs body(0) .. body(count - 1) and returns when all are done. Call it from a job: the
  /// calling thread works too, idle pool threads help. Also safe from any other thread.
  void ParallelFor(uint32_t count, const std::function<void(uint32_t)>& body);

  /// Changes the number of threads (at least 1); surplus threads exit once idle.
  void Resize(unsigned threads);
  /// Changes the niceness; each thread applies it before its next job.
  void SetNice(int nice);
  /// Changes the scheduling policy; each thread applies it before its next job.
  void SetPolicy(Policy policy);

  unsigned threads() const;
  int nice() const;
  Policy policy() const;
  /// Jobs waiting for a thread, and jobs running.
  size_t queued() const;
  size_t running() const;
  /// Threads that would have nothing to do even after every queued job was taken: how many
  /// could help a ParallelFor started now.
  uint32_t spare_threads() const;

  /// The number of CPUs this process may run on (its affinity mask), at least 1.
  static unsigned DefaultThreads();

 private:
  struct Split;
  void WorkerLoop(unsigned index);
  void RunSplitItems(Split* split);
  struct Applied {  // what one thread has applied to itself
    int nice = 0;
    Policy policy = Policy::kNormal;
    unsigned generation = 0;  // priority_generation_ when it last tried
  };
  void ApplyPriority(Applied* applied);

  mutable std::mutex mutex_;
  std::condition_variable wake_;        // workers: a job, a split or a stop
  std::condition_variable split_done_;  // ParallelFor callers: a helper left their split
  std::deque<std::function<void()>> jobs_;
  std::vector<Split*> splits_;  // splits with items nobody has claimed yet
  std::vector<std::thread> workers_;
  unsigned target_threads_ = 0;
  unsigned live_threads_ = 0;
  unsigned idle_threads_ = 0;
  size_t running_ = 0;
  int nice_ = 0;
  Policy policy_ = Policy::kNormal;
  unsigned priority_generation_ = 0;  // bumped by SetNice/SetPolicy: threads re-apply
  bool stopping_ = false;
  std::function<void()> on_idle_;
  unsigned idle_ms_ = 2000;
};

}  // namespace ssr_native

#endif  // SSR_NATIVE_HASH_POOL_H_
