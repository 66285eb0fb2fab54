// HashPool: jobs run, lanes split over idle threads, resize, niceness and policy (as the
// kernel reports them), and shutdown.
#include "ssr_native/hash_pool.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ssr_native/argon2.h"

namespace ssr_native {
namespace {

HashPool::Options Options(unsigned threads, int nice) {
  HashPool::Options options;
  options.threads = threads;
  options.nice = nice;
  return options;
}

TEST(HashPool, RunsEveryJob) {
  HashPool pool(Options(2, 0));
  std::atomic<int> done{0};
  std::vector<std::promise<void>> finished(50);
  for (int i = 0; i < 50; ++i) {
    pool.Submit([&, i] {
      done.fetch_add(1);
      finished[i].set_value();
    });
  }
  for (auto& f : finished) f.get_future().wait();
  EXPECT_EQ(done.load(), 50);
}

TEST(HashPool, ParallelForRunsEachItemOnceAndUsesIdleThreads) {
  HashPool pool(Options(4, 0));
  std::promise<std::set<std::thread::id>> result;
  std::vector<std::atomic<int>> hits(64);
  pool.Submit([&] {
    std::mutex m;
    std::set<std::thread::id> ids;
    for (int round = 0; round < 20; ++round) {
      pool.ParallelFor(64, [&](uint32_t i) {
        hits[i].fetch_add(1);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        std::lock_guard<std::mutex> lock(m);
        ids.insert(std::this_thread::get_id());
      });
    }
    result.set_value(ids);
  });
  const auto ids = result.get_future().get();
  for (auto& h : hits) EXPECT_EQ(h.load(), 20);
  // Idle threads joined in (the exact number depends on scheduling).
  EXPECT_GT(ids.size(), 1u);
}

TEST(HashPool, ParallelForFromOutsideThePoolAndWhenAllBusy) {
  HashPool pool(Options(1, 0));
  std::atomic<int> sum{0};
  pool.ParallelFor(10, [&](uint32_t i) { sum += static_cast<int>(i); });
  EXPECT_EQ(sum.load(), 45);
  // The only thread runs a job that splits: nobody is idle, so it does every item itself.
  std::promise<int> inside;
  pool.Submit([&] {
    std::atomic<int> s{0};
    pool.ParallelFor(10, [&](uint32_t i) { s += static_cast<int>(i); });
    inside.set_value(s.load());
  });
  EXPECT_EQ(inside.get_future().get(), 45);
}

TEST(HashPool, ConcurrentHashesGiveTheSameTags) {
  HashPool pool(Options(3, 5));
  EXPECT_EQ(pool.nice(), 5);
  const std::string password = "password", salt = "somesalt";
  std::vector<std::promise<std::vector<uint8_t>>> tags(6);
  for (auto& promise : tags) {
    pool.Submit([&pool, &password, &salt, &promise] {
      Argon2Params params;
      params.memory_kib = 256;
      params.passes = 2;
      params.lanes = 2;
      Argon2Inputs in;
      in.password = reinterpret_cast<const uint8_t*>(password.data());
      in.password_size = password.size();
      in.salt = reinterpret_cast<const uint8_t*>(salt.data());
      in.salt_size = salt.size();
      std::vector<uint8_t> tag(32);
      Argon2Hash(params, in, tag.data(), tag.size(),
                 [&pool](uint32_t n, const std::function<void(uint32_t)>& body) {
                   pool.ParallelFor(n, body);
                 });
      promise.set_value(tag);
    });
  }
  // $argon2id$v=19$m=256,t=2,p=2$c29tZXNhbHQ$bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc
  const std::vector<uint8_t> expected = {0x6d, 0x09, 0x3c, 0x50, 0x1f, 0xd5, 0x99, 0x96,
                                         0x45, 0xe0, 0xea, 0x3b, 0xf6, 0x20, 0xd7, 0xb8,
                                         0xbe, 0x7f, 0xd2, 0xdb, 0x59, 0xc2, 0x0d, 0x9f,
                                         0xff, 0x95, 0x39, 0xda, 0x2b, 0xf5, 0x70, 0x37};
  for (auto& promise : tags) EXPECT_EQ(promise.get_future().get(), expected);
}

TEST(HashPool, SpareThreadsCountsIdleThreadsWithoutQueuedWork) {
  HashPool pool(Options(2, 0));
  // Both threads start idle (give them a moment to reach their wait).
  for (int i = 0; i < 1000 && pool.spare_threads() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(pool.spare_threads(), 2u);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::promise<void> started;
  pool.Submit([&, released] {
    started.set_value();
    released.wait();
  });
  started.get_future().wait();
  EXPECT_LE(pool.spare_threads(), 1u);
  release.set_value();
}

// What the kernel says, not what the pool stored: the pool's threads (named ssr-hash-pool)
// from /proc/self/task, each thread's niceness and scheduling policy from its stat line.
struct PoolThread {
  int nice;
  int policy;
};

// A /proc file's text, or "" when it cannot be read: a thread that exits between readdir and
// the read makes read() fail with ESRCH (std::ifstream throws from underflow on that).
std::string ReadProcFile(const std::string& path) {
  std::string text;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char chunk[1024];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0) {
      if (n < 0) text.clear();
      break;
    }
    text.append(chunk, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

std::vector<PoolThread> PoolThreads() {
  std::vector<PoolThread> out;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return out;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    const std::string base = std::string("/proc/self/task/") + entry->d_name;
    if (ReadProcFile(base + "/comm") != "ssr-hash-pool\n") continue;
    const std::string stat = ReadProcFile(base + "/stat");
    const size_t close_paren = stat.rfind(") ");
    if (close_paren == std::string::npos) continue;  // gone since readdir: not counted
    std::istringstream fields(stat.substr(close_paren + 2));
    std::vector<std::string> f((std::istream_iterator<std::string>(fields)),
                               std::istream_iterator<std::string>());
    // Fields from the 3rd (state) on: nice is the 19th, policy the 41st.
    if (f.size() < 39) continue;
    out.push_back({std::stoi(f[16]), std::stoi(f[38])});
  }
  closedir(dir);
  return out;
}

// Waits (up to 10 s, polling) until pred(PoolThreads()) holds; returns the last sample.
template <typename Pred>
std::vector<PoolThread> WaitForPoolThreads(Pred pred) {
  std::vector<PoolThread> threads;
  for (int i = 0; i < 1000; ++i) {
    threads = PoolThreads();
    if (pred(threads)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return threads;
}

bool AllNice(const std::vector<PoolThread>& threads, int nice, int policy) {
  for (const auto& t : threads) {
    if (t.nice != nice || t.policy != policy) return false;
  }
  return true;
}

TEST(HashPool, ResizeStartsAndStopsRealThreads) {
  HashPool pool(Options(2, 0));
  EXPECT_EQ(pool.threads(), 2u);
  EXPECT_EQ(WaitForPoolThreads([](auto& t) { return t.size() == 2; }).size(), 2u);
  pool.Resize(4);
  EXPECT_EQ(pool.threads(), 4u);
  EXPECT_EQ(WaitForPoolThreads([](auto& t) { return t.size() == 4; }).size(), 4u);
  // Surplus threads exit once idle: the kernel's thread list shrinks, not just a counter.
  pool.Resize(1);
  EXPECT_EQ(pool.threads(), 1u);
  // (ASSERT: a thread that lingers may also swallow the next job's wake-up.)
  ASSERT_EQ(WaitForPoolThreads([](auto& t) { return t.size() == 1; }).size(), 1u);
  std::promise<void> ran;
  pool.Submit([&] { ran.set_value(); });
  ran.get_future().wait();
  EXPECT_GE(HashPool::DefaultThreads(), 1u);
}

TEST(HashPool, NiceAndPolicyAreAppliedToTheThreads) {
  HashPool pool(Options(3, 7));
  // Applied at start: every thread runs at nice 7 under SCHED_OTHER (0).
  auto threads = WaitForPoolThreads([](auto& t) { return t.size() == 3 && AllNice(t, 7, 0); });
  ASSERT_EQ(threads.size(), 3u);
  EXPECT_TRUE(AllNice(threads, 7, 0));
  // Raised while idle: applied without waiting for a job. Clamped to 19.
  pool.SetNice(25);
  EXPECT_EQ(pool.nice(), 19);
  threads = WaitForPoolThreads([](auto& t) { return AllNice(t, 19, 0); });
  EXPECT_TRUE(AllNice(threads, 19, 0));
  // SCHED_BATCH (3) keeps the niceness.
  pool.SetPolicy(HashPool::Policy::kBatch);
  EXPECT_EQ(pool.policy(), HashPool::Policy::kBatch);
  threads = WaitForPoolThreads([](auto& t) { return AllNice(t, 19, 3); });
  EXPECT_TRUE(AllNice(threads, 19, 3));
  // Seen from inside a job, too.
  std::promise<int> seen;
  pool.Submit(
      [&] { seen.set_value(getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)))); });
  EXPECT_EQ(seen.get_future().get(), 19);
}

TEST(HashPool, CallsOnIdleAfterAJob) {
  std::promise<std::thread::id> idle;
  std::atomic<bool> set{false};
  HashPool::Options options;
  options.threads = 1;
  options.nice = 0;
  options.idle_ms = 10;
  options.on_idle = [&] {
    if (!set.exchange(true)) idle.set_value(std::this_thread::get_id());
  };
  HashPool pool(options);
  std::promise<std::thread::id> ran;
  pool.Submit([&] { ran.set_value(std::this_thread::get_id()); });
  const auto job_thread = ran.get_future().get();
  EXPECT_EQ(idle.get_future().get(), job_thread);
}

TEST(HashPool, DestructorFinishesQueuedJobs) {
  std::atomic<int> done{0};
  {
    HashPool pool(Options(1, 0));
    for (int i = 0; i < 20; ++i) pool.Submit([&] { done.fetch_add(1); });
  }
  EXPECT_EQ(done.load(), 20);
}

}  // namespace
}  // namespace ssr_native
