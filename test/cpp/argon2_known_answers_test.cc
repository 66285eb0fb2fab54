// Argon2 against an outside reference rather than against itself: tags made by the argon2 npm
// package 0.45.1 (libargon2, the reference implementation) for odd lane counts, where the lane
// schedules (pairs plus a lone lane, split over threads) differ most. Every kernel this CPU
// can run and every schedule must give these exact tags.
//
// Produced with argon2@0.45.1 on Node 20.20.2:
//   argon2.hash('password', { raw: true, type, salt: Buffer.from('somesalt'), hashLength: 32,
//                             memoryCost: 8 * p * 4, timeCost: 2, parallelism: p, version })
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "ssr_native/argon2.h"

namespace ssr_native {
namespace {

struct KnownAnswer {
  Argon2Type type;
  uint32_t lanes;
  uint32_t version;
  const char* tag_hex;
};

constexpr KnownAnswer kArgon2PackageTags[] = {
    {Argon2Type::kD, 1, 0x13, "fb01125e708a166563559445402e7307ad53c8b6bb76dc3c6f611245cc2ddea7"},
    {Argon2Type::kD, 3, 0x13, "59a8b91b0598753274bce28d0dc56dd4e77538c9bd3d049a90ef7a5033aabfba"},
    {Argon2Type::kD, 5, 0x13, "35a43aa89895a93b038a009cb56d2715e24e8dd74c6622a238a8e5f32085f25f"},
    {Argon2Type::kD, 5, 0x10, "90340e5fa43d1d86cd062ac05a8a5c1cb0c8217c7210dc3dddf727d82c081086"},
    {Argon2Type::kD, 7, 0x13, "cef40a9d774919b42730f29d780c2738203634bdc91fa7f6c5748583c3e33a53"},
    {Argon2Type::kI, 1, 0x13, "e154f779bab74eda8e4b96489ff38b595652419a30c1614ffbbef22763604e08"},
    {Argon2Type::kI, 3, 0x13, "d50a2ae31fff74d89cb23a9698f32e9d9f3618f8a09355ba2aa2952973cb6ca2"},
    {Argon2Type::kI, 5, 0x13, "8648ab875fce0a71fb4ad9c2cb3d197289897ecb82907d3df00bb664f81531a3"},
    {Argon2Type::kI, 5, 0x10, "b91a68a9ce88d7570ae4d98e004f794eaa9b61c9bcbae5e0063e76e4e95c38c8"},
    {Argon2Type::kI, 7, 0x13, "55c2ba9221763808f1060ac178b8ccdb56ee898372e028f75ae70a34ad389ecd"},
    {Argon2Type::kId, 1, 0x13, "31111cc053ba0a799c0884148fd7ec9dc3631f3e8cf476cca9521d4ccc5136e8"},
    {Argon2Type::kId, 3, 0x13, "9bada92fb655d40be4cae29cbf8c19372a56c4d35c2771de4fad1ea8e543d61b"},
    {Argon2Type::kId, 5, 0x13, "367d56dd23f88829f189c63b9685a0064559e8efc433afadae027ff55b168bc2"},
    {Argon2Type::kId, 5, 0x10, "b8112e16bcb1319a7aeb59c20bf914c593d3a38c547a1884e6392fc83f7dd8f1"},
    {Argon2Type::kId, 7, 0x13, "a158f92d9ae4c8852d705ba3af5be4f7451043c5d9d3f8d8e62fd8a44ab5d8e5"},
};

std::string ToHex(const uint8_t* data, size_t size) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 0xF];
  }
  return out;
}

// The schedules Argon2Hash can take for one slice of `count` lanes.
struct Schedule {
  const char* name;
  ParallelFor parallel_for;
  std::function<uint32_t()> idle_helpers;
};

std::vector<Schedule> Schedules() {
  ParallelFor in_order = [](uint32_t count, const std::function<void(uint32_t)>& body) {
    for (uint32_t i = 0; i < count; ++i) body(i);
  };
  ParallelFor reversed = [](uint32_t count, const std::function<void(uint32_t)>& body) {
    for (uint32_t i = count; i-- > 0;) body(i);
  };
  ParallelFor threads = [](uint32_t count, const std::function<void(uint32_t)>& body) {
    std::vector<std::thread> running;
    for (uint32_t i = 0; i < count; ++i) running.emplace_back(body, i);
    for (auto& t : running) t.join();
  };
  return {
      {"calling thread, interleaved pairs", nullptr, nullptr},
      {"one lane per call, in order", in_order, [] { return 100u; }},
      {"pairs plus a lone lane, in order", in_order, [] { return 0u; }},
      {"one lane per call, reversed", reversed, [] { return 100u; }},
      {"pairs plus a lone lane, reversed", reversed, [] { return 0u; }},
      {"one thread per work item", threads, [] { return 100u; }},
      {"one thread per pair", threads, [] { return 0u; }},
  };
}

TEST(Argon2KnownAnswers, OddLaneCountsMatchTheArgon2PackageOnEveryKernelAndSchedule) {
  const std::string password = "password", salt = "somesalt";
  Argon2Inputs in;
  in.password = reinterpret_cast<const uint8_t*>(password.data());
  in.password_size = password.size();
  in.salt = reinterpret_cast<const uint8_t*>(salt.data());
  in.salt_size = salt.size();
  int kernels_run = 0;
  for (Argon2Kernel kernel :
       {Argon2Kernel::kPortable, Argon2Kernel::kAvx2, Argon2Kernel::kAvx512}) {
    if (!Argon2KernelAvailable(kernel)) {
      std::printf("[ SKIPPED  ] kernel %s: not supported by this CPU\n", Argon2KernelName(kernel));
      continue;
    }
    ++kernels_run;
    for (const KnownAnswer& known : kArgon2PackageTags) {
      Argon2Params params;
      params.type = known.type;
      params.version = known.version;
      params.lanes = known.lanes;
      params.memory_kib = 8 * known.lanes * 4;
      params.passes = 2;
      params.kernel = kernel;
      for (const Schedule& schedule : Schedules()) {
        uint8_t tag[32];
        ASSERT_EQ(
            Argon2Hash(params, in, tag, sizeof tag, schedule.parallel_for, schedule.idle_helpers),
            Argon2Status::kOk);
        EXPECT_EQ(ToHex(tag, sizeof tag), known.tag_hex)
            << "kernel " << Argon2KernelName(kernel) << ", type "
            << static_cast<uint32_t>(known.type) << ", p=" << known.lanes << ", version 0x"
            << std::hex << known.version << ", schedule: " << schedule.name;
      }
    }
  }
  EXPECT_GE(kernels_run, 1);
}

}  // namespace
}  // namespace ssr_native
