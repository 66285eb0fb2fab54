// SharedCache under a full segment: the hit ratio of a seeded Zipf trace of pages of mixed
// sizes (get, and put on a miss), entries evicted per put (mean and most), and the time of each
// operation: p99 and max for put, get, purge, keys, lock and unlock, as this thread's CPU time
// (one process: an operation's CPU time bounds the work it does under the segment's mutex; a
// purge or a key walk is several holds) and put's wall time. Each case runs the same trace
// once. GetHit: the CPU of one hit (an 8 KB page copied out).
//   node scripts/cpp.js bench ZipfTrace   (or GetHit)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ssr_native/shared_cache.h"

namespace {

using ssr_native::SharedCache;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kPages = 100000;
constexpr uint32_t kRequests = 400000;

double CpuUs() {
  struct timespec ts {};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

struct Times {
  std::vector<double> us;
  void Add(double sinceCpuUs) { us.push_back(CpuUs() - sinceCpuUs); }
  double Quantile(double q) {
    if (us.empty()) return 0;
    std::sort(us.begin(), us.end());
    return us[std::min(us.size() - 1, static_cast<size_t>(q * us.size()))];
  }
};

void Report(benchmark::State& state, const char* name, Times* t) {
  state.counters[std::string(name) + "_p99_us"] = t->Quantile(0.99);
  state.counters[std::string(name) + "_max_us"] = t->Quantile(1.0);
}

// args: maxBytes in MiB, maxEntries
void ZipfTrace(benchmark::State& state) {
  const uint64_t maxBytes = static_cast<uint64_t>(state.range(0)) << 20;
  const auto maxEntries = static_cast<uint32_t>(state.range(1));
  const std::string path = "/dev/shm/ssr-native-bench-zipf-" + std::to_string(getpid());
  unlink(path.c_str());
  std::string error;
  auto cache = SharedCache::Open(path, maxBytes, maxEntries, false, &error);
  if (!cache) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::mt19937_64 rng(52);
  // Zipf (s = 0.9) over the pages; each page's size log-uniform from 1 KB to 128 KB
  std::vector<double> cdf(kPages);
  double sum = 0;
  for (uint32_t i = 0; i < kPages; ++i) cdf[i] = sum += 1 / std::pow(i + 1.0, 0.9);
  std::vector<uint32_t> sizes(kPages);
  for (auto& size : sizes)
    size = static_cast<uint32_t>(1024 * std::pow(128.0, std::uniform_real_distribution<>()(rng)));
  const std::string bytes(128 * 1024, 'x');
  std::uniform_real_distribution<> uniform(0, sum);
  uint64_t hits = 0, gets = 0, puts = 0, evictedBefore = 0;
  Times put, get, putWall;
  uint64_t evictedMost = 0;
  std::string meta, body;
  for (auto _ : state) {
    for (uint32_t r = 0; r < kRequests; ++r) {
      const uint32_t page = static_cast<uint32_t>(
          std::lower_bound(cdf.begin(), cdf.end(), uniform(rng)) - cdf.begin());
      const std::string key = "/page/" + std::to_string(page);
      const bool measured = r >= kRequests / 2;  // the first half fills the segment
      if (r == kRequests / 2) evictedBefore = cache->Stats().evictions;
      double t0 = CpuUs();
      const bool hit = cache->Get(key, 0, 0, &meta, &body) != 0;
      if (measured) {
        get.Add(t0);
        ++gets;
        hits += hit;
      }
      if (hit) continue;
      SharedCache::Record rec;
      rec.target = key;
      rec.primary = key;
      rec.tags = "page\nsize" + std::to_string(sizes[page] / 16384);
      rec.meta = "{}";
      rec.body = reinterpret_cast<const uint8_t*>(bytes.data());
      rec.bodySize = sizes[page];
      rec.expiresAtMs = INT64_MAX / 2;
      const uint64_t evictedBefore1 = measured ? cache->Stats().evictions : 0;
      const auto w0 = Clock::now();
      t0 = CpuUs();
      cache->Put(key, rec);
      if (measured) {
        put.Add(t0);
        putWall.us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - w0).count());
        evictedMost = std::max(evictedMost, cache->Stats().evictions - evictedBefore1);
        ++puts;
      }
    }
  }
  const auto stats = cache->Stats();
  state.counters["hit_ratio"] = static_cast<double>(hits) / gets;
  state.counters["evicted_per_put"] = static_cast<double>(stats.evictions - evictedBefore) / puts;
  state.counters["evicted_most"] = static_cast<double>(evictedMost);
  state.counters["full"] = static_cast<double>(stats.bytes) / stats.maxBytes;
  Report(state, "put", &put);
  Report(state, "get", &get);
  Report(state, "put_wall", &putWall);
  Times purge, keys, lock, unlock;
  for (int i = 0; i < 50; ++i) {
    double t0 = CpuUs();
    cache->Purge(SharedCache::Field::kTag, "no-such-tag", false);  // walks every entry
    purge.Add(t0);
    t0 = CpuUs();
    cache->Keys(SharedCache::Field::kTarget, "/page/1", true);
    keys.Add(t0);
  }
  for (int i = 0; i < 2000; ++i) {
    const std::string key = "/page/" + std::to_string(i);
    double t0 = CpuUs();
    cache->TryLock(key, 0, 1000);
    lock.Add(t0);
    t0 = CpuUs();
    cache->Unlock(key);
    unlock.Add(t0);
  }
  Report(state, "purge", &purge);
  Report(state, "keys", &keys);
  Report(state, "lock", &lock);
  Report(state, "unlock", &unlock);
  cache.reset();
  unlink(path.c_str());
}
BENCHMARK(ZipfTrace)
    ->Args({64, 10000})
    ->Args({256, 40000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

void GetHit(benchmark::State& state) {
  const std::string path = "/dev/shm/ssr-native-bench-hit-" + std::to_string(getpid());
  unlink(path.c_str());
  std::string error;
  auto cache = SharedCache::Open(path, 64 << 20, 10000, false, &error);
  if (!cache) {
    state.SkipWithError(error.c_str());
    return;
  }
  const std::string page(8192, 'p');
  SharedCache::Record rec;
  rec.target = rec.primary = "/hit";
  rec.meta = "{\"status\":200}";
  rec.body = reinterpret_cast<const uint8_t*>(page.data());
  rec.bodySize = page.size();
  rec.expiresAtMs = INT64_MAX / 2;
  cache->Put("/hit", rec);
  std::string meta, body;
  for (auto _ : state) benchmark::DoNotOptimize(cache->Get("/hit", 0, 0, &meta, &body));
  cache.reset();
  unlink(path.c_str());
}
BENCHMARK(GetHit);

}  // namespace
