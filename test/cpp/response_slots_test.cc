#include "ssr_native/response_slots.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace ssr_native {
namespace {

std::string Text(const std::shared_ptr<const ResponseBlock>& block) {
  return std::string(reinterpret_cast<const char*>(block->data.get()), block->size);
}

uint32_t Put(ResponseSlots& slots, const std::string& meta, const std::string& body) {
  return slots.Put(reinterpret_cast<const uint8_t*>(meta.data()), meta.size(),
                   reinterpret_cast<const uint8_t*>(body.data()), body.size());
}

TEST(ResponseSlotsTest, BlockIsLengthPrefixedMetadataThenBody) {
  ResponseSlots slots;
  const uint32_t id = Put(slots, "{\"s\":200}", "<html>");
  auto block = slots.Get(id);
  ASSERT_TRUE(block);
  EXPECT_EQ(Text(block), std::string("\x09\x00\x00\x00", 4) + "{\"s\":200}<html>");
  EXPECT_EQ(ResponseSlots::MetadataSize(*block), 9u);
  EXPECT_EQ(slots.count(), 1u);
  EXPECT_EQ(slots.bytes(), 4u + 9u + 6u);
}

TEST(ResponseSlotsTest, MetadataSizeReadsAllFourPrefixBytes) {
  ResponseSlots slots;
  const std::string meta(0x20304, 'm');  // three of the prefix bytes in use
  const uint32_t id = Put(slots, meta, "b");
  EXPECT_EQ(ResponseSlots::MetadataSize(*slots.Get(id)), meta.size());
}

TEST(ResponseSlotsTest, EmptyMetadataAndBody) {
  ResponseSlots slots;
  const uint32_t id = slots.Put(nullptr, 0, nullptr, 0);
  ASSERT_TRUE(slots.Get(id));
  EXPECT_EQ(Text(slots.Get(id)), std::string(4, '\0'));
}

TEST(ResponseSlotsTest, RemovedSlotIsEmptyAndItsIdReused) {
  ResponseSlots slots;
  const uint32_t a = Put(slots, "a", "1");
  const uint32_t b = Put(slots, "b", "2");
  EXPECT_NE(a, b);
  EXPECT_TRUE(slots.Remove(a));
  EXPECT_FALSE(slots.Remove(a));
  EXPECT_FALSE(slots.Get(a));
  EXPECT_EQ(slots.count(), 1u);
  EXPECT_EQ(slots.bytes(), 6u);
  EXPECT_EQ(Put(slots, "c", "3"), a);  // ids stay below the most slots held at once
  EXPECT_EQ(Text(slots.Get(b)), std::string("\x01\x00\x00\x00", 4) + "b2");
}

TEST(ResponseSlotsTest, OutOfRangeIdsHoldNothing) {
  ResponseSlots slots;
  EXPECT_FALSE(slots.Get(0));
  EXPECT_FALSE(slots.Remove(0));
  Put(slots, "a", "1");
  EXPECT_FALSE(slots.Get(1));
  EXPECT_FALSE(slots.Get(ResponseSlots::kNoSlot));
  EXPECT_FALSE(slots.Remove(ResponseSlots::kNoSlot));
}

TEST(ResponseSlotsTest, SharedBlockOutlivesRemoveAndReuse) {
  ResponseSlots slots;
  const uint32_t id = Put(slots, "m", std::string(100000, 'x'));  // mmap-backed
  auto held = slots.Get(id);
  slots.Remove(id);
  Put(slots, "n", std::string(100000, 'y'));
  slots.Clear();
  ASSERT_EQ(held->size, 4u + 1u + 100000u);
  EXPECT_EQ(held->data.get()[5], 'x');
  EXPECT_EQ(held->data.get()[held->size - 1], 'x');
}

TEST(ResponseSlotsTest, AliveCountsBlocksUntilTheLastHolderDrops) {
  const size_t before = ResponseBlock::Alive();
  {
    ResponseSlots slots;
    const uint32_t a = Put(slots, "a", "1");
    Put(slots, "b", "2");
    EXPECT_EQ(ResponseBlock::Alive(), before + 2);
    auto held = slots.Get(a);
    slots.Remove(a);
    EXPECT_EQ(ResponseBlock::Alive(), before + 2);  // still shared
    held.reset();
    EXPECT_EQ(ResponseBlock::Alive(), before + 1);
  }
  EXPECT_EQ(ResponseBlock::Alive(), before);
}

TEST(ResponseSlotsTest, ClearEmptiesEverySlot) {
  ResponseSlots slots;
  for (int i = 0; i < 10; ++i) Put(slots, "m", "b");
  slots.Clear();
  EXPECT_EQ(slots.count(), 0u);
  EXPECT_EQ(slots.bytes(), 0u);
  EXPECT_FALSE(slots.Get(3));
  EXPECT_EQ(Put(slots, "m", "b"), 0u);
}

// Seeded random puts and removes against a map of what each live id must hold.
TEST(ResponseSlotsTest, RandomPutsAndRemovesMatchAModel) {
  const uint32_t seed = 0x5107;
  std::mt19937 random(seed);
  ResponseSlots slots;
  std::unordered_map<uint32_t, std::string> model;
  size_t bytes = 0;
  size_t most = 0;
  for (int step = 0; step < 20000; ++step) {
    if (model.empty() || random() % 3 != 0) {
      const std::string meta(random() % 40, static_cast<char>('a' + random() % 26));
      const std::string body(random() % 300, static_cast<char>('A' + random() % 26));
      const uint32_t id = Put(slots, meta, body);
      ASSERT_EQ(model.count(id), 0u) << "seed " << seed << " step " << step << ": id in use";
      std::string expected(4, '\0');
      expected[0] = static_cast<char>(meta.size());
      model[id] = expected + meta + body;
      bytes += model[id].size();
    } else {
      auto it = model.begin();
      std::advance(it, random() % model.size());
      bytes -= it->second.size();
      ASSERT_TRUE(slots.Remove(it->first)) << "seed " << seed << " step " << step;
      model.erase(it);
    }
    most = std::max(most, model.size());
    ASSERT_EQ(slots.count(), model.size()) << "seed " << seed << " step " << step;
    ASSERT_EQ(slots.bytes(), bytes) << "seed " << seed << " step " << step;
  }
  for (const auto& [id, text] : model) {
    ASSERT_LT(id, most) << "seed " << seed;
    ASSERT_EQ(Text(slots.Get(id)), text) << "seed " << seed << " id " << id;
  }
}

}  // namespace
}  // namespace ssr_native
