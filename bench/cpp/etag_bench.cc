// Entity tag for a body: CRC-32 plus formatting, on an SSR page size and a small body.
#include <benchmark/benchmark.h>

#include <vector>

#include "ssr_native/etag.h"

namespace {

void BM_EntityTag(benchmark::State& state) {
  std::vector<uint8_t> data(static_cast<size_t>(state.range(0)), 0x3C);
  for (auto _ : state)
    benchmark::DoNotOptimize(ssr_native::EntityTag(data.data(), data.size(), true));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}

}  // namespace

BENCHMARK(BM_EntityTag)->Arg(64)->Arg(75 * 1024);
