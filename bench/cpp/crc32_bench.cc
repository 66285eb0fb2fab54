// CRC-32 throughput by size and code path; reports bytes/s. Paths this CPU lacks are skipped.
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <vector>

#include "ssr_native/crc32.h"

namespace {

void BM_Crc32(benchmark::State& state, ssr_native::Crc32Path path) {
  if (!ssr_native::Crc32PathAvailable(path)) {
    state.SkipWithError("this CPU lacks the instructions for this path");
    return;
  }
  std::vector<uint8_t> data(static_cast<size_t>(state.range(0)), 0x5A);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ssr_native::Crc32WithPath(path, 0, data.data(), data.size()));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

void BM_Crc32Dispatched(benchmark::State& state) {
  std::vector<uint8_t> data(static_cast<size_t>(state.range(0)), 0x5A);
  for (auto _ : state) benchmark::DoNotOptimize(ssr_native::Crc32(0, data.data(), data.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  state.SetLabel(ssr_native::Crc32PathName(ssr_native::Crc32ActivePath()));
}

// Debian's system zlib, the outside reference the portable path replaced in the addon.
void BM_Crc32SystemZlib(benchmark::State& state) {
  std::vector<uint8_t> data(static_cast<size_t>(state.range(0)), 0x5A);
  for (auto _ : state) {
    benchmark::DoNotOptimize(crc32(0, data.data(), static_cast<uInt>(data.size())));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  state.SetLabel(zlibVersion());
}

}  // namespace

BENCHMARK(BM_Crc32SystemZlib)->RangeMultiplier(4)->Range(64, 16 << 20);
BENCHMARK_CAPTURE(BM_Crc32, portable, ssr_native::Crc32Path::kPortable)
    ->RangeMultiplier(4)
    ->Range(64, 16 << 20);
BENCHMARK_CAPTURE(BM_Crc32, pclmul, ssr_native::Crc32Path::kPclmul)
    ->RangeMultiplier(4)
    ->Range(64, 16 << 20);
BENCHMARK_CAPTURE(BM_Crc32, vpclmul512, ssr_native::Crc32Path::kVpclmul512)
    ->RangeMultiplier(4)
    ->Range(64, 16 << 20);
BENCHMARK(BM_Crc32Dispatched)->Arg(64)->Arg(75 * 1024)->Arg(64 * 1024);
