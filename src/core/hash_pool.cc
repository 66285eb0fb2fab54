// HashPool: a job queue, plus "splits" (the lanes of one slice of one hash) that idle threads
// help with. Every handoff goes through one mutex; a default hash needs 12 splits, so the
// lock is taken a few dozen times per hash, against ~10^5 block computations.
#include "ssr_native/hash_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace ssr_native {

struct HashPool::Split {
  uint32_t count = 0;
  const std::function<void(uint32_t)>* body = nullptr;
  std::atomic<uint32_t> next{0};
  unsigned helpers = 0;  // guarded by mutex_
};

unsigned HashPool::DefaultThreads() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
#endif
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1;
}

HashPool::HashPool(const Options& options) {
  nice_ = std::clamp(options.nice, 0, 19);
  policy_ = options.policy;
  on_idle_ = options.on_idle;
  idle_ms_ = options.idle_ms;
  Resize(options.threads == 0 ? DefaultThreads() : options.threads);
}

HashPool::~HashPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
}

void HashPool::Resize(unsigned threads) {
  threads = std::max(threads, 1u);
  std::lock_guard<std::mutex> lock(mutex_);
  target_threads_ = threads;
  while (live_threads_ < target_threads_) {
    ++live_threads_;
    workers_.emplace_back([this] { WorkerLoop(0); });
  }
  wake_.notify_all();  // surplus threads exit once idle
}

void HashPool::SetNice(int nice) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    nice_ = std::clamp(nice, 0, 19);
    ++priority_generation_;
  }
  wake_.notify_all();  // idle threads apply it now, not at their next job
}

unsigned HashPool::threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return target_threads_;
}

void HashPool::SetPolicy(Policy policy) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    policy_ = policy;
    ++priority_generation_;
  }
  wake_.notify_all();
}

HashPool::Policy HashPool::policy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return policy_;
}

int HashPool::nice() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return nice_;
}

size_t HashPool::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return jobs_.size();
}

size_t HashPool::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_;
}

uint32_t HashPool::spare_threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_threads_ > jobs_.size() ? static_cast<uint32_t>(idle_threads_ - jobs_.size()) : 0;
}

void HashPool::Submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void HashPool::ApplyPriority(Applied* applied) {
  Applied wanted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    wanted.nice = nice_;
    wanted.policy = policy_;
    applied->generation = priority_generation_;
  }
  if (wanted.nice == applied->nice && wanted.policy == applied->policy) return;
#if defined(__linux__)
  const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (wanted.policy != applied->policy) {
    // Per thread: sched_setscheduler takes a thread id on Linux. Leaving SCHED_IDLE needs
    // CAP_SYS_NICE; without it the thread keeps its policy.
    const int linux_policy = wanted.policy == Policy::kBatch  ? SCHED_BATCH
                             : wanted.policy == Policy::kIdle ? SCHED_IDLE
                                                              : SCHED_OTHER;
    sched_param param{};
    param.sched_priority = 0;
    if (sched_setscheduler(tid, linux_policy, &param) == 0) applied->policy = wanted.policy;
  }
  // On Linux, PRIO_PROCESS with a thread id sets that one thread's niceness. Going back
  // down needs CAP_SYS_NICE; without it the thread keeps its current (lower) priority.
  if (wanted.nice != applied->nice &&
      setpriority(PRIO_PROCESS, static_cast<id_t>(tid), wanted.nice) == 0) {
    applied->nice = wanted.nice;
  }
#else
  *applied = wanted;
#endif
}

void HashPool::RunSplitItems(Split* split) {
  for (;;) {
    const uint32_t i = split->next.fetch_add(1, std::memory_order_relaxed);
    if (i >= split->count) return;
    (*split->body)(i);
  }
}

void HashPool::WorkerLoop(unsigned /*index*/) {
#if defined(__linux__)
  // A name to find the pool in `top -H`, /proc/<pid>/task/*/comm (and the tests).
  pthread_setname_np(pthread_self(), "ssr-hash-pool");
#endif
  Applied applied;
  ApplyPriority(&applied);
  std::unique_lock<std::mutex> lock(mutex_);
  ++idle_threads_;
  bool idle_hook_due = false;  // a job ran since on_idle was last called
  auto has_work = [this, &applied] {
    return stopping_ || !splits_.empty() || !jobs_.empty() || live_threads_ > target_threads_ ||
           applied.generation != priority_generation_;
  };
  for (;;) {
    if (idle_hook_due && on_idle_) {
      if (!wake_.wait_for(lock, std::chrono::milliseconds(idle_ms_), has_work)) {
        idle_hook_due = false;
        lock.unlock();
        on_idle_();
        lock.lock();
        continue;
      }
    } else {
      wake_.wait(lock, has_work);
    }
    if (applied.generation != priority_generation_) {
      lock.unlock();
      ApplyPriority(&applied);
      lock.lock();
      continue;
    }
    if (!splits_.empty()) {
      // Help finish a hash already running before starting a new one: lower latency,
      // same throughput.
      Split* split = splits_.back();
      ++split->helpers;
      --idle_threads_;
      lock.unlock();
      RunSplitItems(split);
      lock.lock();
      // All items are claimed now: nobody else needs to find this split.
      auto it = std::find(splits_.begin(), splits_.end(), split);
      if (it != splits_.end()) splits_.erase(it);
      ++idle_threads_;
      if (--split->helpers == 0) split_done_.notify_all();
      continue;
    }
    if (!jobs_.empty()) {
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      --idle_threads_;
      ++running_;
      lock.unlock();
      ApplyPriority(&applied);
      job();
      job = nullptr;  // destroy captured state outside the lock
      idle_hook_due = true;
      lock.lock();
      --running_;
      ++idle_threads_;
      continue;
    }
    if (stopping_ || live_threads_ > target_threads_) {
      --live_threads_;
      --idle_threads_;
      return;
    }
  }
}

void HashPool::ParallelFor(uint32_t count, const std::function<void(uint32_t)>& body) {
  if (count == 0) return;
  if (count == 1) {
    body(0);
    return;
  }
  Split split;
  split.count = count;
  split.body = &body;
  bool published = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_threads_ > 0) {
      splits_.push_back(&split);
      published = true;
    }
  }
  if (published) {
    // Wake as many idle threads as there are items for them.
    if (count > 2) {
      wake_.notify_all();
    } else {
      wake_.notify_one();
    }
  }
  RunSplitItems(&split);
  if (!published) return;
  std::unique_lock<std::mutex> lock(mutex_);
  auto it = std::find(splits_.begin(), splits_.end(), &split);
  if (it != splits_.end()) splits_.erase(it);
  split_done_.wait(lock, [&] { return split.helpers == 0; });
}

}  // namespace ssr_native
