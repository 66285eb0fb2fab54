#include "ssr_native/zstd_dictionary.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ssr_native/dictionary_builder.h"

namespace {

using ssr_native::DczDecodeStatus;
using ssr_native::ZstdDictionaryEncoder;

// Pages sharing a layout, each with its own seeded content.
std::vector<std::string> Pages(int count, uint32_t seed) {
  std::mt19937 random(seed);
  std::string layout = "<!doctype html><html><head><style>";
  for (int i = 0; i < 200; i++)
    layout += ".c" + std::to_string(i) + "{margin:" + std::to_string(i % 7) + "px}";
  layout += "</style></head><body><nav><a href=/>Home</a><a href=/about>About</a></nav><main>";
  std::vector<std::string> pages;
  for (int p = 0; p < count; p++) {
    std::string page = layout + "<h1>Page " + std::to_string(p) + "</h1><p>";
    for (int w = 0; w < 60; w++) page += "word" + std::to_string(random() % 500) + " ";
    page += "</p></main><footer>(c) site</footer></body></html>";
    pages.push_back(page);
  }
  return pages;
}

std::vector<uint8_t> Hash(uint8_t fill) {
  return std::vector<uint8_t>(ssr_native::kDczHashSize, fill);
}

const uint8_t* Bytes(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

class ZstdDictionaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ssr_native::ZstdAvailable()) GTEST_SKIP() << ssr_native::ZstdLoadError();
  }
};

TEST_F(ZstdDictionaryTest, DczRoundTripsAndStartsWithTheHeader) {
  std::vector<std::string> pages = Pages(10, 1);
  const std::string& dictionary = pages[0];
  std::string error;
  auto encoder = ZstdDictionaryEncoder::Create(Bytes(dictionary), dictionary.size(), 3, &error);
  ASSERT_TRUE(encoder) << error;
  std::vector<uint8_t> hash = Hash(7);
  std::string encoded;
  ASSERT_TRUE(encoder->EncodeDcz(hash.data(), Bytes(pages[5]), pages[5].size(), &encoded, &error))
      << error;
  ASSERT_GT(encoded.size(), ssr_native::kDczHeaderSize);
  EXPECT_EQ(0, std::memcmp(encoded.data(), ssr_native::kDczMagic, 8));
  EXPECT_EQ(0, std::memcmp(encoded.data() + 8, hash.data(), 32));
  // the shared layout is not sent again: far smaller than the page
  EXPECT_LT(encoded.size(), pages[5].size() / 4);
  std::string decoded;
  ASSERT_EQ(DczDecodeStatus::kOk,
            ssr_native::DecodeDcz(Bytes(dictionary), dictionary.size(), hash.data(), Bytes(encoded),
                                  encoded.size(), 1 << 20, &decoded));
  EXPECT_EQ(pages[5], decoded);
}

TEST_F(ZstdDictionaryTest, DecodeRejectsAnotherHashTruncationAndOversizedOutput) {
  std::vector<std::string> pages = Pages(3, 2);
  std::string error;
  auto encoder = ZstdDictionaryEncoder::Create(Bytes(pages[0]), pages[0].size(), 3, &error);
  ASSERT_TRUE(encoder);
  std::vector<uint8_t> hash = Hash(1);
  std::string encoded;
  ASSERT_TRUE(encoder->EncodeDcz(hash.data(), Bytes(pages[1]), pages[1].size(), &encoded, &error));
  std::string out;
  std::vector<uint8_t> other = Hash(2);
  EXPECT_EQ(DczDecodeStatus::kWrongDictionary,
            ssr_native::DecodeDcz(Bytes(pages[0]), pages[0].size(), other.data(), Bytes(encoded),
                                  encoded.size(), 1 << 20, &out));
  for (size_t cut : {size_t{0}, size_t{7}, size_t{39}, size_t{41}, encoded.size() - 1}) {
    EXPECT_NE(DczDecodeStatus::kOk,
              ssr_native::DecodeDcz(Bytes(pages[0]), pages[0].size(), hash.data(), Bytes(encoded),
                                    cut, 1 << 20, &out))
        << "cut at " << cut;
  }
  EXPECT_EQ(DczDecodeStatus::kTooLarge,
            ssr_native::DecodeDcz(Bytes(pages[0]), pages[0].size(), hash.data(), Bytes(encoded),
                                  encoded.size(), 100, &out));
  std::string bad = encoded;
  bad[0] ^= 1;
  EXPECT_EQ(DczDecodeStatus::kBadMagic,
            ssr_native::DecodeDcz(Bytes(pages[0]), pages[0].size(), hash.data(), Bytes(bad),
                                  bad.size(), 1 << 20, &out));
  // decoding against a different dictionary (same hash claimed) fails or differs, never crashes
  std::string wrong;
  DczDecodeStatus status = ssr_native::DecodeDcz(Bytes(pages[2]), pages[2].size(), hash.data(),
                                                 Bytes(encoded), encoded.size(), 1 << 20, &wrong);
  if (status == DczDecodeStatus::kOk) {
    EXPECT_NE(pages[1], wrong);
  }
}

TEST_F(ZstdDictionaryTest, FrameWindowFollowsTheDescriptor) {
  uint64_t window = 0;
  // magic, descriptor without single segment, window descriptor exponent 13 mantissa 0 -> 8 MiB
  const uint8_t eight_mib[] = {0x28, 0xb5, 0x2f, 0xfd, 0x00, 13 << 3};
  ASSERT_EQ(DczDecodeStatus::kOk,
            ssr_native::ZstdFrameWindow(eight_mib, sizeof(eight_mib), &window));
  EXPECT_EQ(uint64_t{8} << 20, window);
  const uint8_t larger[] = {0x28, 0xb5, 0x2f, 0xfd, 0x00, (13 << 3) | 1};
  ASSERT_EQ(DczDecodeStatus::kOk, ssr_native::ZstdFrameWindow(larger, sizeof(larger), &window));
  EXPECT_EQ((uint64_t{8} << 20) + (uint64_t{1} << 20), window);
  // single segment, 2-byte content size 0x0100 + 256
  const uint8_t single[] = {0x28, 0xb5, 0x2f, 0xfd, 0x60, 0x00, 0x01};
  ASSERT_EQ(DczDecodeStatus::kOk, ssr_native::ZstdFrameWindow(single, sizeof(single), &window));
  EXPECT_EQ(uint64_t{512}, window);
  EXPECT_EQ(DczDecodeStatus::kTruncated, ssr_native::ZstdFrameWindow(single, 6, &window));
}

TEST_F(ZstdDictionaryTest, DecodeRefusesAWindowBeyondTheRfcLimit) {
  std::string dictionary = "dictionary bytes";
  std::vector<uint8_t> hash = Hash(3);
  std::string input(reinterpret_cast<const char*>(ssr_native::kDczMagic), 8);
  input.append(reinterpret_cast<const char*>(hash.data()), 32);
  const char frame[] = {'\x28', '\xb5', '\x2f', '\xfd', '\x00', static_cast<char>((13 << 3) | 1),
                        '\x01', '\x00', '\x00'};
  input.append(frame, sizeof(frame));
  std::string out;
  EXPECT_EQ(DczDecodeStatus::kCorrupt,
            ssr_native::DecodeDcz(Bytes(dictionary), dictionary.size(), hash.data(), Bytes(input),
                                  input.size(), 1 << 20, &out));
  EXPECT_EQ(size_t{8} << 20, ssr_native::DczWindowLimit(1000));
  EXPECT_EQ(size_t{10} << 20, ssr_native::DczWindowLimit(size_t{8} << 20));
}

TEST_F(ZstdDictionaryTest, TrainedDictionaryCompressesUnseenPagesBetterThanNone) {
  std::vector<std::string> pages = Pages(60, 3);
  std::vector<std::string> training(pages.begin(), pages.begin() + 50);
  std::string dictionary;
  std::string error;
  ASSERT_TRUE(ssr_native::TrainZstdDictionary(training, 16 * 1024, &dictionary, &error)) << error;
  ASSERT_GT(dictionary.size(), 0u);
  ASSERT_LE(dictionary.size(), 16u * 1024);
  auto encoder = ZstdDictionaryEncoder::Create(Bytes(dictionary), dictionary.size(), 3, &error);
  ASSERT_TRUE(encoder) << error;
  std::string with;
  ASSERT_TRUE(encoder->Compress(Bytes(pages[55]), pages[55].size(), &with, &error));
  std::string tiny = "x";
  auto none = ZstdDictionaryEncoder::Create(Bytes(tiny), tiny.size(), 3, &error);
  std::string without;
  ASSERT_TRUE(none->Compress(Bytes(pages[55]), pages[55].size(), &without, &error));
  EXPECT_LT(with.size() * 2, without.size());
}

TEST_F(ZstdDictionaryTest, TrainingOnTooFewSamplesFailsCleanly) {
  std::string dictionary;
  std::string error;
  EXPECT_FALSE(ssr_native::TrainZstdDictionary({"a", "b"}, 4096, &dictionary, &error));
  EXPECT_FALSE(error.empty());
  EXPECT_TRUE(dictionary.empty());
}

}  // namespace

namespace {

TEST(DictionaryBuilderTest, CommonPartsKeepOnlySegmentsSharedByHalfThePages) {
  std::vector<std::string> samples = {
      "<html><nav>menu</nav><p>secret-one</p></html>",
      "<html><nav>menu</nav><p>page two</p></html>",
      "<html><nav>menu</nav><p>page three</p></html>",
      "<html><nav>menu</nav><p>page two</p></html>",
  };
  std::string dictionary = ssr_native::CommonPartsDictionary(samples, 1024);
  EXPECT_NE(std::string::npos, dictionary.find("<nav>menu</nav>"));
  EXPECT_EQ(std::string::npos, dictionary.find("secret-one"));
  EXPECT_NE(std::string::npos, dictionary.find("page two"));  // in two of four: half
  EXPECT_EQ(std::string::npos, dictionary.find("page three"));
  // a single page never makes a dictionary of its own content
  EXPECT_EQ("", ssr_native::CommonPartsDictionary({samples[0]}, 1024));
  EXPECT_LE(ssr_native::CommonPartsDictionary(samples, 10).size(), 10u);
}

TEST_F(ZstdDictionaryTest, ChooseDictionaryPicksTheSmallerAndKeepsABetterCurrent) {
  std::vector<std::string> pages = Pages(40, 4);
  ssr_native::DictionaryChoice choice = ssr_native::ChooseDictionary(pages, 32 * 1024, 3, "", 0.9);
  ASSERT_FALSE(choice.dictionary.empty());
  size_t chosen = choice.method == "trained" ? choice.trained_bytes : choice.common_bytes;
  if (choice.trained_bytes != 0) {
    EXPECT_LE(chosen, choice.trained_bytes);
  }
  if (choice.common_bytes != 0) {
    EXPECT_LE(chosen, choice.common_bytes);
  }
  // the same pages again: the new candidate is not 10% better than what it replaces
  ssr_native::DictionaryChoice again =
      ssr_native::ChooseDictionary(pages, 32 * 1024, 3, choice.dictionary, 0.9);
  EXPECT_TRUE(again.dictionary.empty());
  EXPECT_GT(again.current_bytes, 0u);
}

}  // namespace
