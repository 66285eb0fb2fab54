// Every CRC-32 path (portable included) against Debian's system zlib, an implementation that is
// not ours, and against each other: every length 0..4096 at every alignment 0..63, large buffers,
// chaining with a running value, and the check value; the fold constants against a second
// derivation. One typed suite per path; paths this CPU lacks are skipped with a message.
#include "ssr_native/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "../../src/core/crc32_internal.h"
#include "ssr_native/cpu_features.h"

namespace ssr_native {
namespace {

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

uint32_t ZlibCrc(uint32_t crc, const uint8_t* p, size_t n) {
  uLong c = crc;
  while (n > 0) {
    const uInt chunk = n > (1u << 30) ? (1u << 30) : static_cast<uInt>(n);
    c = crc32(c, p, chunk);
    p += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(c);
}

// One type per path, so each path is its own typed suite (Crc32PathTest/vpclmul256, ...).
template <Crc32Path P>
struct PathType {
  static constexpr Crc32Path kPath = P;
};
using Portable = PathType<Crc32Path::kPortable>;
using Pclmul = PathType<Crc32Path::kPclmul>;
using Vpclmul256 = PathType<Crc32Path::kVpclmul256>;
using Vpclmul512 = PathType<Crc32Path::kVpclmul512>;
using ArmCrc32 = PathType<Crc32Path::kArmCrc32>;
using ArmPmull = PathType<Crc32Path::kArmPmull>;

template <typename T>
class Crc32PathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!Crc32PathAvailable(T::kPath)) {
      GTEST_SKIP() << Crc32PathName(T::kPath) << " is not supported by this CPU";
    }
  }
  uint32_t Run(uint32_t crc, const uint8_t* p, size_t n) {
    return Crc32WithPath(T::kPath, crc, p, n);
  }
};

struct PathNames {
  template <typename T>
  static std::string GetName(int) {
    return Crc32PathName(T::kPath);
  }
};
using AllPaths = ::testing::Types<Portable, Pclmul, Vpclmul256, Vpclmul512, ArmCrc32, ArmPmull>;
TYPED_TEST_SUITE(Crc32PathTest, AllPaths, PathNames);

TYPED_TEST(Crc32PathTest, CheckValue) {
  const char* s = "123456789";
  EXPECT_EQ(this->Run(0, reinterpret_cast<const uint8_t*>(s), 9), 0xCBF43926u);
  EXPECT_EQ(this->Run(0, nullptr, 0), 0u);
}

TYPED_TEST(Crc32PathTest, EmptyInputReturnsTheSeed) {
  // By definition, extending a CRC over no bytes leaves it unchanged (zlib returns 0 for a
  // null buffer instead, so this is checked against the definition, not against zlib).
  const uint8_t byte = 0;
  for (uint32_t seed : {0u, 1u, 0xCBF43926u, 0xFFFFFFFFu}) {
    EXPECT_EQ(this->Run(seed, nullptr, 0), seed);
    EXPECT_EQ(this->Run(seed, &byte, 0), seed);
  }
}

TYPED_TEST(Crc32PathTest, EveryLengthAndAlignmentMatchesZlib) {
  const uint32_t seed = 1;
  const auto data = RandomBytes(4096 + 64, seed);
  for (size_t align = 0; align < 64; ++align) {
    for (size_t len = 0; len <= 4096; ++len) {
      const uint8_t* p = data.data() + align;
      ASSERT_EQ(this->Run(0, p, len), ZlibCrc(0, p, len))
          << "len " << len << " align " << align << " seed " << seed;
    }
  }
}

TYPED_TEST(Crc32PathTest, ChainsLikeZlib) {
  const auto data = RandomBytes(10000, 2);
  std::mt19937 rng(3);
  for (int i = 0; i < 2000; ++i) {
    const size_t split = rng() % data.size();
    const uint32_t seed = rng();
    const uint32_t first = this->Run(seed, data.data(), split);
    EXPECT_EQ(first, ZlibCrc(seed, data.data(), split));
    EXPECT_EQ(this->Run(first, data.data() + split, data.size() - split),
              ZlibCrc(seed, data.data(), data.size()))
        << "split " << split << " seed " << seed;
  }
}

TYPED_TEST(Crc32PathTest, RunningValueOverManyPiecesMatchesOneCall) {
  // A stream hashed as it arrives: pieces of random length (0 to 5000 bytes, so every path's
  // short and long cases meet at random offsets), each call continuing the last one's value.
  const uint32_t seed = 6;
  const auto data = RandomBytes(1 << 20, seed);
  std::mt19937 rng(seed);
  uint32_t running = 0;
  for (size_t at = 0; at < data.size();) {
    const size_t piece = std::min<size_t>(rng() % 5001, data.size() - at);
    running = this->Run(running, data.data() + at, piece);
    at += piece;
  }
  EXPECT_EQ(running, ZlibCrc(0, data.data(), data.size())) << "seed " << seed;
}

TYPED_TEST(Crc32PathTest, LargeBuffersMatchZlib) {
  for (size_t n :
       {size_t{65536}, size_t{75 * 1024 + 13}, size_t{1} << 20, (size_t{16} << 20) + 7}) {
    const auto data = RandomBytes(n, static_cast<uint32_t>(n));
    EXPECT_EQ(this->Run(0, data.data(), n), ZlibCrc(0, data.data(), n)) << n;
  }
}

TYPED_TEST(Crc32PathTest, SpecialPatternsMatchZlib) {
  for (uint8_t fill : {0x00, 0xFF, 0x80, 0x01}) {
    std::vector<uint8_t> data(5000, fill);
    for (size_t n : {0, 1, 63, 64, 127, 128, 129, 255, 256, 257, 1000, 5000}) {
      EXPECT_EQ(this->Run(0xFFFFFFFFu, data.data(), n), ZlibCrc(0xFFFFFFFFu, data.data(), n));
    }
  }
}

std::vector<Crc32Path> AvailablePaths() {
  std::vector<Crc32Path> paths;
  for (int i = 0; i < kCrc32PathCount; ++i) {
    if (Crc32PathAvailable(static_cast<Crc32Path>(i))) paths.push_back(static_cast<Crc32Path>(i));
  }
  return paths;
}

TEST(Crc32, EveryAvailablePathAgreesWithEveryOther) {
  // The same seeded inputs through every path this CPU has, compared with each other (and so
  // with the portable one), with a random running value: every length 0..4096 at every
  // alignment 0..63, then 1 MB.
  const std::vector<Crc32Path> paths = AvailablePaths();
  if (paths.size() < 2) GTEST_SKIP() << "only the portable CRC-32 path runs on this CPU";
  const uint32_t seed = 7;
  const auto data = RandomBytes((1 << 20) + 64, seed);
  std::mt19937 rng(seed);
  for (size_t align = 0; align < 64; ++align) {
    for (size_t len = 0; len <= 4096; ++len) {
      const uint8_t* p = data.data() + align;
      const uint32_t start = rng();
      const uint32_t expected = Crc32WithPath(paths[0], start, p, len);
      for (size_t i = 1; i < paths.size(); ++i) {
        ASSERT_EQ(Crc32WithPath(paths[i], start, p, len), expected)
            << Crc32PathName(paths[i]) << " vs " << Crc32PathName(paths[0]) << ": len " << len
            << " align " << align << " start " << start << " seed " << seed;
      }
    }
  }
  for (size_t align : {0, 1, 17, 63}) {
    const uint32_t expected = Crc32WithPath(paths[0], 0, data.data() + align, 1 << 20);
    for (size_t i = 1; i < paths.size(); ++i) {
      EXPECT_EQ(Crc32WithPath(paths[i], 0, data.data() + align, 1 << 20), expected)
          << Crc32PathName(paths[i]) << " 1 MB align " << align;
    }
  }
}

TEST(Crc32, DispatchedMatchesZlib) {
  const auto data = RandomBytes(100000, 4);
  EXPECT_EQ(Crc32(0, data.data(), data.size()), ZlibCrc(0, data.data(), data.size()));
}

TEST(Crc32, ActivePathIsAvailable) { EXPECT_TRUE(Crc32PathAvailable(Crc32ActivePath())); }

TEST(Crc32, ActivePathIsTheFastestAvailable) {
  // Fastest first; a CPU has the x86 paths or the ARM one, never both.
  const Crc32Path by_speed[] = {Crc32Path::kVpclmul512, Crc32Path::kVpclmul256,
                                Crc32Path::kPclmul,     Crc32Path::kArmPmull,
                                Crc32Path::kArmCrc32,   Crc32Path::kPortable};
  for (const Crc32Path path : by_speed) {
    if (Crc32PathAvailable(path)) {
      EXPECT_EQ(Crc32ActivePath(), path) << Crc32PathName(path) << " is available";
      return;
    }
  }
  FAIL() << "not even the portable path is available";
}

TEST(Crc32, DispatcherPicksTheWidestFoldEachCpuClassHas) {
  // The CPU classes of the issue, as the features detection reports for them.
  CpuFeatures skylake;  // and Zen 2: PCLMULQDQ and AVX2, no VPCLMULQDQ
  skylake.sse41 = skylake.pclmulqdq = skylake.avx2 = true;
  CpuFeatures zen3 = skylake;  // and Alder Lake: VPCLMULQDQ on ymm, no AVX-512
  zen3.vpclmulqdq = true;
  CpuFeatures zen4 = zen3;  // and Ice Lake server, Sapphire Rapids, Zen 5
  zen4.avx512f = zen4.avx512bw = zen4.avx512vl = true;
  CpuFeatures no_ymm_state = zen3;  // VPCLMULQDQ in CPUID but the OS does not save YMM
  no_ymm_state.avx2 = false;
  CpuFeatures graviton;
  graviton.arm_crc32 = graviton.arm_pmull = true;
  CpuFeatures crc_only;
  crc_only.arm_crc32 = true;
  CpuFeatures old_x86;
  old_x86.sse41 = true;
  EXPECT_EQ(crc32_internal::FastestPathFor(skylake), Crc32Path::kPclmul);
  EXPECT_EQ(crc32_internal::FastestPathFor(zen3), Crc32Path::kVpclmul256);
  EXPECT_EQ(crc32_internal::FastestPathFor(zen4), Crc32Path::kVpclmul512);
  EXPECT_EQ(crc32_internal::FastestPathFor(no_ymm_state), Crc32Path::kPclmul);
  EXPECT_EQ(crc32_internal::FastestPathFor(graviton), Crc32Path::kArmPmull);
  EXPECT_EQ(crc32_internal::FastestPathFor(crc_only), Crc32Path::kArmCrc32);
  EXPECT_EQ(crc32_internal::FastestPathFor(old_x86), Crc32Path::kPortable);
  EXPECT_FALSE(crc32_internal::PathRunsOn(Crc32Path::kVpclmul512, zen3));
  EXPECT_TRUE(crc32_internal::PathRunsOn(Crc32Path::kVpclmul256, zen4));
  EXPECT_FALSE(crc32_internal::PathRunsOn(Crc32Path::kArmPmull, crc_only));
}

TEST(Crc32, UnavailablePathStillMatchesZlib) {
  // Whatever this CPU lacks, asking for it must still give the right answer.
  const auto data = RandomBytes(3000, 5);
  for (int i = 0; i < kCrc32PathCount; ++i) {
    EXPECT_EQ(Crc32WithPath(static_cast<Crc32Path>(i), 7, data.data(), data.size()),
              ZlibCrc(7, data.data(), data.size()));
  }
}

TEST(Crc32, PortableTableIsZlibsTable) {
  // The first slicing table is the classic byte table; zlib publishes its own.
  const z_crc_t* zlib_table = get_crc_table();
  for (int b = 0; b < 256; ++b) {
    ASSERT_EQ(crc32_internal::PortableTableEntry(0, b), zlib_table[b]) << "entry " << b;
  }
  // Table k is byte b followed by k zero bytes: check the last one against zlib directly.
  for (int b = 0; b < 256; ++b) {
    uint8_t bytes[16] = {static_cast<uint8_t>(b)};
    // zlib inverts on entry and exit: a crc argument of ~0 starts the raw register at 0, and
    // inverting the result gives the raw register back.
    const uint32_t reg = ~static_cast<uint32_t>(crc32(0xFFFFFFFFul, bytes, 16));
    ASSERT_EQ(crc32_internal::PortableTableEntry(15, b), reg) << "entry " << b;
  }
}

TEST(Crc32, FoldConstantsMatchThePublishedValues) {
  // The constants of Intel's PCLMULQDQ CRC paper for the reflected CRC-32 polynomial.
  EXPECT_EQ(crc32_internal::kFold<544>, 0x154442bd4ull);
  EXPECT_EQ(crc32_internal::kFold<480>, 0x1c6e41596ull);
  EXPECT_EQ(crc32_internal::kFold<160>, 0x1751997d0ull);
  EXPECT_EQ(crc32_internal::kFold<96>, 0x0ccaa009eull);
  EXPECT_EQ(crc32_internal::kFold<64>, 0x163cd6124ull);
}

// x^bits mod P computed another way: in the unreflected domain (the polynomial 0x04C11DB7, the
// highest power in bit 31), by square-and-multiply rather than one step per bit; then bit-reversed
// and shifted left by one into the form kFold holds.
uint64_t UnreflectedFoldConstant(unsigned bits) {
  auto mulmod = [](uint32_t a, uint32_t b) {
    uint32_t r = 0;
    for (int i = 31; i >= 0; --i) {
      r = (r & 0x80000000u) ? (r << 1) ^ 0x04C11DB7u : r << 1;
      if ((b >> i) & 1) r ^= a;
    }
    return r;
  };
  uint32_t result = 1;  // x^0
  uint32_t power = 2;   // x^1
  for (unsigned e = bits; e != 0; e >>= 1) {
    if (e & 1) result = mulmod(result, power);
    power = mulmod(power, power);
  }
  uint32_t reflected = 0;
  for (int i = 0; i < 32; ++i) reflected |= ((result >> i) & 1u) << (31 - i);
  return static_cast<uint64_t>(reflected) << 1;
}

TEST(Crc32, FoldConstantsOfEveryDistanceAgreeWithASecondDerivation) {
  // Every distance a path folds over (128-bit lanes: d - 32 and d + 32 for d = 128, 256, 384,
  // 512, 1024, 2048; 96 and 64 for the reduction).
  const std::pair<unsigned, uint64_t> used[] = {
      {64, crc32_internal::kFold<64>},          {96, crc32_internal::kFold<96>},
      {96, crc32_internal::kFold<128 - 32>},    {160, crc32_internal::kFold<128 + 32>},
      {224, crc32_internal::kFold<256 - 32>},   {288, crc32_internal::kFold<256 + 32>},
      {352, crc32_internal::kFold<384 - 32>},   {416, crc32_internal::kFold<384 + 32>},
      {480, crc32_internal::kFold<512 - 32>},   {544, crc32_internal::kFold<512 + 32>},
      {992, crc32_internal::kFold<1024 - 32>},  {1056, crc32_internal::kFold<1024 + 32>},
      {2016, crc32_internal::kFold<2048 - 32>}, {2080, crc32_internal::kFold<2048 + 32>},
  };
  for (const auto& [bits, constant] : used) {
    EXPECT_EQ(constant, UnreflectedFoldConstant(bits)) << "x^" << bits << " mod P";
  }
  // And the generator itself against two published values (Intel's paper, 4-lane fold).
  EXPECT_EQ(UnreflectedFoldConstant(544), 0x154442bd4ull);
  EXPECT_EQ(UnreflectedFoldConstant(480), 0x1c6e41596ull);
}

}  // namespace
}  // namespace ssr_native
