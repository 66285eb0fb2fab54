// CRC-32 throughput of every code path side by side, one size at a time (bytes/s): 64 B and 1 KB
// (most JSON bodies), 16 KB, 64 KiB, 75 KB (a server-rendered page) and 1 MB. Debian's zlib is
// the outside reference; "dispatched" is what Crc32() runs (its label names the path chosen).
// Paths this CPU lacks are skipped with a message.
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "ssr_native/crc32.h"

namespace {

const size_t kSizes[] = {64, 1024, 16 * 1024, 64 * 1024, 75 * 1024, 1 << 20};

std::vector<uint8_t> Body(size_t n) {
  std::vector<uint8_t> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<uint8_t>(i * 131 + 7);
  return data;
}

void BM_Crc32(benchmark::State& state, ssr_native::Crc32Path path, size_t n) {
  if (!ssr_native::Crc32PathAvailable(path)) {
    state.SkipWithError("this CPU lacks the instructions for this path");
    return;
  }
  const std::vector<uint8_t> data = Body(n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ssr_native::Crc32WithPath(path, 0, data.data(), data.size()));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
}

void BM_Crc32Dispatched(benchmark::State& state, size_t n) {
  const std::vector<uint8_t> data = Body(n);
  for (auto _ : state) benchmark::DoNotOptimize(ssr_native::Crc32(0, data.data(), data.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
  state.SetLabel(ssr_native::Crc32PathName(ssr_native::Crc32ActivePath()));
}

// Debian's system zlib, the outside reference the portable path replaced in the addon.
void BM_Crc32SystemZlib(benchmark::State& state, size_t n) {
  const std::vector<uint8_t> data = Body(n);
  for (auto _ : state) {
    benchmark::DoNotOptimize(crc32(0, data.data(), static_cast<uInt>(data.size())));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n));
  state.SetLabel(zlibVersion());
}

// Registered size-major, so each size's paths print next to each other.
const bool kRegistered = [] {
  for (const size_t n : kSizes) {
    const std::string size = "/" + std::to_string(n);
    benchmark::RegisterBenchmark(("BM_Crc32/zlib" + size).c_str(), BM_Crc32SystemZlib, n);
    for (int i = 0; i < ssr_native::kCrc32PathCount; ++i) {
      const auto path = static_cast<ssr_native::Crc32Path>(i);
      const std::string name = std::string("BM_Crc32/") + ssr_native::Crc32PathName(path) + size;
      benchmark::RegisterBenchmark(name.c_str(), BM_Crc32, path, n);
    }
    benchmark::RegisterBenchmark(("BM_Crc32/dispatched" + size).c_str(), BM_Crc32Dispatched, n);
  }
  return true;
}();

}  // namespace
