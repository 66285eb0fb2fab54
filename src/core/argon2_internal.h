// Shared between the Argon2 driver and its block-filling kernels.
#ifndef SSR_NATIVE_SRC_CORE_ARGON2_INTERNAL_H_
#define SSR_NATIVE_SRC_CORE_ARGON2_INTERNAL_H_

#include <cstddef>
#include <cstdint>

namespace ssr_native {
namespace argon2_internal {

constexpr size_t kBlockSize = 1024;
constexpr size_t kWordsPerBlock = kBlockSize / 8;

/// One 1 KiB memory block: 128 little-endian 64-bit words (x86 is little-endian, so the words
/// are stored natively). 64-byte aligned for the vector kernels.
struct alignas(64) Block {
  uint64_t v[kWordsPerBlock];
};

/// Called by a kernel as soon as the first word of its output block is final (before the rest
/// of the block is), so the caller can start fetching the block that word selects as the next
/// reference: in data-dependent Argon2 that fetch is otherwise a stall on every block.
struct NextBlockHint {
  void (*fn)(const void* context, uint64_t first_word);
  const void* context;
};

/// next = P(prev ^ ref) ^ prev ^ ref, XORed into next's old value when xor_into_next (version
/// 0x13, passes after the first). P is BLAKE2b's round with BlaMka multiplications applied to
/// the 8 rows and then the 8 columns of 16-byte registers (RFC 9106 section 3.6). `hint` may
/// be null; kernels that cannot finish word 0 early may call it at the end or not at all.
using FillBlockFn = void (*)(const Block& prev, const Block& ref, Block* next, bool xor_into_next,
                             const NextBlockHint* hint);

void FillBlockPortable(const Block& prev, const Block& ref, Block* next, bool xor_into_next,
                       const NextBlockHint* hint);
void FillBlockAvx2(const Block& prev, const Block& ref, Block* next, bool xor_into_next,
                   const NextBlockHint* hint);
void FillBlockAvx512(const Block& prev, const Block& ref, Block* next, bool xor_into_next,
                     const NextBlockHint* hint);

/// Memory for `blocks` blocks: mmap with MADV_HUGEPAGE, else aligned malloc. Null on failure.
/// Allocate reuses the current memory when it is large enough (it was wiped after its last
/// use); Wipe zeroes what the last hash used and keeps the memory; Release wipes and frees.
class BlockArena {
 public:
  BlockArena() = default;
  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;
  ~BlockArena() { Release(); }

  Block* Allocate(size_t blocks);
  void Wipe();
  void Release();
  size_t capacity_bytes() const { return bytes_; }

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0;
  size_t wipe_bytes_ = 0;
  bool mapped_ = false;
};

}  // namespace argon2_internal
}  // namespace ssr_native

#endif  // SSR_NATIVE_SRC_CORE_ARGON2_INTERNAL_H_
