// Every CRC-32 path (portable included) against Debian's system zlib, an implementation that is
// not ours: every length 0..4096 at every alignment 0..63, large buffers, chaining, and the check
// value. Paths this CPU lacks are skipped with a message.
#include "ssr_native/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <random>
#include <vector>

#include "../../src/core/crc32_internal.h"

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

class Crc32PathTest : public ::testing::TestWithParam<Crc32Path> {
 protected:
  void SetUp() override {
    if (!Crc32PathAvailable(GetParam())) {
      GTEST_SKIP() << Crc32PathName(GetParam()) << " is not supported by this CPU";
    }
  }
  uint32_t Run(uint32_t crc, const uint8_t* p, size_t n) {
    return Crc32WithPath(GetParam(), crc, p, n);
  }
};

TEST_P(Crc32PathTest, CheckValue) {
  const char* s = "123456789";
  EXPECT_EQ(Run(0, reinterpret_cast<const uint8_t*>(s), 9), 0xCBF43926u);
  EXPECT_EQ(Run(0, nullptr, 0), 0u);
}

TEST_P(Crc32PathTest, EmptyInputReturnsTheSeed) {
  // By definition, extending a CRC over no bytes leaves it unchanged (zlib returns 0 for a
  // null buffer instead, so this is checked against the definition, not against zlib).
  const uint8_t byte = 0;
  for (uint32_t seed : {0u, 1u, 0xCBF43926u, 0xFFFFFFFFu}) {
    EXPECT_EQ(Run(seed, nullptr, 0), seed);
    EXPECT_EQ(Run(seed, &byte, 0), seed);
  }
}

TEST_P(Crc32PathTest, EveryLengthAndAlignmentMatchesZlib) {
  const auto data = RandomBytes(4096 + 64, 1);
  for (size_t align = 0; align < 64; ++align) {
    for (size_t len = 0; len <= 4096; ++len) {
      const uint8_t* p = data.data() + align;
      ASSERT_EQ(Run(0, p, len), ZlibCrc(0, p, len)) << "len " << len << " align " << align;
    }
  }
}

TEST_P(Crc32PathTest, ChainsLikeZlib) {
  const auto data = RandomBytes(10000, 2);
  std::mt19937 rng(3);
  for (int i = 0; i < 2000; ++i) {
    const size_t split = rng() % data.size();
    const uint32_t seed = rng();
    const uint32_t first = Run(seed, data.data(), split);
    EXPECT_EQ(first, ZlibCrc(seed, data.data(), split));
    EXPECT_EQ(Run(first, data.data() + split, data.size() - split),
              ZlibCrc(seed, data.data(), data.size()));
  }
}

TEST_P(Crc32PathTest, LargeBuffersMatchZlib) {
  for (size_t n :
       {size_t{65536}, size_t{75 * 1024 + 13}, size_t{1} << 20, (size_t{16} << 20) + 7}) {
    const auto data = RandomBytes(n, static_cast<uint32_t>(n));
    EXPECT_EQ(Run(0, data.data(), n), ZlibCrc(0, data.data(), n)) << n;
  }
}

TEST_P(Crc32PathTest, SpecialPatternsMatchZlib) {
  for (uint8_t fill : {0x00, 0xFF, 0x80, 0x01}) {
    std::vector<uint8_t> data(5000, fill);
    for (size_t n : {0, 1, 63, 64, 255, 256, 257, 1000, 5000}) {
      EXPECT_EQ(Run(0xFFFFFFFFu, data.data(), n), ZlibCrc(0xFFFFFFFFu, data.data(), n));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllPaths, Crc32PathTest,
                         ::testing::Values(Crc32Path::kPortable, Crc32Path::kPclmul,
                                           Crc32Path::kVpclmul512, Crc32Path::kArmCrc32),
                         [](const auto& info) { return std::string(Crc32PathName(info.param)); });

TEST(Crc32, DispatchedMatchesZlib) {
  const auto data = RandomBytes(100000, 4);
  EXPECT_EQ(Crc32(0, data.data(), data.size()), ZlibCrc(0, data.data(), data.size()));
}

TEST(Crc32, ActivePathIsAvailable) { EXPECT_TRUE(Crc32PathAvailable(Crc32ActivePath())); }

TEST(Crc32, ActivePathIsTheFastestAvailable) {
  // Fastest first; a CPU has the x86 paths or the ARM one, never both.
  const Crc32Path by_speed[] = {Crc32Path::kVpclmul512, Crc32Path::kPclmul, Crc32Path::kArmCrc32,
                                Crc32Path::kPortable};
  for (const Crc32Path path : by_speed) {
    if (Crc32PathAvailable(path)) {
      EXPECT_EQ(Crc32ActivePath(), path) << Crc32PathName(path) << " is available";
      return;
    }
  }
  FAIL() << "not even the portable path is available";
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

}  // namespace
}  // namespace ssr_native
