// Argon2's working memory. A default hash touches 64 MiB once per pass in random order, so
// TLB misses dominate unless the memory is backed by 2 MiB pages: mmap + MADV_HUGEPAGE
// (transparent huge pages), measurably faster than malloc'ed 4 KiB pages (CONTRIBUTING.md).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "argon2_internal.h"
#include "ssr_native/blake2b.h"

namespace ssr_native {
namespace argon2_internal {
namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}

Block* BlockArena::Allocate(size_t blocks) {
  if (blocks == 0 || blocks > SIZE_MAX / kBlockSize) return nullptr;
  const size_t bytes = blocks * kBlockSize;
  if (base_ != nullptr && bytes <= bytes_) {
    // Already faulted in (and on huge pages): the biggest saving of reuse.
    wipe_bytes_ = bytes;
    return static_cast<Block*>(base_);
  }
  Release();
  // More than the machine's RAM can only end in the OOM killer (Linux overcommits anonymous
  // mappings): report an allocation error instead, as malloc would on a stricter system.
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0 &&
      bytes / static_cast<size_t>(page_size) > static_cast<size_t>(pages)) {
    return nullptr;
  }
#if defined(MAP_ANONYMOUS)
  // Small arenas (below one huge page) come from malloc: huge pages cannot help them.
  if (bytes >= kHugePage) {
    // Round up to whole huge pages and map one more, so the blocks can start on a 2 MiB
    // boundary: mmap only promises 4 KiB alignment, and a misaligned start would leave the
    // first and last pieces on small pages.
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    const size_t mapped = rounded + kHugePage;
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      const uintptr_t start = reinterpret_cast<uintptr_t>(p);
      const uintptr_t aligned = (start + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
      // Give back the unused head and tail right away.
      if (aligned > start) munmap(p, aligned - start);
      const uintptr_t end = start + mapped;
      if (end > aligned + rounded)
        munmap(reinterpret_cast<void*>(aligned + rounded), end - (aligned + rounded));
#if defined(MADV_HUGEPAGE)
      madvise(reinterpret_cast<void*>(aligned), rounded, MADV_HUGEPAGE);
#endif
      base_ = reinterpret_cast<void*>(aligned);
      bytes_ = rounded;
      mapped_ = true;
      wipe_bytes_ = bytes;
      return static_cast<Block*>(base_);
    }
  }
#endif
  void* q = nullptr;
  if (posix_memalign(&q, 64, bytes) != 0) return nullptr;
  base_ = q;
  bytes_ = bytes;
  wipe_bytes_ = bytes;
  mapped_ = false;
  return static_cast<Block*>(q);
}

void BlockArena::Wipe() {
  if (base_ != nullptr) SecureWipe(base_, wipe_bytes_);
  wipe_bytes_ = 0;
}

void BlockArena::Release() {
  if (base_ == nullptr) return;
  // Wipe before release: the blocks are derived from the password. (Only the blocks: the
  // rounding slack was never written, and touching it would fault pages in.)
  SecureWipe(base_, wipe_bytes_);
#if defined(MAP_ANONYMOUS)
  if (mapped_) {
    munmap(base_, bytes_);
  } else {
    std::free(base_);
  }
#else
  std::free(base_);
#endif
  base_ = nullptr;
  bytes_ = 0;
}

}  // namespace argon2_internal
}  // namespace ssr_native
