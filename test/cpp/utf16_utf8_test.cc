// UTF-16 hashed as UTF-8, against a plain reference: encode every code point by the definition
// (RFC 3629; a lone surrogate as U+FFFD, as Buffer.from does), then hash with zlib's crc32.
// Lengths and positions are aimed at the 16-unit SIMD steps and the transcoder's chunk edges.
#include "ssr_native/utf16_utf8.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <random>
#include <string>
#include <vector>

#include "ssr_native/cpu_features.h"

namespace ssr_native {
namespace {

using utf16_utf8_internal::kChunkUnits;

using Transcoder = size_t (*)(const char16_t*, size_t, uint8_t*);

// The dispatched transcoder and each implementation this CPU can run.
std::vector<std::pair<const char*, Transcoder>> Transcoders() {
  std::vector<std::pair<const char*, Transcoder>> all = {
      {"dispatched", utf16_utf8_internal::Utf16ToUtf8},
      {"portable", utf16_utf8_internal::Utf16ToUtf8Portable}};
  const CpuFeatures& f = GetCpuFeatures();
  if (f.avx512bw && f.avx512vl && f.avx512vbmi2) {
    all.emplace_back("avx512", utf16_utf8_internal::Utf16ToUtf8Avx512);
  } else {
    static const bool noted =
        std::printf("[ NOTE     ] no AVX-512 VBMI2 on this CPU: its transcoder is not tested\n") >
        0;
    (void)noted;
  }
  return all;
}

std::vector<uint8_t> Utf8OfUtf16(const std::u16string& text) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i < text.size(); ++i) {
    uint32_t cp = text[i];
    if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < text.size() && text[i + 1] >= 0xDC00 &&
        text[i + 1] <= 0xDFFF) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (text[i + 1] - 0xDC00u);
      ++i;
    } else if (cp >= 0xD800 && cp <= 0xDFFF) {
      cp = 0xFFFD;
    }
    if (cp < 0x80) {
      out.push_back(static_cast<uint8_t>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<uint8_t>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<uint8_t>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<uint8_t>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<uint8_t>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<uint8_t>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<uint8_t>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<uint8_t>(0x80 | (cp & 0x3F)));
    }
  }
  return out;
}

uint32_t ZlibCrc(uint32_t crc, const std::vector<uint8_t>& v) {
  if (v.empty()) return crc;  // zlib's crc32(crc, NULL, 0) is 0, not crc
  return static_cast<uint32_t>(crc32(crc, v.data(), static_cast<uInt>(v.size())));
}

std::string Describe(const std::u16string& text) {
  std::string out = "length " + std::to_string(text.size()) + ", non-ASCII (index:unit)";
  int shown = 0;
  for (size_t i = 0; i < text.size() && shown < 24; ++i) {
    if (text[i] >= 0x80) {
      char item[40];  // room for any size_t and unit: -Wformat-truncation
      std::snprintf(item, sizeof item, " %zu:%04x", i, static_cast<unsigned>(text[i]));
      out += item;
      ++shown;
    }
  }
  return out;
}

// Units drawn from every class the encoder tells apart.
char16_t RandomUnit(std::mt19937& rng) {
  static const std::pair<uint32_t, uint32_t> kClasses[] = {
      {0x00, 0x7F},     {0x80, 0x7FF},    {0x800, 0xD7FF}, {0xD800, 0xDBFF},
      {0xDC00, 0xDFFF}, {0xE000, 0xFFFF}, {0x7F, 0x80},    {0x7FF, 0x800}};
  const auto& [lo, hi] = kClasses[rng() % (sizeof kClasses / sizeof kClasses[0])];
  return static_cast<char16_t>(lo + rng() % (hi - lo + 1));
}

// ASCII with `density` percent other units; now and then a surrogate pair laid down on purpose,
// so pairs (not only lone halves) land at every offset of the SIMD steps.
std::u16string RandomText(std::mt19937& rng, size_t n, int density) {
  std::u16string text(n, u'a');
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<int>(rng() % 100) < density) {
      text[i] = RandomUnit(rng);
    } else {
      text[i] = static_cast<char16_t>(0x20 + rng() % 0x5F);
    }
    if (i + 1 < n && rng() % 64 == 0) {
      text[i] = static_cast<char16_t>(0xD800 + rng() % 0x400);
      text[++i] = static_cast<char16_t>(0xDC00 + rng() % 0x400);
    }
  }
  return text;
}

TEST(Utf16Utf8, EveryKindOfCharacterEncodesAsBufferFromDoes) {
  const std::u16string text = {0x0000, 0x007F, 0x0080, 0x00E9, 0x07FF, 0x0800, 0x2019,
                               0xD7FF, 0xE000, 0xFFFF, 0xD83D, 0xDE00, 0xDBFF, 0xDFFF,
                               0xD800, u'a',   0xDC00, 0xDC00, 0xD800};
  const std::vector<uint8_t> want = {
      0x00, 0x7F, 0xC2, 0x80, 0xC3, 0xA9, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xE2, 0x80, 0x99,
      0xED, 0x9F, 0xBF, 0xEE, 0x80, 0x80, 0xEF, 0xBF, 0xBF, 0xF0, 0x9F, 0x98, 0x80,   // U+1F600
      0xF4, 0x8F, 0xBF, 0xBF,                                                         // U+10FFFF
      0xEF, 0xBF, 0xBD, 'a',  0xEF, 0xBF, 0xBD, 0xEF, 0xBF, 0xBD, 0xEF, 0xBF, 0xBD};  // lone ones
  EXPECT_EQ(Utf8OfUtf16(text), want);
  // Repeated so the SIMD transcoder sees them in whole 16-unit steps too.
  std::u16string repeated;
  std::vector<uint8_t> repeated_want;
  for (int k = 0; k < 5; ++k) {
    repeated += text;
    repeated_want.insert(repeated_want.end(), want.begin(), want.end());
  }
  for (const auto& [name, transcode] : Transcoders()) {
    std::vector<uint8_t> out(3 * repeated.size());
    out.resize(transcode(repeated.data(), repeated.size(), out.data()));
    EXPECT_EQ(out, repeated_want) << name;
  }
}

TEST(Utf16Utf8, TranscoderWritesTheUtf8OfEveryLengthAndDensity) {
  std::mt19937 rng(20261201);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  for (size_t n : {size_t{1000}, kChunkUnits - 1, kChunkUnits, kChunkUnits + 1})
    lengths.push_back(n);
  for (size_t n : lengths) {
    for (int density : {0, 1, 5, 30, 70, 100}) {
      const std::u16string text = RandomText(rng, n, density);
      const std::vector<uint8_t> want = Utf8OfUtf16(text);
      for (const auto& [name, transcode] : Transcoders()) {
        // One guard byte past the most the transcoder may write: it must stay untouched.
        std::vector<uint8_t> out(3 * n + 1, 0xA5);
        const size_t m = transcode(text.data(), n, out.data());
        ASSERT_EQ(out[3 * n], 0xA5) << name << ", " << Describe(text);
        out.resize(m);
        ASSERT_EQ(out, want) << name << ", density " << density << ", " << Describe(text);
      }
    }
  }
}

// One non-ASCII unit (or a pair) at every position: each 16-unit step must notice it, and a pair
// that starts in a step's last unit must still come out as one 4-byte character.
TEST(Utf16Utf8, ANonAsciiUnitOrPairAtEveryPositionIsSeen) {
  for (size_t n : {size_t{17}, size_t{48}, size_t{67}, size_t{100}}) {
    for (size_t at = 0; at < n; ++at) {
      for (std::u16string insert : {std::u16string{0x80}, std::u16string{0x2014},
                                    std::u16string{0xD83D, 0xDE00}, std::u16string{0xDC00}}) {
        std::u16string text(n, u'x');
        text.replace(at, insert.size(), insert);
        text.resize(n);  // a pair placed at the last unit is cut to a lone high surrogate
        for (const auto& [name, transcode] : Transcoders()) {
          std::vector<uint8_t> out(3 * n);
          out.resize(transcode(text.data(), n, out.data()));
          ASSERT_EQ(out, Utf8OfUtf16(text)) << name << ", " << Describe(text);
        }
      }
    }
  }
}

// The digest transcodes in chunks: a pair across a chunk edge must not be split into two lone
// halves, and a lone high surrogate at a chunk's end must still become U+FFFD.
TEST(Utf16Utf8, DigestEqualsZlibOverTheUtf8AcrossChunkEdges) {
  std::mt19937 rng(20261202);
  for (size_t edge : {kChunkUnits, 2 * kChunkUnits, 3 * kChunkUnits}) {
    for (size_t at = edge - 3; at <= edge + 1; ++at) {
      for (bool paired : {true, false}) {
        std::u16string text = RandomText(rng, 3 * kChunkUnits + 100, 2);
        text[at] = 0xD801;
        text[at + 1] = paired ? char16_t{0xDC37} : u'q';
        const std::vector<uint8_t> want = Utf8OfUtf16(text);
        for (uint32_t initial : {0u, 0xDEADBEEFu}) {
          const Utf8Digest got = Crc32OfUtf16AsUtf8(initial, text.data(), text.size());
          ASSERT_EQ(got.size, want.size()) << Describe(text);
          ASSERT_EQ(got.crc, ZlibCrc(initial, want)) << "pair at " << at << ", " << Describe(text);
        }
      }
    }
  }
  for (size_t n : {size_t{0}, size_t{1}, size_t{100}, 5 * kChunkUnits + 7}) {
    const std::u16string text = RandomText(rng, n, 20);
    const Utf8Digest got = Crc32OfUtf16AsUtf8(7, text.data(), text.size());
    EXPECT_EQ(got.crc, ZlibCrc(7, Utf8OfUtf16(text))) << Describe(text);
    EXPECT_EQ(got.size, Utf8OfUtf16(text).size()) << Describe(text);
  }
}

// The portable transcoder is used only where it beats a character-at-a-time encoder: on text
// that is mostly ASCII. The AVX-512 one suits every text.
TEST(Utf16Utf8, ThePortableTranscoderIsChosenOnlyForMostlyAsciiText) {
  using utf16_utf8_internal::MostlyAscii;
  std::u16string english(75 * 1024, u'e');
  for (size_t i = 100; i < english.size(); i += 200) english[i] = 0x2019;  // a quote every 200
  std::u16string cjk = english;
  for (size_t i = 0; i < cjk.size(); i += 3) cjk[i] = 0x4E2D;  // markup between CJK text
  EXPECT_TRUE(MostlyAscii(english.data(), english.size()));
  EXPECT_FALSE(MostlyAscii(cjk.data(), cjk.size()));
  EXPECT_TRUE(MostlyAscii(cjk.data(), 15));  // too short to sample: one step at most
  // A third of the sampled steps (every 8th) non-ASCII is already too many.
  std::u16string third(3 * 8 * 16 * 10, u'a');
  for (size_t step = 0; step < third.size() / 128; step += 3) third[step * 128 + 5] = 0xE9;
  EXPECT_FALSE(MostlyAscii(third.data(), third.size()));
  const CpuFeatures& f = GetCpuFeatures();
  const bool vbmi2 = f.avx512bw && f.avx512vl && f.avx512vbmi2;
  EXPECT_TRUE(Utf16TranscoderSuits(english.data(), english.size()));
  EXPECT_EQ(Utf16TranscoderSuits(cjk.data(), cjk.size()), vbmi2);
}

}  // namespace
}  // namespace ssr_native
