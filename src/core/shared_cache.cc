// SharedCache (see the header for the design). Layout of the segment, every part 64-byte
// aligned: Header | Slot[sets * kWays] | free-block bitmap | block owners | FillLock[kFillLocks]
// | blocks. The layout is computed from the options and kept in this process: offsets and
// sizes stored in the segment are checked once at open and never read again.
#include "ssr_native/shared_cache.h"

#include <atomic>
#include <cstddef>
#include <cstring>

#include "own_file.h"
#include "ssr_native/crc32.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <ctime>
#endif

namespace ssr_native {

uint64_t SharedCache::HashKey(const std::string& key) {
  // FNV-1a, then a final mix (the low bits choose the set)
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h == 0 ? 1 : h;
}

#if defined(__linux__)

namespace {

constexpr uint64_t kMagic = 0x3168736e76727373ull;  // "ssrvnsh1"
constexpr uint32_t kVersion = 2;                    // 2: block owners, eviction by window
constexpr uint32_t kRecordMagic = 0x52435353u;

struct Header {
  uint64_t magic;
  uint32_t version;
  uint32_t headerSize;
  uint64_t totalSize;
  uint64_t blocks;
  uint64_t sets;
  uint64_t slotsAt, bitmapAt, ownersAt, locksAt, blocksAt;
  pthread_mutex_t mutex;
  std::atomic<uint64_t> nextStamp;
  std::atomic<uint64_t> entries;
  std::atomic<uint64_t> usedBlocks;
  std::atomic<uint64_t> evictions;
  std::atomic<uint64_t> repairs;
  std::atomic<uint64_t> putsGivenUp;
  std::atomic<uint64_t> lockTimeouts;
  uint64_t evictHand;  // a block: where the next eviction's candidate windows start
  uint64_t allocHint;
};

// Every field a reader looks at is atomic (read relaxed between the two loads of seq).
struct Slot {
  std::atomic<uint64_t> seq;   // odd while a writer changes the slot
  std::atomic<uint64_t> hash;  // 0: empty
  std::atomic<uint64_t> stamp;
  std::atomic<int64_t> expires;
  std::atomic<uint32_t> block;
  std::atomic<uint32_t> nblocks;
  std::atomic<uint32_t> size;
  std::atomic<uint8_t> ref;
};

struct FillLock {
  uint64_t hash;
  int64_t deadline;
  int32_t pid;  // 0: free
};

struct RecordHead {
  uint32_t magic;
  uint32_t crc;  // CRC-32 of everything after this field
  uint32_t keyLen, targetLen, primaryLen, tagsLen, metaLen, pad;
  uint64_t bodyLen;
};

constexpr uint64_t Align(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

using Layout = SharedCache::Layout;

Layout LayoutFor(uint64_t maxBytes, uint32_t maxEntries) {
  Layout l{};
  l.sets = (static_cast<uint64_t>(maxEntries) + SharedCache::kWays - 1) / SharedCache::kWays;
  if (l.sets == 0) l.sets = 1;
  l.blocks = (maxBytes + SharedCache::kBlock - 1) / SharedCache::kBlock;
  if (l.blocks == 0) l.blocks = 1;
  l.slotsAt = Align(sizeof(Header), 64);
  l.bitmapAt = Align(l.slotsAt + l.sets * SharedCache::kWays * sizeof(Slot), 64);
  l.ownersAt = Align(l.bitmapAt + (l.blocks + 63) / 64 * 8, 64);
  l.locksAt = Align(l.ownersAt + l.blocks * sizeof(uint32_t), 64);
  l.blocksAt = Align(l.locksAt + SharedCache::kFillLocks * sizeof(FillLock), 4096);
  l.total = l.blocksAt + l.blocks * SharedCache::kBlock;
  return l;
}

bool HeaderMatches(const Header* h, const Layout& l) {
  return h->magic == kMagic && h->version == kVersion && h->headerSize == sizeof(Header) &&
         h->totalSize == l.total && h->blocks == l.blocks && h->sets == l.sets &&
         h->slotsAt == l.slotsAt && h->bitmapAt == l.bitmapAt && h->ownersAt == l.ownersAt &&
         h->locksAt == l.locksAt && h->blocksAt == l.blocksAt;
}

// A fresh segment: everything but the blocks zeroed, the mutex made, the magic written last.
bool Initialize(uint8_t* base, const Layout& l, std::string* error) {
  std::memset(base, 0, l.blocksAt);
  auto* h = reinterpret_cast<Header*>(base);
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  const int rc = pthread_mutex_init(&h->mutex, &attr);
  pthread_mutexattr_destroy(&attr);
  if (rc != 0) {
    *error = std::string("pthread_mutex_init: ") + std::strerror(rc);
    return false;
  }
  h->version = kVersion;
  h->headerSize = sizeof(Header);
  h->totalSize = l.total;
  h->blocks = l.blocks;
  h->sets = l.sets;
  h->slotsAt = l.slotsAt;
  h->bitmapAt = l.bitmapAt;
  h->ownersAt = l.ownersAt;
  h->locksAt = l.locksAt;
  h->blocksAt = l.blocksAt;
  h->nextStamp.store(1);
  std::atomic_thread_fence(std::memory_order_release);
  h->magic = kMagic;
  return true;
}

bool SameFile(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  return fstat(fd, &a) == 0 && lstat(path.c_str(), &b) == 0 && a.st_ino == b.st_ino &&
         a.st_dev == b.st_dev;
}

}  // namespace

// Eviction when no free run is found near the allocation hint: kCandidates windows of the
// needed size, side by side from the eviction hand (each starting where an entry starts); the
// one whose entries cost least goes. An entry costs its blocks, kReferencedCost times that when
// read since the hand last passed it (CLOCK's second chance: passing clears the bit), nothing
// when expired. A put that would evict more than twice its blocks plus kEvictSlack gives up.
constexpr uint32_t kCandidates = 8;
constexpr uint64_t kReferencedCost = 1024;
constexpr uint64_t kEntryCost = 16;
constexpr uint64_t kEvictSlack = 256;        // blocks (128 KiB)
constexpr uint64_t kAllocScanWords = 1024;   // bitmap words (64 Ki blocks) a put looks through
constexpr uint32_t kNoOwner = 0;             // owners[i]: the slot's index + 1, 0 when free,
constexpr uint32_t kReserved = 0x80000000u;  // or this bit | the pid of a put copying its page

// Whether the process that reserved blocks (owner value o) may still write them.
bool WriterAlive(uint32_t o) {
  const auto pid = static_cast<pid_t>(o & ~kReserved);
  if (pid == getpid()) return true;
  return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}
constexpr uint64_t kSliceSlots = 512;  // index slots a purge or a key walk visits per hold

// pthread_mutex_clocklock (glibc 2.30+), looked up at run time so that the addon still loads on
// an older glibc, where pthread_mutex_timedlock (CLOCK_REALTIME: a wall-clock step lengthens or
// shortens one wait) stands in.
using ClockLock = int (*)(pthread_mutex_t*, clockid_t, const struct timespec*);
ClockLock FindClockLock() {
  return reinterpret_cast<ClockLock>(dlsym(RTLD_DEFAULT, "pthread_mutex_clocklock"));
}

int LockOnce(pthread_mutex_t* mutex, uint32_t waitUs) {
  static const ClockLock clockLock = FindClockLock();
  struct timespec deadline {};
  clock_gettime(clockLock != nullptr ? CLOCK_MONOTONIC : CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += static_cast<long>(waitUs % 1000000) * 1000;
  deadline.tv_sec += waitUs / 1000000 + deadline.tv_nsec / 1000000000;
  deadline.tv_nsec %= 1000000000;
  return clockLock != nullptr ? clockLock(mutex, CLOCK_MONOTONIC, &deadline)
                              : pthread_mutex_timedlock(mutex, &deadline);
}

// Whether the thread holding the mutex can run: not stopped (SIGSTOP: T, a debugger: t) nor
// gone. A holder merely waiting for a CPU on a busy machine is waited for; a stopped one is not.
bool HolderCanRun(const pthread_mutex_t* mutex) {
#if defined(__GLIBC__)
  // glibc: the futex word of a robust mutex holds its owner's thread id (FUTEX_TID_MASK)
  const int tid = mutex->__data.__lock & 0x3fffffff;
  if (tid == 0) return true;  // released meanwhile
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", tid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[512];
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  const char* paren = std::strrchr(text, ')');  // "pid (comm) S ...": comm may hold anything
  const char state = paren != nullptr && paren[1] == ' ' ? paren[2] : '?';
  return state == 'R' || state == 'S' || state == 'D';
#else
  (void)mutex;
  return false;
#endif
}

// Waits for the mutex in rounds of waitUs while its holder can run (at most kLockRounds), a
// single round when it is stopped.
constexpr int kLockRounds = 40;
int LockWithin(pthread_mutex_t* mutex, uint32_t waitUs) {
  int rc = pthread_mutex_trylock(mutex);
  for (int round = 0; rc == EBUSY || (rc == ETIMEDOUT && round < kLockRounds); ++round) {
    if (rc == ETIMEDOUT && !HolderCanRun(mutex)) break;
    rc = LockOnce(mutex, waitUs);
  }
  return rc == EBUSY ? ETIMEDOUT : rc;
}

// The segment's mutex, waited for lockWaitUs at a time: a holder that is stopped (SIGSTOP, a
// debugger) costs the caller one such wait and a miss or a page not stored, never a stalled
// event loop; one that runs (preempted on a busy machine) is waited for up to kLockRounds
// times. ok() is false when it was not taken (counted in lockTimeouts).
struct SharedCache::Locked {
  explicit Locked(SharedCache* c)
      : cache(c), l(c->layout_), h(reinterpret_cast<Header*>(c->base_)) {
    const int rc = LockWithin(&h->mutex, c->lockWaitUs_);
    if (rc == EOWNERDEAD) {
      // A writer died holding the mutex, maybe half-way through a slot or the bitmap.
      Repair();
      pthread_mutex_consistent(&h->mutex);
    }
    held = rc == 0 || rc == EOWNERDEAD;
    if (!held) {
      h->lockTimeouts.fetch_add(1);
      return;
    }
    for (const auto& run : c->abandoned_) Unreserve(run.first, run.second);
    c->abandoned_.clear();
  }
  ~Locked() {
    if (held) pthread_mutex_unlock(&h->mutex);
  }
  bool ok() const { return held; }

  Slot* slots() { return reinterpret_cast<Slot*>(cache->base_ + l.slotsAt); }
  uint64_t* bitmap() { return reinterpret_cast<uint64_t*>(cache->base_ + l.bitmapAt); }
  uint32_t* owners() { return reinterpret_cast<uint32_t*>(cache->base_ + l.ownersAt); }
  FillLock* locks() { return reinterpret_cast<FillLock*>(cache->base_ + l.locksAt); }
  uint8_t* block(uint64_t i) { return cache->base_ + l.blocksAt + i * kBlock; }
  uint64_t slotCount() const { return l.sets * kWays; }
  uint32_t OwnerOf(Slot* s) { return static_cast<uint32_t>(s - slots()) + 1; }

  // The blocks of a slot, when they lie inside the entry area (the segment may say anything).
  bool Extent(const Slot* s, uint64_t* b, uint64_t* n) const {
    *b = s->block.load(std::memory_order_relaxed);
    *n = s->nblocks.load(std::memory_order_relaxed);
    return *n > 0 && *b < l.blocks && *n <= l.blocks - *b;
  }

  // The entry that owns block i, or null (free, or an owner that does not say so itself).
  Slot* EntryAt(uint64_t i) {
    const uint32_t o = owners()[i];
    if (o == kNoOwner || o > slotCount()) return nullptr;
    Slot* s = &slots()[o - 1];
    uint64_t b, n;
    if (s->hash.load(std::memory_order_relaxed) == 0 || !Extent(s, &b, &n) || i < b || i >= b + n)
      return nullptr;
    return s;
  }

  void Mark(uint64_t from, uint64_t n, uint32_t owner) {
    uint64_t* bits = bitmap();
    uint32_t* own = owners();
    for (uint64_t i = from; i < from + n; ++i) {
      if (owner != kNoOwner)
        bits[i / 64] |= 1ull << (i % 64);
      else
        bits[i / 64] &= ~(1ull << (i % 64));
      own[i] = owner;
    }
  }

  void Repair() {
    std::memset(bitmap(), 0, (l.blocks + 63) / 64 * 8);
    uint64_t entries = 0, used = 0;
    uint32_t last = kNoOwner;
    bool lastAlive = false;
    for (uint64_t i = 0; i < l.blocks; ++i) {  // only the reservations of live writers stay
      const uint32_t o = owners()[i];
      if (o & kReserved) {
        if (o != last) lastAlive = WriterAlive(last = o);
        if (lastAlive) {
          Mark(i, 1, o);
          ++used;
          continue;
        }
      }
      owners()[i] = kNoOwner;
    }
    Slot* s = slots();
    for (uint64_t i = 0; i < slotCount(); ++i) {
      uint64_t seq = s[i].seq.load(std::memory_order_relaxed);
      if (seq & 1) {  // caught mid-write: emptied
        s[i].hash.store(0, std::memory_order_relaxed);
        s[i].seq.store(seq + 1, std::memory_order_release);
      }
      if (s[i].hash.load(std::memory_order_relaxed) == 0) continue;
      uint64_t b, n;
      bool free = Extent(&s[i], &b, &n);
      for (uint64_t j = b; free && j < b + n; ++j) free = owners()[j] == kNoOwner;
      if (!free) {  // outside the area, or over another entry's blocks
        Begin(&s[i]);
        s[i].hash.store(0, std::memory_order_relaxed);
        End(&s[i]);
        continue;
      }
      Mark(b, n, static_cast<uint32_t>(i + 1));
      ++entries;
      used += n;
    }
    h->entries.store(entries);
    h->usedBlocks.store(used);
    h->allocHint = 0;
    h->repairs.fetch_add(1);
  }

  static void Begin(Slot* s) {
    s->seq.store(s->seq.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
  }
  static void End(Slot* s) {
    s->seq.store(s->seq.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

  // Empties a slot, then frees the blocks it owns (a reader still copying them sees the new seq).
  void Remove(Slot* s) {
    uint64_t b, n;
    const bool placed = Extent(s, &b, &n);
    Begin(s);
    s->hash.store(0, std::memory_order_relaxed);
    End(s);
    h->entries.fetch_sub(1);
    if (!placed) return;
    const uint32_t me = OwnerOf(s);
    uint64_t freed = 0;
    for (uint64_t i = b; i < b + n; ++i) {
      if (owners()[i] != me) continue;
      Mark(i, 1, kNoOwner);
      ++freed;
    }
    h->usedBlocks.fetch_sub(freed);
  }

  // Frees the blocks of [b, b + n) this process reserved (a put that was not published).
  void Unreserve(uint64_t b, uint64_t n) {
    const uint32_t mine = kReserved | static_cast<uint32_t>(getpid());
    for (uint64_t i = b; i < b + n && i < l.blocks; ++i) {
      if (owners()[i] != mine) continue;
      Mark(i, 1, kNoOwner);
      h->usedBlocks.fetch_sub(1);
    }
  }

  // String `which` (0 key, 1 target, 2 primary, 3 tags) of an entry; false when its record
  // does not fit its blocks (the lengths are read from the segment).
  bool Text(Slot* s, int which, std::string* out) {
    uint64_t b, n;
    if (!Extent(s, &b, &n)) return false;
    const uint64_t size = s->size.load(std::memory_order_relaxed);
    if (size > n * kBlock || size < sizeof(RecordHead)) return false;
    RecordHead r;
    std::memcpy(&r, block(b), sizeof r);
    const uint64_t lens[4] = {r.keyLen, r.targetLen, r.primaryLen, r.tagsLen};
    if (sizeof r + lens[0] + lens[1] + lens[2] + lens[3] > size) return false;
    const char* p = reinterpret_cast<const char*>(block(b)) + sizeof r;
    for (int i = 0; i < which; ++i) p += lens[i];
    out->assign(p, lens[which]);
    return true;
  }

  Slot* Find(const std::string& key, uint64_t hash) {
    Slot* set = slots() + (hash % l.sets) * kWays;
    std::string stored;
    for (uint32_t w = 0; w < kWays; ++w) {
      if (set[w].hash.load(std::memory_order_relaxed) == hash && Text(&set[w], 0, &stored) &&
          stored == key)
        return &set[w];
    }
    return nullptr;
  }

  // The first run of n free blocks within kAllocScanWords bitmap words from the hint (not
  // marked yet); UINT64_MAX when there is none there.
  uint64_t Allocate(uint64_t n) {
    const uint64_t used = h->usedBlocks.load(std::memory_order_relaxed);
    if (used <= l.blocks && l.blocks - used < n) return UINT64_MAX;
    const uint64_t* bits = bitmap();
    const uint64_t words = (l.blocks + 63) / 64;
    const uint64_t first = (h->allocHint % l.blocks) / 64;
    const uint64_t scan = words < kAllocScanWords ? words : kAllocScanWords;
    uint64_t run = 0, from = 0;
    for (uint64_t k = 0; k < scan; ++k) {
      const uint64_t w = (first + k) % words;
      if (w == 0) run = 0;  // a run does not wrap
      uint64_t word = bits[w];
      if (w == words - 1 && l.blocks % 64 != 0) word |= ~0ull << (l.blocks % 64);  // past the end
      if (word == ~0ull) {
        run = 0;
      } else if (word == 0) {
        if (run == 0) from = w * 64;
        run += 64;
      } else {
        for (uint32_t bit = 0; bit < 64 && run < n; ++bit) {
          if (word & (1ull << bit)) {
            run = 0;
          } else if (run++ == 0) {
            from = w * 64 + bit;
          }
        }
      }
      if (run >= n) {
        h->allocHint = from + n == l.blocks ? 0 : from + n;
        return from;
      }
    }
    return UINT64_MAX;
  }

  // Frees the cheapest of kCandidates windows of n blocks (see kCandidates); its first block,
  // or UINT64_MAX when every candidate would evict too much.
  uint64_t EvictWindow(uint64_t n, int64_t now) {
    const uint64_t limit = 2 * n + kEvictSlack;
    uint64_t hand = h->evictHand % l.blocks;
    uint64_t best = UINT64_MAX, bestCost = UINT64_MAX;
    for (uint32_t c = 0; c < kCandidates; ++c) {
      uint64_t start = hand;
      if (Slot* s = EntryAt(start)) start = s->block.load(std::memory_order_relaxed);
      if (start + n > l.blocks) start = 0;
      uint64_t cost = 0, victims = 0, i = start;
      uint32_t last = kNoOwner;
      bool lastAlive = false;
      while (i < start + n && victims <= limit) {
        const uint32_t o = owners()[i];
        if (o & kReserved) {  // a put copying its page: never evicted; a dead one's: reclaimed
          if (o != last) lastAlive = WriterAlive(last = o);
          if (lastAlive) victims = limit + 1;
          ++i;
          continue;
        }
        Slot* s = EntryAt(i);
        if (s == nullptr) {
          ++i;
          continue;
        }
        uint64_t b, nb;
        Extent(s, &b, &nb);
        victims += nb;
        if (s->expires.load(std::memory_order_relaxed) > now)
          cost += s->ref.load(std::memory_order_relaxed) != 0 ? kReferencedCost : kEntryCost;
        s->ref.store(0, std::memory_order_relaxed);
        i = b + nb;
      }
      cost += victims;
      if (victims <= limit && cost < bestCost) {
        best = start;
        bestCost = cost;
      }
      hand = i >= l.blocks ? 0 : i;
    }
    h->evictHand = hand;
    if (best == UINT64_MAX) return UINT64_MAX;
    for (uint64_t i = best; i < best + n;) {
      if (Slot* s = EntryAt(i)) {
        uint64_t b, nb;
        Extent(s, &b, &nb);
        Remove(s);
        h->evictions.fetch_add(1);
        i = b + nb;
      } else {
        if (owners()[i] & kReserved) h->usedBlocks.fetch_sub(1);  // a dead writer's
        Mark(i, 1, kNoOwner);  // free, or a stray mark no entry stands behind
        ++i;
      }
    }
    return best;
  }

  bool Matches(Slot* s, Field field, const std::string& arg, bool prefix) {
    if (field == Field::kAll) return true;
    auto match = [&](const std::string& v) {
      return prefix ? v.compare(0, arg.size(), arg) == 0 : v == arg;
    };
    std::string text;
    if (!Text(s, field == Field::kTarget ? 1 : field == Field::kPrimary ? 2 : 3, &text))
      return false;
    if (field != Field::kTag) return match(text);
    size_t at = 0;
    while (at <= text.size()) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      if (end > at && match(text.substr(at, end - at))) return true;
      at = end + 1;
    }
    return false;
  }

  SharedCache* cache;
  const Layout& l;
  Header* h;
  bool held = false;
};

std::unique_ptr<SharedCache> SharedCache::Open(const std::string& path, uint64_t maxBytes,
                                               uint32_t maxEntries, bool persist,
                                               std::string* error) {
  if (maxBytes == 0 || maxEntries == 0 || maxEntries > (1u << 30)) {
    *error = "maxBytes must be above 0, maxEntries 1 to 2^30";
    return nullptr;
  }
  const Layout l = LayoutFor(maxBytes, maxEntries);
  for (int attempt = 0; attempt < 4; ++attempt) {
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
      if (errno != EEXIST) {
        *error = path + ": " + std::strerror(errno);
        return nullptr;
      }
      // O_NONBLOCK: a FIFO or device planted under the name must not block the open.
      fd = open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      if (fd < 0) {
        if (errno == ENOENT) continue;
        *error = path + ": " + (errno == ELOOP ? "a symbolic link, refused" : std::strerror(errno));
        return nullptr;
      }
    }
    const std::string why = WhyNotOurs(fd);
    if (!why.empty()) {
      close(fd);
      *error = path + ": refused, " + why;
      return nullptr;
    }
    // Every process holds a shared flock while it maps the segment; one that gets it exclusive
    // is alone, and only then may (re)initialize it in place.
    const bool alone = flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (!alone && flock(fd, LOCK_SH) != 0) {
      *error = path + ": flock: " + std::strerror(errno);
      close(fd);
      return nullptr;
    }
    if (!SameFile(fd, path)) {  // replaced meanwhile: open the new one
      close(fd);
      continue;
    }
    struct stat st {};
    fstat(fd, &st);
    bool valid = static_cast<uint64_t>(st.st_size) == l.total;
    uint8_t* base = nullptr;
    if (valid || alone) {
      if (alone && !valid) {
        if (ftruncate(fd, 0) != 0 || ftruncate(fd, static_cast<off_t>(l.total)) != 0) {
          *error = path + ": ftruncate: " + std::strerror(errno);
          close(fd);
          return nullptr;
        }
      }
      // Every page reserved now: a tmpfs too small fails here, never with SIGBUS on a write.
      const int rc = posix_fallocate(fd, 0, static_cast<off_t>(l.total));
      if (rc != 0) {
        *error = path + ": cannot reserve " + std::to_string(l.total) + " bytes (" +
                 std::strerror(rc) +
                 "): the file system (a tmpfs such as /dev/shm; Docker's is 64 MiB unless "
                 "--shm-size says more) has no room for maxBytes";
        if (alone) unlink(path.c_str());
        close(fd);
        return nullptr;
      }
      void* map = mmap(nullptr, l.total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (map == MAP_FAILED) {
        *error = path + ": mmap: " + std::strerror(errno);
        close(fd);
        return nullptr;
      }
      base = static_cast<uint8_t*>(map);
      valid = valid && HeaderMatches(reinterpret_cast<Header*>(base), l);
      if (alone && (!valid || !persist)) {
        if (!Initialize(base, l, error)) {
          munmap(base, l.total);
          close(fd);
          return nullptr;
        }
        valid = true;
      }
    }
    if (!valid) {
      // In use by others with another layout or size (an older version, other options): this
      // process starts a new segment under the name; they keep the old one until they exit.
      if (base != nullptr) munmap(base, l.total);
      if (SameFile(fd, path)) unlink(path.c_str());
      close(fd);
      continue;
    }
    if (alone) flock(fd, LOCK_SH);
    return std::unique_ptr<SharedCache>(new SharedCache(path, fd, base, l));
  }
  *error = path + ": replaced by other processes while being opened, again and again";
  return nullptr;
}

SharedCache::SharedCache(std::string path, int fd, uint8_t* base, const Layout& layout)
    : path_(std::move(path)), fd_(fd), base_(base), size_(layout.total), layout_(layout) {}

SharedCache::~SharedCache() {
  munmap(base_, size_);
  close(fd_);  // drops the shared flock
}

uint64_t SharedCache::Get(const std::string& key, int64_t nowMs, uint64_t knownStamp,
                          std::string* meta, std::string* body) {
  return Get(key, nowMs, knownStamp, meta, [body](size_t size) {
    body->resize(size);
    return reinterpret_cast<uint8_t*>(&(*body)[0]);
  });
}

uint64_t SharedCache::Get(const std::string& key, int64_t nowMs, uint64_t knownStamp,
                          std::string* meta, const BodyBuffer& bodyBuffer, uint32_t* slot) {
  const Layout& l = layout_;
  const uint64_t hash = HashKey(key);
  auto* set = reinterpret_cast<Slot*>(base_ + l.slotsAt) + (hash % l.sets) * kWays;
  std::string strings;
  for (int attempt = 0; attempt < 4; ++attempt) {
    bool raced = false;
    for (uint32_t w = 0; w < kWays; ++w) {
      Slot* s = &set[w];
      const uint64_t seq = s->seq.load(std::memory_order_acquire);
      if ((seq & 1) || s->hash.load(std::memory_order_relaxed) != hash) continue;
      const uint64_t stamp = s->stamp.load(std::memory_order_relaxed);
      const int64_t expires = s->expires.load(std::memory_order_relaxed);
      const uint64_t b = s->block.load(std::memory_order_relaxed);
      const uint64_t size = s->size.load(std::memory_order_relaxed);
      const uint64_t n = s->nblocks.load(std::memory_order_relaxed);
      if (b >= l.blocks || n > l.blocks - b || size > n * kBlock || size < sizeof(RecordHead))
        continue;
      if (stamp == knownStamp) {
        std::atomic_thread_fence(std::memory_order_acquire);
        if (s->seq.load(std::memory_order_relaxed) != seq) {
          raced = true;
          continue;
        }
        if (expires <= nowMs) return 0;
        if (s->ref.load(std::memory_order_relaxed) == 0) s->ref.store(1, std::memory_order_relaxed);
        if (slot != nullptr)
          *slot = static_cast<uint32_t>(s - reinterpret_cast<Slot*>(base_ + l.slotsAt));
        return stamp;
      }
      const uint8_t* at = base_ + l.blocksAt + b * kBlock;
      RecordHead head;
      std::memcpy(&head, at, sizeof head);
      const uint64_t stringsLen =
          static_cast<uint64_t>(head.keyLen) + head.targetLen + head.primaryLen + head.tagsLen;
      if (head.magic != kRecordMagic || head.bodyLen > size ||
          sizeof head + stringsLen + head.metaLen + head.bodyLen != size) {
        std::atomic_thread_fence(std::memory_order_acquire);
        if (s->seq.load(std::memory_order_relaxed) != seq) raced = true;
        continue;
      }
      at += sizeof head;
      strings.assign(reinterpret_cast<const char*>(at), stringsLen);
      at += stringsLen;
      meta->assign(reinterpret_cast<const char*>(at), head.metaLen);
      at += head.metaLen;
      // the one copy of the body: into the caller's room (a Node Buffer), checked there below
      uint8_t* const body = bodyBuffer(static_cast<size_t>(head.bodyLen));
      if (body == nullptr && head.bodyLen > 0) return 0;
      if (head.bodyLen > 0) std::memcpy(body, at, static_cast<size_t>(head.bodyLen));
      std::atomic_thread_fence(std::memory_order_acquire);
      if (s->seq.load(std::memory_order_relaxed) != seq) {  // replaced while copied
        raced = true;
        continue;
      }
      // The copy is stable; the CRC catches what the sequence cannot (bytes changed behind it)
      uint32_t crc = Crc32(0, reinterpret_cast<const uint8_t*>(&head) + 8, sizeof head - 8);
      crc = Crc32(crc, strings.data(), strings.size());
      crc = Crc32(crc, meta->data(), meta->size());
      crc = Crc32(crc, body, static_cast<size_t>(head.bodyLen));
      if (crc != head.crc || strings.compare(0, head.keyLen, key) != 0 || head.keyLen != key.size())
        continue;
      if (expires <= nowMs) return 0;
      if (s->ref.load(std::memory_order_relaxed) == 0) s->ref.store(1, std::memory_order_relaxed);
      if (slot != nullptr)
        *slot = static_cast<uint32_t>(s - reinterpret_cast<Slot*>(base_ + l.slotsAt));
      return stamp;
    }
    if (!raced) return 0;
  }
  return 0;  // rewritten again and again while read: a miss
}

bool SharedCache::Put(const std::string& key, const Record& r) {
  const uint64_t stringsLen = key.size() + r.target.size() + r.primary.size() + r.tags.size();
  const uint64_t size = sizeof(RecordHead) + stringsLen + r.meta.size() + r.bodySize;
  const uint64_t n = (size + kBlock - 1) / kBlock;
  if (n > layout_.blocks || size > UINT32_MAX || key.size() > UINT32_MAX) return false;
  const uint64_t hash = HashKey(key);
  const uint32_t mine = kReserved | static_cast<uint32_t>(getpid());
  uint64_t b;
  {  // under the lock: the blocks, marked as this writer's reservation
    Locked lock(this);
    if (!lock.ok()) return false;
    struct timespec ts {};
    clock_gettime(CLOCK_REALTIME, &ts);
    const int64_t now = static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
    b = lock.Allocate(n);
    if (b == UINT64_MAX) b = lock.EvictWindow(n, now);
    if (b == UINT64_MAX) {
      lock.h->putsGivenUp.fetch_add(1);
      return false;
    }
    lock.Mark(b, n, mine);
    lock.h->usedBlocks.fetch_add(n);
  }
  // outside it: the copy and its checksum (no reader looks at reserved blocks, no one evicts
  // them while this process lives)
  uint8_t* const first = base_ + layout_.blocksAt + b * kBlock;
  RecordHead head{};
  head.magic = kRecordMagic;
  head.keyLen = static_cast<uint32_t>(key.size());
  head.targetLen = static_cast<uint32_t>(r.target.size());
  head.primaryLen = static_cast<uint32_t>(r.primary.size());
  head.tagsLen = static_cast<uint32_t>(r.tags.size());
  head.metaLen = static_cast<uint32_t>(r.meta.size());
  head.bodyLen = r.bodySize;
  uint8_t* at = first + sizeof head;
  uint32_t crc = Crc32(0, reinterpret_cast<const uint8_t*>(&head) + 8, sizeof head - 8);
  for (const std::string* part : {&key, &r.target, &r.primary, &r.tags, &r.meta}) {
    std::memcpy(at, part->data(), part->size());
    crc = Crc32(crc, part->data(), part->size());
    at += part->size();
  }
  if (r.bodySize) std::memcpy(at, r.body, r.bodySize);
  head.crc = Crc32(crc, r.body, r.bodySize);
  std::memcpy(first, &head, sizeof head);
  // under the lock again: published (unless the reservation was taken back meanwhile)
  Locked lock(this);
  if (!lock.ok()) {
    abandoned_.emplace_back(b, n);  // freed by this process's next hold
    return false;
  }
  Header* h = lock.h;
  bool reserved = true;
  for (uint64_t i = b; i < b + n && reserved; ++i) reserved = lock.owners()[i] == mine;
  if (!reserved) {
    lock.Unreserve(b, n);
    return false;
  }
  if (Slot* old = lock.Find(key, hash)) lock.Remove(old);
  // The way: an empty one, else the first not referenced lately, else the first.
  Slot* set = lock.slots() + (hash % layout_.sets) * kWays;
  Slot* way = nullptr;
  for (uint32_t w = 0; w < kWays && way == nullptr; ++w)
    if (set[w].hash.load(std::memory_order_relaxed) == 0) way = &set[w];
  for (uint32_t w = 0; w < kWays && way == nullptr; ++w)
    if (set[w].ref.load(std::memory_order_relaxed) == 0) way = &set[w];
  if (way == nullptr) way = &set[0];
  if (way->hash.load(std::memory_order_relaxed) != 0) {
    lock.Remove(way);
    h->evictions.fetch_add(1);
  }
  Locked::Begin(way);
  way->hash.store(hash, std::memory_order_relaxed);
  way->stamp.store(h->nextStamp.fetch_add(1), std::memory_order_relaxed);
  way->expires.store(r.expiresAtMs, std::memory_order_relaxed);
  way->block.store(static_cast<uint32_t>(b), std::memory_order_relaxed);
  way->nblocks.store(static_cast<uint32_t>(n), std::memory_order_relaxed);
  way->size.store(static_cast<uint32_t>(size), std::memory_order_relaxed);
  way->ref.store(0, std::memory_order_relaxed);
  Locked::End(way);
  lock.Mark(b, n, lock.OwnerOf(way));
  h->entries.fetch_add(1);
  return true;
}

bool SharedCache::Delete(const std::string& key) {
  Locked lock(this);
  if (!lock.ok()) return false;
  Slot* s = lock.Find(key, HashKey(key));
  if (s == nullptr) return false;
  lock.Remove(s);
  return true;
}

bool SharedCache::WalkSlices(const std::function<void(Locked&, uint64_t)>& visit) {
  const uint64_t count = layout_.sets * kWays;
  for (uint64_t from = 0; from < count; from += kSliceSlots) {
    Locked lock(this);  // released every kSliceSlots slots: bounded work per hold
    if (!lock.ok()) return false;
    Slot* s = lock.slots();
    const uint64_t to = count - from < kSliceSlots ? count : from + kSliceSlots;
    for (uint64_t i = from; i < to; ++i)
      if (s[i].hash.load(std::memory_order_relaxed) != 0) visit(lock, i);
  }
  return true;
}

uint64_t SharedCache::Purge(Field field, const std::string& arg, bool prefix, bool* complete) {
  uint64_t n = 0;
  const bool done = WalkSlices([&](Locked& lock, uint64_t i) {
    Slot* s = &lock.slots()[i];
    if (!lock.Matches(s, field, arg, prefix)) return;
    lock.Remove(s);
    ++n;
  });
  if (complete != nullptr) *complete = done;
  return n;
}

std::vector<std::string> SharedCache::Keys(Field field, const std::string& arg, bool prefix,
                                           bool* complete) {
  std::vector<std::string> keys;
  const bool done = WalkSlices([&](Locked& lock, uint64_t i) {
    Slot* s = &lock.slots()[i];
    std::string key;
    if (lock.Matches(s, field, arg, prefix) && lock.Text(s, 0, &key)) keys.push_back(key);
  });
  if (complete != nullptr) *complete = done;
  return keys;
}

size_t SharedCache::MutexOffset() { return offsetof(Header, mutex); }

bool SharedCache::WithMutexHeld(const std::function<void()>& fn) {
  Locked lock(this);
  if (!lock.ok()) return false;
  fn();
  return true;
}

bool SharedCache::TryLock(const std::string& key, int64_t nowMs, int64_t ms) {
  const uint64_t hash = HashKey(key);
  const int32_t me = static_cast<int32_t>(getpid());
  Locked lock(this);
  if (!lock.ok()) return false;  // as if held: the caller waits for the page, then renders
  FillLock* locks = lock.locks();
  auto gone = [&](const FillLock& l) {
    // a pid below 1 names no one process (kill() would ask a whole process group): gone
    return l.pid <= 0 || l.deadline <= nowMs || (kill(l.pid, 0) != 0 && errno == ESRCH);
  };
  FillLock* free = nullptr;
  for (uint32_t i = 0; i < kFillLocks; ++i) {
    FillLock& l = locks[i];
    if (l.pid != 0 && l.hash == hash) {
      if (l.pid != me && !gone(l)) return false;
      free = &l;
      break;
    }
    if (free == nullptr && l.pid == 0) free = &l;
  }
  if (free == nullptr) {
    for (uint32_t i = 0; i < kFillLocks && free == nullptr; ++i)
      if (gone(locks[i])) free = &locks[i];
  }
  if (free == nullptr) return true;  // no room to record it: render, as without a lock
  free->hash = hash;
  free->deadline = nowMs + ms;
  free->pid = me;
  return true;
}

void SharedCache::Unlock(const std::string& key) {
  const uint64_t hash = HashKey(key);
  const int32_t me = static_cast<int32_t>(getpid());
  Locked lock(this);
  if (!lock.ok()) return;  // the lock ends at its deadline
  FillLock* locks = lock.locks();
  for (uint32_t i = 0; i < kFillLocks; ++i) {
    if (locks[i].pid == me && locks[i].hash == hash) locks[i].pid = 0;
  }
}

SharedCache::StampTable SharedCache::Stamps() const {
  // the words a reader without a call looks at: 64-bit, naturally aligned, lock-free
  static_assert(alignof(Slot) == 8 && std::atomic<uint64_t>::is_always_lock_free, "slot words");
  StampTable t{};
  t.data = base_ + layout_.slotsAt;
  t.count = layout_.sets * kWays;
  t.bytes = sizeof(Slot);
  t.seqAt = offsetof(Slot, seq);
  t.hashAt = offsetof(Slot, hash);
  t.stampAt = offsetof(Slot, stamp);
  t.refAt = offsetof(Slot, ref);
  return t;
}

SharedCacheStats SharedCache::Stats() {
  const auto* h = reinterpret_cast<const Header*>(base_);
  SharedCacheStats s;
  s.entries = h->entries.load(std::memory_order_relaxed);
  s.bytes = h->usedBlocks.load(std::memory_order_relaxed) * kBlock;
  s.maxBytes = layout_.blocks * kBlock;
  s.evictions = h->evictions.load(std::memory_order_relaxed);
  s.repairs = h->repairs.load(std::memory_order_relaxed);
  s.putsGivenUp = h->putsGivenUp.load(std::memory_order_relaxed);
  s.lockTimeouts = h->lockTimeouts.load(std::memory_order_relaxed);
  return s;
}

#else  // Not Linux: no shared segment (Open fails with a clear error).

std::unique_ptr<SharedCache> SharedCache::Open(const std::string&, uint64_t, uint32_t, bool,
                                               std::string* error) {
  *error = "a shared-memory cache needs Linux";
  return nullptr;
}
SharedCache::~SharedCache() = default;
uint64_t SharedCache::Get(const std::string&, int64_t, uint64_t, std::string*, std::string*) {
  return 0;
}
uint64_t SharedCache::Get(const std::string&, int64_t, uint64_t, std::string*, const BodyBuffer&,
                          uint32_t*) {
  return 0;
}
SharedCache::StampTable SharedCache::Stamps() const { return {}; }
bool SharedCache::Put(const std::string&, const Record&) { return false; }
bool SharedCache::Delete(const std::string&) { return false; }
uint64_t SharedCache::Purge(Field, const std::string&, bool, bool*) { return 0; }
std::vector<std::string> SharedCache::Keys(Field, const std::string&, bool, bool*) { return {}; }
bool SharedCache::TryLock(const std::string&, int64_t, int64_t) { return true; }
bool SharedCache::WithMutexHeld(const std::function<void()>&) { return false; }
size_t SharedCache::MutexOffset() { return 0; }
void SharedCache::Unlock(const std::string&) {}
SharedCacheStats SharedCache::Stats() { return {}; }

#endif

}  // namespace ssr_native
