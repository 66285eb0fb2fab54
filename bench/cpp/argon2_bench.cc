// One Argon2id hash at the argon2 package's defaults (m=64 MiB, t=3, p=4, 32-byte tag) per
// block-filling kernel, lanes run one after another on one thread (the pool's parallel
// lanes are measured from JavaScript). Also one 1 KiB block per kernel.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>

#include "../../src/core/argon2_internal.h"
#include "ssr_native/argon2.h"

namespace {

using ssr_native::Argon2Kernel;

void DefaultHash(benchmark::State& state, Argon2Kernel kernel) {
  if (!ssr_native::Argon2KernelAvailable(kernel)) {
    state.SkipWithError("kernel not supported on this CPU");
    return;
  }
  ssr_native::Argon2Params params;  // argon2id, v=0x13, m=65536, t=3, p=4
  params.kernel = kernel;
  const uint8_t password[] = "correct horse battery staple";
  const uint8_t salt[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  ssr_native::Argon2Inputs in;
  in.password = password;
  in.password_size = sizeof(password) - 1;
  in.salt = salt;
  in.salt_size = sizeof(salt);
  uint8_t tag[32];
  for (auto _ : state) {
    ssr_native::Argon2Hash(params, in, tag, sizeof(tag));
    benchmark::DoNotOptimize(tag);
  }
  state.SetLabel(ssr_native::Argon2KernelName(kernel));
}

void FillBlock(benchmark::State& state, ssr_native::argon2_internal::FillBlockFn fill,
               Argon2Kernel kernel) {
  if (!ssr_native::Argon2KernelAvailable(kernel)) {
    state.SkipWithError("kernel not supported on this CPU");
    return;
  }
  ssr_native::argon2_internal::Block prev, ref, next;
  std::mt19937_64 rng(1);
  for (auto& w : prev.v) w = rng();
  for (auto& w : ref.v) w = rng();
  std::memset(next.v, 0, sizeof(next.v));
  for (auto _ : state) {
    fill(prev, ref, &next, true, nullptr);
    benchmark::DoNotOptimize(next);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 1024);
}

BENCHMARK_CAPTURE(DefaultHash, portable, Argon2Kernel::kPortable)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(DefaultHash, avx2, Argon2Kernel::kAvx2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(DefaultHash, avx512, Argon2Kernel::kAvx512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(FillBlock, portable, ssr_native::argon2_internal::FillBlockPortable,
                  Argon2Kernel::kPortable);
BENCHMARK_CAPTURE(FillBlock, avx2, ssr_native::argon2_internal::FillBlockAvx2, Argon2Kernel::kAvx2);
BENCHMARK_CAPTURE(FillBlock, avx512, ssr_native::argon2_internal::FillBlockAvx512,
                  Argon2Kernel::kAvx512);

}  // namespace
