// SharedCache: one response cache for every process of a machine that opens the same segment
// (a file under /dev/shm or another tmpfs), mapped MAP_SHARED by each.
//
// Design (nginx's shared zone, with lock-free reads): writers (put, delete, purge, eviction,
// fill locks) take one PTHREAD_PROCESS_SHARED + PTHREAD_MUTEX_ROBUST mutex in the segment; a
// writer that dies holding it hands the next locker EOWNERDEAD, which repairs the segment (every
// slot caught mid-write is emptied, the block map and counters rebuilt from the slots) before
// going on. Readers take no lock: each index slot is a seqlock (odd while written); a reader
// copies the record out, then checks the slot's sequence is unchanged and the record's CRC-32,
// so a record being replaced, evicted or torn by a killed writer is a miss, never served.
// Blocks are freed only after their slot's sequence moved, so a reader racing a reuse sees it.
// Index: set-associative (kWays slots per set, chosen by the key's hash). Entry area: 512-byte
// blocks, a bitmap of free ones and each block's owning slot. A put takes the first free run
// near a hint; when there is none, it evicts the entries of one window of its own size: the
// cheapest of a few candidate windows from a hand that goes round the blocks (CLOCK over
// blocks: a hit sets the slot's reference bit with a plain store when clear, no lock, no shared
// line written on most hits; the hand passing clears it), and gives up (not stored, counted)
// rather than evict more than about twice its size. The put marks those blocks reserved (with
// its pid), copies and checksums the page outside the mutex, then publishes the slot under it;
// blocks reserved by a dead pid are taken back when the hand passes them or at a repair, and
// no reader looks at reserved blocks (no slot names them). Nothing under the mutex walks the
// whole segment: a purge or a key walk releases it every few hundred slots, and every caller
// waits for it a bounded time (a stopped holder costs a miss or a page not stored, not a stall).
// Nothing read from the segment is trusted: offsets and sizes come from the options, every
// length and block number stored in it is checked before use.
#ifndef SSR_NATIVE_SHARED_CACHE_H_
#define SSR_NATIVE_SHARED_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ssr_native {

struct SharedCacheStats {
  uint64_t entries = 0;
  uint64_t bytes = 0;     // bytes of the blocks the entries hold
  uint64_t maxBytes = 0;  // the entry area
  uint64_t evictions = 0;
  uint64_t repairs = 0;       // segments repaired after a writer died holding the mutex
  uint64_t putsGivenUp = 0;   // puts not stored: room only by evicting more than allowed
  uint64_t lockTimeouts = 0;  // operations not done: the mutex was held past the bounded wait
};

class SharedCache {
 public:
  static constexpr uint32_t kWays = 8;
  static constexpr uint32_t kBlock = 512;
  static constexpr uint32_t kFillLocks = 1024;

  enum class Field { kTarget = 0, kTag = 1, kPrimary = 2, kAll = 3 };

  struct Record {                       // what put() stores, beside the key
    std::string target, primary, tags;  // tags: '\n'-separated
    std::string meta;                   // the metadata (JSON)
    const uint8_t* body = nullptr;
    size_t bodySize = 0;
    int64_t expiresAtMs = 0;
  };

  /// Opens (creating when absent) the segment `path` for `maxBytes` of entries and `maxEntries`
  /// slots. An existing file is used only when ours (regular, not a link, owned by this euid, no
  /// group/other bits, one link); with a bad header (magic, layout version, sizes) it is
  /// replaced by a new file (processes still mapping the old one keep it until they exit). When
  /// `persist` is false and no other process has it open, its entries are dropped. Returns null
  /// with *error set (naming the file and why), e.g. a tmpfs without room for the segment.
  static std::unique_ptr<SharedCache> Open(const std::string& path, uint64_t maxBytes,
                                           uint32_t maxEntries, bool persist, std::string* error);
  ~SharedCache();
  SharedCache(const SharedCache&) = delete;
  SharedCache& operator=(const SharedCache&) = delete;

  /// Room for a record's body of `size` bytes, which Get copies into (null for size > 0: a
  /// miss). Called again on the same Get when the record was replaced while read.
  using BodyBuffer = std::function<uint8_t*(size_t size)>;
  /// The record of `key` (fresh at `nowMs`): its meta copied into *meta, its body copied once,
  /// straight from the segment into bodyBuffer's room; the CRC-32 is checked on those copies
  /// after the copy (the bytes handed out are the bytes checked), so a torn or overwritten
  /// record is a miss. Returns its stamp (unique per write), 0 on a miss (the room's bytes are
  /// then meaningless). When the stored stamp equals `knownStamp` nothing is copied and
  /// knownStamp is returned. On a hit, *slot (when given) is the slot that holds the record:
  /// its index in the stamp table.
  uint64_t Get(const std::string& key, int64_t nowMs, uint64_t knownStamp, std::string* meta,
               const BodyBuffer& bodyBuffer, uint32_t* slot = nullptr);
  /// Get with the body copied into *body.
  uint64_t Get(const std::string& key, int64_t nowMs, uint64_t knownStamp, std::string* meta,
               std::string* body);
  /// Stores (replacing) the record of `key`; false when it can never fit.
  bool Put(const std::string& key, const Record& record);
  bool Delete(const std::string& key);
  /// Deletes the entries whose `field` equals `arg` (or starts with it when `prefix`; a tag
  /// field matches when one of its tags equals arg); returns how many. The index is walked in
  /// slices, the mutex released between them; *complete (when given) is false when a slice
  /// found the mutex held past the bounded wait (the walk stops there).
  uint64_t Purge(Field field, const std::string& arg, bool prefix, bool* complete = nullptr);
  /// The keys of the entries Purge would delete.
  std::vector<std::string> Keys(Field field, const std::string& arg, bool prefix,
                                bool* complete = nullptr);

  /// The cross-process fill lock of `key`: true when taken (free, held by a dead process, past
  /// its deadline, or by this process already) until nowMs + ms.
  bool TryLock(const std::string& key, int64_t nowMs, int64_t ms);
  void Unlock(const std::string& key);

  /// The index slots as this process maps them, for a reader that checks without a call
  /// whether a write it read is still the one stored (its stamp): `count` slots of `bytes`
  /// each; at seqAt, hashAt and stampAt a 64-bit word in the machine's byte order, at refAt a
  /// byte. The slot holds the write of that stamp when two reads of seq, before and after
  /// reading stamp and hash, are equal and even and the hash is not 0 (a stamp is never given
  /// twice; an emptied slot has hash 0). Such a reader sets ref to 1 when it is 0, as a hit does.
  /// Valid while this object lives.
  struct StampTable {
    uint8_t* data;
    uint64_t count;
    uint32_t bytes, seqAt, hashAt, stampAt, refAt;
  };
  StampTable Stamps() const;

  SharedCacheStats Stats();
  /// How long an operation waits for the segment's mutex (default 5 ms) when its holder is
  /// stopped or gone (one that can run, e.g. preempted, is waited for up to 40 times that)
  /// before it gives up: Put and Delete return false, TryLock false (as if held: the caller
  /// waits for the page, then renders it), Purge and Keys stop short.
  void set_lock_wait_us(uint32_t us) { lockWaitUs_ = us; }
  /// Where the segment's mutex lies (fuzzing: the one part of the segment that is trusted).
  static size_t MutexOffset();
  /// Runs fn holding the segment's mutex (tests: a holder that stops); false when not taken.
  bool WithMutexHeld(const std::function<void()>& fn);
  const std::string& path() const { return path_; }

  static uint64_t HashKey(const std::string& key);

  struct Layout {  // where each part of the segment lies (computed from the options)
    uint64_t sets, blocks, slotsAt, bitmapAt, ownersAt, locksAt, blocksAt, total;
  };

 private:
  SharedCache(std::string path, int fd, uint8_t* base, const Layout& layout);
  struct Locked;
  bool WalkSlices(const std::function<void(Locked&, uint64_t)>& visit);  // slot by slot
  std::string path_;
  int fd_;
  uint8_t* base_;
  size_t size_;
  Layout layout_;  // never read back from the segment
  uint32_t lockWaitUs_ = 5000;
  std::vector<std::pair<uint64_t, uint64_t>> abandoned_;  // reservations to free (not published)
};

}  // namespace ssr_native

#endif  // SSR_NATIVE_SHARED_CACHE_H_
