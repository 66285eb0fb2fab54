// Latin-1 hashed as UTF-8, against a plain reference: expand every byte to UTF-8 by the
// definition (0x80..0xFF -> C2/C3 + continuation byte), then hash with zlib's crc32. Lengths
// and positions are aimed at the ASCII check's steps and the implementation's chunk sizes.
#include "ssr_native/latin1_utf8.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <vector>

#include "ssr_native/cpu_features.h"
#include "ssr_native/crc32.h"

namespace ssr_native {
namespace {

using latin1_utf8_internal::kAsciiChunk;
using latin1_utf8_internal::kExpandChunk;

std::vector<uint8_t> Utf8OfLatin1(const std::vector<uint8_t>& latin1) {
  std::vector<uint8_t> out;
  for (uint8_t c : latin1) {
    if (c < 0x80) {
      out.push_back(c);
    } else {
      out.push_back(static_cast<uint8_t>(0xC0 | (c >> 6)));
      out.push_back(static_cast<uint8_t>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

uint32_t ZlibCrc(uint32_t crc, const std::vector<uint8_t>& v) {
  // zlib's crc32(crc, NULL, 0) returns its initial value 0, not crc: an empty vector's data()
  // may be NULL, and the CRC of nothing continued from crc is crc by definition.
  if (v.empty()) return crc;
  return static_cast<uint32_t>(crc32(crc, v.data(), static_cast<uInt>(v.size())));
}

std::vector<size_t> EdgeLengths() {
  std::vector<size_t> lengths;
  for (size_t base : {size_t{0}, size_t{32}, size_t{128}, kExpandChunk, kAsciiChunk,
                      2 * kAsciiChunk, 3 * kAsciiChunk + kExpandChunk}) {
    for (int delta = -2; delta <= 2; ++delta) {
      if (static_cast<long>(base) + delta >= 0) lengths.push_back(base + delta);
    }
  }
  return lengths;
}

TEST(Latin1Utf8, AsciiCheckFindsAHighBitAtEveryPositionOfEveryLength) {
  const bool avx2 = GetCpuFeatures().avx2;
  if (!avx2) std::printf("[ NOTE     ] no AVX2 on this CPU: only the portable check runs\n");
  for (size_t n = 0; n <= 300; ++n) {
    std::vector<uint8_t> bytes(n, 'a');
    EXPECT_TRUE(IsAscii(bytes.data(), n)) << n;
    EXPECT_TRUE(latin1_utf8_internal::IsAsciiPortable(bytes.data(), n)) << n;
    if (avx2) {
      EXPECT_TRUE(latin1_utf8_internal::IsAsciiAvx2(bytes.data(), n)) << n;
    }
    for (size_t at = 0; at < n; ++at) {
      for (uint8_t high : {uint8_t{0x80}, uint8_t{0xFF}}) {
        bytes[at] = high;
        EXPECT_FALSE(IsAscii(bytes.data(), n)) << "length " << n << " at " << at;
        EXPECT_FALSE(latin1_utf8_internal::IsAsciiPortable(bytes.data(), n)) << n << " " << at;
        if (avx2) {
          EXPECT_FALSE(latin1_utf8_internal::IsAsciiAvx2(bytes.data(), n)) << n << " " << at;
        }
        bytes[at] = 0x7F;
      }
    }
  }
}

// The ASCII check that rides along with the CRC (fused into the AVX-512 fold where the CPU has
// it): a high byte anywhere, in the 256-byte fold loop, the 64-byte steps or the last bytes,
// must be seen, and an ASCII run must get zlib's CRC.
TEST(Latin1Utf8, CrcIfAsciiSeesAHighByteAnywhereAndOtherwiseHashes) {
  if (Crc32ActivePath() != Crc32Path::kVpclmul512) {
    std::printf("[ NOTE     ] no AVX-512 VPCLMULQDQ: the check and the CRC run as two passes\n");
  }
  std::mt19937 rng(20261201);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 700; ++n) lengths.push_back(n);
  for (size_t n : {size_t{1023}, size_t{4096 + 65}, kAsciiChunk}) lengths.push_back(n);
  for (size_t n : lengths) {
    std::vector<uint8_t> bytes(n);
    for (auto& c : bytes) c = static_cast<uint8_t>(rng() % 0x80);
    uint32_t crc = 0x1234u;
    ASSERT_TRUE(latin1_utf8_internal::Crc32IfAscii(&crc, bytes.data(), n)) << "length " << n;
    EXPECT_EQ(crc, ZlibCrc(0x1234u, bytes)) << "length " << n;
    const size_t step = n > 700 ? 61 : 1;
    for (size_t at = 0; at < n; at += step) {
      const uint8_t was = bytes[at];
      bytes[at] = static_cast<uint8_t>(0x80 | rng());
      uint32_t untouched = 7;
      ASSERT_FALSE(latin1_utf8_internal::Crc32IfAscii(&untouched, bytes.data(), n))
          << "length " << n << ", byte " << static_cast<int>(bytes[at]) << " at " << at;
      EXPECT_EQ(untouched, 7u);
      bytes[at] = was;
    }
  }
}

// Both expansions against the definition, at every length up to 300 (the AVX-512 path's 32-byte
// steps and its portable tail) and a few longer ones, with ASCII runs, all-high text and mixes.
TEST(Latin1Utf8, ExpansionsWriteTheUtf8OfEveryCharacter) {
  const CpuFeatures& cpu = GetCpuFeatures();
  const bool vbmi2 = cpu.avx512bw && cpu.avx512vbmi2;
  if (!vbmi2)
    std::printf("[ NOTE     ] no AVX-512 VBMI2 on this CPU: only the portable expansion runs\n");
  std::mt19937 rng(20261202);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  for (size_t n : {size_t{1000}, kExpandChunk - 1, kExpandChunk}) lengths.push_back(n);
  for (size_t n : lengths) {
    for (int density : {0, 1, 8, 50, 100}) {  // percent of characters 0x80 or more
      std::vector<uint8_t> latin1(n);
      for (auto& c : latin1) {
        c = static_cast<uint8_t>(static_cast<int>(rng() % 100) < density ? 0x80 + rng() % 0x80
                                                                         : rng() % 0x80);
      }
      const std::vector<uint8_t> expected = Utf8OfLatin1(latin1);
      std::vector<uint8_t> out(2 * n + 1, 0xEE);
      const size_t portable =
          latin1_utf8_internal::ExpandLatin1Portable(latin1.data(), n, out.data());
      ASSERT_EQ(std::vector<uint8_t>(out.begin(), out.begin() + portable), expected)
          << "portable, length " << n << ", density " << density;
      if (!vbmi2) continue;
      std::fill(out.begin(), out.end(), 0xEE);
      const size_t simd = latin1_utf8_internal::ExpandLatin1Avx512(latin1.data(), n, out.data());
      ASSERT_EQ(std::vector<uint8_t>(out.begin(), out.begin() + simd), expected)
          << "AVX-512, length " << n << ", density " << density;
      EXPECT_EQ(out[2 * n], 0xEE) << "wrote past 2 * length, length " << n;
    }
  }
}

TEST(Latin1Utf8, DigestEqualsZlibOverTheUtf8Expansion) {
  std::mt19937 rng(20261130);
  for (size_t n : EdgeLengths()) {
    // Pure ASCII, a single high byte at the start/middle/end, and random Latin-1.
    std::vector<std::vector<uint8_t>> inputs;
    std::vector<uint8_t> ascii(n);
    for (auto& c : ascii) c = static_cast<uint8_t>(rng() % 0x80);
    inputs.push_back(ascii);
    for (size_t at : {size_t{0}, n / 2, n == 0 ? 0 : n - 1}) {
      if (n == 0) break;
      std::vector<uint8_t> one = ascii;
      one[at] = static_cast<uint8_t>(0x80 + rng() % 0x80);
      inputs.push_back(one);
    }
    std::vector<uint8_t> mixed(n);
    for (auto& c : mixed) c = static_cast<uint8_t>(rng());
    inputs.push_back(mixed);
    for (const auto& input : inputs) {
      const std::vector<uint8_t> utf8 = Utf8OfLatin1(input);
      for (uint32_t seed : {0u, 0xCBF43926u}) {
        const Utf8Digest d = Crc32OfLatin1AsUtf8(seed, input.data(), input.size());
        EXPECT_EQ(d.size, utf8.size()) << "length " << n;
        EXPECT_EQ(d.crc, ZlibCrc(seed, utf8)) << "length " << n << " seed " << seed;
      }
    }
  }
}

TEST(Latin1Utf8, EveryLatin1CharacterExpandsAsUtf8) {
  std::vector<uint8_t> all(256);
  for (int c = 0; c < 256; ++c) all[c] = static_cast<uint8_t>(c);
  const Utf8Digest d = Crc32OfLatin1AsUtf8(0, all.data(), all.size());
  EXPECT_EQ(d.size, 128u + 2u * 128u);
  // "é" (U+00E9) is C3 A9 in UTF-8.
  const uint8_t e_acute = 0xE9;
  const uint8_t utf8[] = {0xC3, 0xA9};
  EXPECT_EQ(Crc32OfLatin1AsUtf8(0, &e_acute, 1).crc, crc32(0, utf8, 2));
  EXPECT_EQ(d.crc, ZlibCrc(0, Utf8OfLatin1(all)));
}

}  // namespace
}  // namespace ssr_native
