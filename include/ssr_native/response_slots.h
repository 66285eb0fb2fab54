// The response cache's stored responses, outside any JavaScript heap: each response's metadata
// (status, headers, freshness times, as the JS layer encodes them) and body in one immutable
// block, addressed by a small integer id the JS index keeps. A JS object per entry is what
// V8's collector marks on every major GC and what lengthens it with the number of pages cached;
// a slot id is a small integer, which it does not mark at all.
//
// Block layout: [u32 metadata length, little-endian][metadata bytes][body bytes].
// Blocks are shared by reference: a response still sending a body keeps its block alive after
// the slot was removed or reused. Not thread-safe: one owner (a JS thread) calls it.
#ifndef SSR_NATIVE_RESPONSE_SLOTS_H_
#define SSR_NATIVE_RESPONSE_SLOTS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ssr_native/blob_bytes.h"

namespace ssr_native {

/// One stored response's bytes (see the layout above).
struct ResponseBlock {
  ResponseBlock();
  ~ResponseBlock();
  ResponseBlock(const ResponseBlock&) = delete;
  ResponseBlock& operator=(const ResponseBlock&) = delete;

  /// Blocks alive in the process, held by a slot or by anything sharing them (a diagnostic:
  /// tests check that dropped blocks are not kept alive by reads).
  static size_t Alive();

  BlobBytes data;
  size_t size = 0;
};

class ResponseSlots {
 public:
  /// The bytes before the metadata (its length).
  static constexpr size_t kPrefix = 4;
  /// The largest metadata a block holds (its length is a u32).
  static constexpr size_t kMaxMetadata = 0xffffffffu;
  /// The id no slot has (what a full table of 2^32 - 1 slots would need next).
  static constexpr uint32_t kNoSlot = 0xffffffffu;

  /// Copies the metadata and body into a new block and returns its slot id (a freed one first,
  /// so ids stay below the most slots ever held at once). Throws std::length_error for metadata
  /// over kMaxMetadata or a table that is full, std::bad_alloc when the memory cannot be had;
  /// nothing changes then.
  uint32_t Put(const uint8_t* metadata, size_t metadata_size, const uint8_t* body,
               size_t body_size);

  /// The block in slot `id`, or null for a slot that is empty or out of range.
  std::shared_ptr<const ResponseBlock> Get(uint32_t id) const;

  /// The metadata's length in `block` (read from its prefix).
  static size_t MetadataSize(const ResponseBlock& block);

  /// Empties slot `id`; false when it held nothing. The block lives on while shared.
  bool Remove(uint32_t id);

  /// Empties every slot.
  void Clear();

  size_t count() const { return count_; }
  /// The bytes of every block held (metadata, body and the length prefix).
  size_t bytes() const { return bytes_; }

 private:
  std::vector<std::shared_ptr<const ResponseBlock>> slots_;
  std::vector<uint32_t> free_;  // the empty slots' ids (capacity: one per slot)
  size_t count_ = 0;
  size_t bytes_ = 0;
};

}  // namespace ssr_native

#endif  // SSR_NATIVE_RESPONSE_SLOTS_H_
