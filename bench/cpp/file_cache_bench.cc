// FileCache: the cost of a hit (memory only, under the mutex) against a miss that reads the file
// (open + fstat + read + CRC-32), for a 1 KiB and a 64 KiB file.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "ssr_native/file_cache.h"

namespace {

std::string MakeFile(size_t size) {
  char dir[] = "/tmp/ssr_native_fc_bench_XXXXXX";
  if (mkdtemp(dir) == nullptr) return std::string();
  const std::string path = std::string(dir) + "/file.js";
  std::ofstream(path, std::ios::binary) << std::string(size, 'x');
  return path;
}

void RemoveFile(const std::string& path) {
  unlink(path.c_str());
  rmdir(path.substr(0, path.rfind('/')).c_str());
}

void BM_FileCacheHit(benchmark::State& state) {
  const std::string path = MakeFile(static_cast<size_t>(state.range(0)));
  ssr_native::FileCache cache({});
  cache.Load(path);
  for (auto _ : state) benchmark::DoNotOptimize(cache.Lookup(path));
  RemoveFile(path);
}

void BM_FileCacheMiss(benchmark::State& state) {
  const std::string path = MakeFile(static_cast<size_t>(state.range(0)));
  ssr_native::FileCache cache({});
  for (auto _ : state) {
    cache.Invalidate(path);
    benchmark::DoNotOptimize(cache.Load(path));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  RemoveFile(path);
}

void BM_FileCacheTouch(benchmark::State& state) {
  const std::string path = MakeFile(1024);
  ssr_native::FileCache cache({});
  const uint64_t id = cache.Load(path).file->id;
  for (auto _ : state) benchmark::DoNotOptimize(cache.Touch(id));
  RemoveFile(path);
}

}  // namespace

BENCHMARK(BM_FileCacheHit)->Arg(1024)->Arg(64 * 1024);
BENCHMARK(BM_FileCacheMiss)->Arg(1024)->Arg(64 * 1024);
BENCHMARK(BM_FileCacheTouch);
