#include "ssr_native/etag.h"

#include <gtest/gtest.h>

#include <string>

namespace ssr_native {
namespace {

std::string Format(uint64_t length, uint32_t crc, bool weak) {
  char buffer[kMaxEntityTagLength];
  return std::string(buffer, FormatEntityTag(length, crc, weak, buffer));
}

TEST(EntityTag, KnownVector) {
  EXPECT_EQ(EntityTag("123456789", 9, true), "W/\"9-cbf43926\"");
  EXPECT_EQ(EntityTag("123456789", 9, false), "\"9-cbf43926\"");
}

TEST(EntityTag, Empty) { EXPECT_EQ(EntityTag("", 0, true), "W/\"0-00000000\""); }

TEST(EntityTag, LengthIsMinimalLowercaseHex) {
  EXPECT_EQ(Format(0x12c00, 0xABCDEF01u, true), "W/\"12c00-abcdef01\"");
  EXPECT_EQ(Format(15, 1, false), "\"f-00000001\"");
  EXPECT_EQ(Format(16, 0, false), "\"10-00000000\"");
}

TEST(EntityTag, LongestFitsTheBuffer) {
  const std::string tag = Format(UINT64_MAX, UINT32_MAX, true);
  EXPECT_EQ(tag, "W/\"ffffffffffffffff-ffffffff\"");
  EXPECT_EQ(tag.size(), kMaxEntityTagLength);
}

}  // namespace
}  // namespace ssr_native
