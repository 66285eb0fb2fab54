#include "ssr_native/response_slots.h"

#include <atomic>
#include <cstring>
#include <stdexcept>

namespace ssr_native {

namespace {

std::atomic<size_t> alive_blocks{0};

void WriteU32Le(uint8_t* out, uint32_t value) {
  out[0] = static_cast<uint8_t>(value);
  out[1] = static_cast<uint8_t>(value >> 8);
  out[2] = static_cast<uint8_t>(value >> 16);
  out[3] = static_cast<uint8_t>(value >> 24);
}

}  // namespace

ResponseBlock::ResponseBlock() { alive_blocks.fetch_add(1, std::memory_order_relaxed); }

ResponseBlock::~ResponseBlock() { alive_blocks.fetch_sub(1, std::memory_order_relaxed); }

size_t ResponseBlock::Alive() { return alive_blocks.load(std::memory_order_relaxed); }

uint32_t ResponseSlots::Put(const uint8_t* metadata, size_t metadata_size, const uint8_t* body,
                            size_t body_size) {
  if (metadata_size > kMaxMetadata) throw std::length_error("response metadata too large");
  if (body_size > SIZE_MAX - kPrefix - metadata_size) throw std::length_error("response too large");
  if (free_.empty() && slots_.size() >= kNoSlot) throw std::length_error("response slots full");
  const size_t size = kPrefix + metadata_size + body_size;
  auto block = std::make_shared<ResponseBlock>();
  block->data = BlobBytes(size);
  block->size = size;
  uint8_t* out = block->data.get();
  WriteU32Le(out, static_cast<uint32_t>(metadata_size));
  if (metadata_size > 0) std::memcpy(out + kPrefix, metadata, metadata_size);
  if (body_size > 0) std::memcpy(out + kPrefix + metadata_size, body, body_size);

  uint32_t id;
  if (free_.empty()) {
    // Remove() pushes onto free_ and must not throw: room for every slot is kept in advance
    if (free_.capacity() < slots_.size() + 1) free_.reserve(2 * (slots_.size() + 1));
    slots_.push_back(std::move(block));  // may throw: nothing changed yet
    id = static_cast<uint32_t>(slots_.size() - 1);
  } else {
    id = free_.back();
    free_.pop_back();
    slots_[id] = std::move(block);
  }
  ++count_;
  bytes_ += size;
  return id;
}

size_t ResponseSlots::MetadataSize(const ResponseBlock& block) {
  const uint8_t* p = block.data.get();
  return static_cast<size_t>(p[0]) | static_cast<size_t>(p[1]) << 8 |
         static_cast<size_t>(p[2]) << 16 | static_cast<size_t>(p[3]) << 24;
}

std::shared_ptr<const ResponseBlock> ResponseSlots::Get(uint32_t id) const {
  if (id >= slots_.size()) return nullptr;
  return slots_[id];
}

bool ResponseSlots::Remove(uint32_t id) {
  if (id >= slots_.size() || !slots_[id]) return false;
  bytes_ -= slots_[id]->size;
  --count_;
  slots_[id].reset();
  free_.push_back(id);  // within the capacity Put() reserved
  return true;
}

void ResponseSlots::Clear() {
  slots_.clear();
  free_.clear();
  count_ = 0;
  bytes_ = 0;
}

}  // namespace ssr_native
