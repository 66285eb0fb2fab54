// SharedCache (see the header for the design). Layout of the segment, every part 64-byte
// aligned: Header | Slot[sets * kWays] | free-block bitmap | FillLock[kFillLocks] | blocks.
#include "ssr_native/shared_cache.h"

#include <atomic>
#include <cstring>

#include "own_file.h"
#include "ssr_native/crc32.h"

#if defined(__linux__)
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
constexpr uint32_t kVersion = 1;
constexpr uint32_t kRecordMagic = 0x52435353u;

struct Header {
  uint64_t magic;
  uint32_t version;
  uint32_t headerSize;
  uint64_t totalSize;
  uint64_t blocks;
  uint64_t sets;
  uint64_t slotsAt, bitmapAt, locksAt, blocksAt;
  pthread_mutex_t mutex;
  std::atomic<uint64_t> nextStamp;
  std::atomic<uint64_t> entries;
  std::atomic<uint64_t> usedBlocks;
  std::atomic<uint64_t> evictions;
  std::atomic<uint64_t> repairs;
  uint64_t clockHand;
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

struct Layout {
  uint64_t sets, blocks, slotsAt, bitmapAt, locksAt, blocksAt, total;
};

Layout LayoutFor(uint64_t maxBytes, uint32_t maxEntries) {
  Layout l{};
  l.sets = (static_cast<uint64_t>(maxEntries) + SharedCache::kWays - 1) / SharedCache::kWays;
  if (l.sets == 0) l.sets = 1;
  l.blocks = (maxBytes + SharedCache::kBlock - 1) / SharedCache::kBlock;
  if (l.blocks == 0) l.blocks = 1;
  l.slotsAt = Align(sizeof(Header), 64);
  l.bitmapAt = Align(l.slotsAt + l.sets * SharedCache::kWays * sizeof(Slot), 64);
  l.locksAt = Align(l.bitmapAt + (l.blocks + 63) / 64 * 8, 64);
  l.blocksAt = Align(l.locksAt + SharedCache::kFillLocks * sizeof(FillLock), 4096);
  l.total = l.blocksAt + l.blocks * SharedCache::kBlock;
  return l;
}

bool HeaderMatches(const Header* h, const Layout& l) {
  return h->magic == kMagic && h->version == kVersion && h->headerSize == sizeof(Header) &&
         h->totalSize == l.total && h->blocks == l.blocks && h->sets == l.sets &&
         h->slotsAt == l.slotsAt && h->bitmapAt == l.bitmapAt && h->locksAt == l.locksAt &&
         h->blocksAt == l.blocksAt;
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

struct SharedCache::Locked {
  explicit Locked(SharedCache* c) : cache(c), h(reinterpret_cast<Header*>(c->base_)) {
    const int rc = pthread_mutex_lock(&h->mutex);
    if (rc == EOWNERDEAD) {
      // A writer died holding the mutex, maybe half-way through a slot or the bitmap.
      Repair();
      pthread_mutex_consistent(&h->mutex);
    }
  }
  ~Locked() { pthread_mutex_unlock(&h->mutex); }

  Slot* slots() { return reinterpret_cast<Slot*>(cache->base_ + h->slotsAt); }
  uint64_t* bitmap() { return reinterpret_cast<uint64_t*>(cache->base_ + h->bitmapAt); }
  FillLock* locks() { return reinterpret_cast<FillLock*>(cache->base_ + h->locksAt); }
  uint8_t* block(uint64_t i) { return cache->base_ + h->blocksAt + i * kBlock; }
  uint64_t slotCount() const { return h->sets * kWays; }

  void Mark(uint64_t from, uint64_t n, bool used) {
    uint64_t* bits = bitmap();
    for (uint64_t i = from; i < from + n; ++i) {
      if (used)
        bits[i / 64] |= 1ull << (i % 64);
      else
        bits[i / 64] &= ~(1ull << (i % 64));
    }
  }

  void Repair() {
    std::memset(bitmap(), 0, (h->blocks + 63) / 64 * 8);
    uint64_t entries = 0, used = 0;
    Slot* s = slots();
    for (uint64_t i = 0; i < slotCount(); ++i) {
      uint64_t seq = s[i].seq.load(std::memory_order_relaxed);
      if (seq & 1) {  // caught mid-write: emptied
        s[i].hash.store(0, std::memory_order_relaxed);
        s[i].seq.store(seq + 1, std::memory_order_release);
      }
      if (s[i].hash.load(std::memory_order_relaxed) == 0) continue;
      const uint64_t b = s[i].block.load(std::memory_order_relaxed);
      const uint64_t n = s[i].nblocks.load(std::memory_order_relaxed);
      if (b + n > h->blocks) {
        Begin(&s[i]);
        s[i].hash.store(0, std::memory_order_relaxed);
        End(&s[i]);
        continue;
      }
      Mark(b, n, true);
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

  // Empties a slot, then frees its blocks (a reader still copying them sees the new seq).
  void Remove(Slot* s) {
    const uint64_t b = s->block.load(std::memory_order_relaxed);
    const uint64_t n = s->nblocks.load(std::memory_order_relaxed);
    Begin(s);
    s->hash.store(0, std::memory_order_relaxed);
    End(s);
    Mark(b, n, false);
    h->entries.fetch_sub(1);
    h->usedBlocks.fetch_sub(n);
  }

  const RecordHead* Head(Slot* s) {
    return reinterpret_cast<const RecordHead*>(block(s->block.load(std::memory_order_relaxed)));
  }
  std::string Text(Slot* s, int which) {  // 0 key, 1 target, 2 primary, 3 tags
    const RecordHead* r = Head(s);
    const char* p = reinterpret_cast<const char*>(r + 1);
    const uint32_t lens[4] = {r->keyLen, r->targetLen, r->primaryLen, r->tagsLen};
    for (int i = 0; i < which; ++i) p += lens[i];
    return std::string(p, lens[which]);
  }

  Slot* Find(const std::string& key, uint64_t hash) {
    Slot* set = slots() + (hash % h->sets) * kWays;
    for (uint32_t w = 0; w < kWays; ++w) {
      if (set[w].hash.load(std::memory_order_relaxed) == hash && Text(&set[w], 0) == key)
        return &set[w];
    }
    return nullptr;
  }

  // First fit of n free blocks from the hint; UINT64_MAX when there is no such run.
  uint64_t Allocate(uint64_t n) {
    const uint64_t* bits = bitmap();
    const uint64_t total = h->blocks;
    for (int round = 0; round < 2; ++round) {
      uint64_t i = round == 0 ? h->allocHint : 0;
      const uint64_t end = round == 0 ? total : h->allocHint;
      uint64_t run = 0;
      while (i < end) {
        if (run == 0 && i % 64 == 0 && bits[i / 64] == ~0ull) {
          i += 64;
          continue;
        }
        if (bits[i / 64] & (1ull << (i % 64))) {
          run = 0;
        } else if (++run == n) {
          const uint64_t from = i + 1 - n;
          Mark(from, n, true);
          h->allocHint = i + 1 == total ? 0 : i + 1;
          return from;
        }
        ++i;
      }
    }
    return UINT64_MAX;
  }

  // CLOCK: the first slot past the hand that is expired or not referenced since the last turn.
  bool EvictOne(int64_t now) {
    Slot* s = slots();
    const uint64_t count = slotCount();
    for (uint64_t step = 0; step < 2 * count + 1; ++step) {
      Slot* slot = &s[h->clockHand % count];
      h->clockHand = (h->clockHand + 1) % count;
      if (slot->hash.load(std::memory_order_relaxed) == 0) continue;
      if (slot->expires.load(std::memory_order_relaxed) > now &&
          slot->ref.load(std::memory_order_relaxed) != 0) {
        slot->ref.store(0, std::memory_order_relaxed);
        continue;
      }
      Remove(slot);
      h->evictions.fetch_add(1);
      return true;
    }
    return false;
  }

  bool Matches(Slot* s, Field field, const std::string& arg, bool prefix) {
    if (field == Field::kAll) return true;
    auto match = [&](const std::string& v) {
      return prefix ? v.compare(0, arg.size(), arg) == 0 : v == arg;
    };
    if (field == Field::kTarget) return match(Text(s, 1));
    if (field == Field::kPrimary) return match(Text(s, 2));
    const std::string tags = Text(s, 3);
    size_t at = 0;
    while (at <= tags.size()) {
      size_t end = tags.find('\n', at);
      if (end == std::string::npos) end = tags.size();
      if (end > at && match(tags.substr(at, end - at))) return true;
      at = end + 1;
    }
    return false;
  }

  SharedCache* cache;
  Header* h;
};

std::unique_ptr<SharedCache> SharedCache::Open(const std::string& path, uint64_t maxBytes,
                                               uint32_t maxEntries, bool persist,
                                               std::string* error) {
  if (maxBytes == 0 || maxEntries == 0) {
    *error = "maxBytes and maxEntries must be above 0";
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
    return std::unique_ptr<SharedCache>(new SharedCache(path, fd, base, l.total));
  }
  *error = path + ": replaced by other processes while being opened, again and again";
  return nullptr;
}

SharedCache::SharedCache(std::string path, int fd, uint8_t* base, size_t size)
    : path_(std::move(path)), fd_(fd), base_(base), size_(size) {}

SharedCache::~SharedCache() {
  munmap(base_, size_);
  close(fd_);  // drops the shared flock
}

uint64_t SharedCache::Get(const std::string& key, int64_t nowMs, uint64_t knownStamp,
                          std::string* meta, std::string* body) {
  const auto* h = reinterpret_cast<const Header*>(base_);
  const uint64_t hash = HashKey(key);
  auto* set = reinterpret_cast<Slot*>(base_ + h->slotsAt) + (hash % h->sets) * kWays;
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
      if (b + n > h->blocks || size > n * kBlock || size < sizeof(RecordHead)) continue;
      if (stamp == knownStamp) {
        std::atomic_thread_fence(std::memory_order_acquire);
        if (s->seq.load(std::memory_order_relaxed) != seq) {
          raced = true;
          continue;
        }
        if (expires <= nowMs) return 0;
        if (s->ref.load(std::memory_order_relaxed) == 0) s->ref.store(1, std::memory_order_relaxed);
        return stamp;
      }
      const uint8_t* at = base_ + h->blocksAt + b * kBlock;
      RecordHead head;
      std::memcpy(&head, at, sizeof head);
      const uint64_t stringsLen =
          static_cast<uint64_t>(head.keyLen) + head.targetLen + head.primaryLen + head.tagsLen;
      if (head.magic != kRecordMagic ||
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
      body->assign(reinterpret_cast<const char*>(at), head.bodyLen);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (s->seq.load(std::memory_order_relaxed) != seq) {  // replaced while copied
        raced = true;
        continue;
      }
      // The copy is stable; the CRC catches what the sequence cannot (bytes changed behind it)
      uint32_t crc = Crc32(0, reinterpret_cast<const uint8_t*>(&head) + 8, sizeof head - 8);
      crc = Crc32(crc, strings.data(), strings.size());
      crc = Crc32(crc, meta->data(), meta->size());
      crc = Crc32(crc, body->data(), body->size());
      if (crc != head.crc || strings.compare(0, head.keyLen, key) != 0 || head.keyLen != key.size())
        continue;
      if (expires <= nowMs) return 0;
      if (s->ref.load(std::memory_order_relaxed) == 0) s->ref.store(1, std::memory_order_relaxed);
      return stamp;
    }
    if (!raced) return 0;
  }
  return 0;  // rewritten again and again while read: a miss
}

bool SharedCache::Put(const std::string& key, const Record& r) {
  const uint64_t stringsLen = key.size() + r.target.size() + r.primary.size() + r.tags.size();
  const uint64_t size = sizeof(RecordHead) + stringsLen + r.meta.size() + r.bodySize;
  const auto* hdr = reinterpret_cast<const Header*>(base_);
  const uint64_t n = (size + kBlock - 1) / kBlock;
  if (n > hdr->blocks || size > UINT32_MAX || key.size() > UINT32_MAX) return false;
  Locked lock(this);
  Header* h = lock.h;
  const uint64_t hash = HashKey(key);
  if (Slot* old = lock.Find(key, hash)) lock.Remove(old);
  uint64_t b;
  struct timespec ts {};
  clock_gettime(CLOCK_REALTIME, &ts);
  const int64_t now = static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
  while ((b = lock.Allocate(n)) == UINT64_MAX) {
    if (!lock.EvictOne(now)) return false;
  }
  RecordHead head{};
  head.magic = kRecordMagic;
  head.keyLen = static_cast<uint32_t>(key.size());
  head.targetLen = static_cast<uint32_t>(r.target.size());
  head.primaryLen = static_cast<uint32_t>(r.primary.size());
  head.tagsLen = static_cast<uint32_t>(r.tags.size());
  head.metaLen = static_cast<uint32_t>(r.meta.size());
  head.bodyLen = r.bodySize;
  uint8_t* at = lock.block(b) + sizeof head;
  uint32_t crc = Crc32(0, reinterpret_cast<const uint8_t*>(&head) + 8, sizeof head - 8);
  for (const std::string* part : {&key, &r.target, &r.primary, &r.tags, &r.meta}) {
    std::memcpy(at, part->data(), part->size());
    crc = Crc32(crc, part->data(), part->size());
    at += part->size();
  }
  if (r.bodySize) std::memcpy(at, r.body, r.bodySize);
  head.crc = Crc32(crc, r.body, r.bodySize);
  std::memcpy(lock.block(b), &head, sizeof head);
  // The way: an empty one, else the first not referenced lately, else the first.
  Slot* set = lock.slots() + (hash % h->sets) * kWays;
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
  h->entries.fetch_add(1);
  h->usedBlocks.fetch_add(n);
  return true;
}

bool SharedCache::Delete(const std::string& key) {
  Locked lock(this);
  Slot* s = lock.Find(key, HashKey(key));
  if (s == nullptr) return false;
  lock.Remove(s);
  return true;
}

uint64_t SharedCache::Purge(Field field, const std::string& arg, bool prefix) {
  Locked lock(this);
  uint64_t n = 0;
  Slot* s = lock.slots();
  for (uint64_t i = 0; i < lock.slotCount(); ++i) {
    if (s[i].hash.load(std::memory_order_relaxed) == 0) continue;
    if (!lock.Matches(&s[i], field, arg, prefix)) continue;
    lock.Remove(&s[i]);
    ++n;
  }
  return n;
}

std::vector<std::string> SharedCache::Keys(Field field, const std::string& arg, bool prefix) {
  Locked lock(this);
  std::vector<std::string> keys;
  Slot* s = lock.slots();
  for (uint64_t i = 0; i < lock.slotCount(); ++i) {
    if (s[i].hash.load(std::memory_order_relaxed) == 0) continue;
    if (lock.Matches(&s[i], field, arg, prefix)) keys.push_back(lock.Text(&s[i], 0));
  }
  return keys;
}

bool SharedCache::TryLock(const std::string& key, int64_t nowMs, int64_t ms) {
  const uint64_t hash = HashKey(key);
  const int32_t me = static_cast<int32_t>(getpid());
  Locked lock(this);
  FillLock* locks = lock.locks();
  auto gone = [&](const FillLock& l) {
    return l.pid == 0 || l.deadline <= nowMs || (kill(l.pid, 0) != 0 && errno == ESRCH);
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
  FillLock* locks = lock.locks();
  for (uint32_t i = 0; i < kFillLocks; ++i) {
    if (locks[i].pid == me && locks[i].hash == hash) locks[i].pid = 0;
  }
}

SharedCacheStats SharedCache::Stats() {
  const auto* h = reinterpret_cast<const Header*>(base_);
  SharedCacheStats s;
  s.entries = h->entries.load(std::memory_order_relaxed);
  s.bytes = h->usedBlocks.load(std::memory_order_relaxed) * kBlock;
  s.maxBytes = h->blocks * kBlock;
  s.evictions = h->evictions.load(std::memory_order_relaxed);
  s.repairs = h->repairs.load(std::memory_order_relaxed);
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
bool SharedCache::Put(const std::string&, const Record&) { return false; }
bool SharedCache::Delete(const std::string&) { return false; }
uint64_t SharedCache::Purge(Field, const std::string&, bool) { return 0; }
std::vector<std::string> SharedCache::Keys(Field, const std::string&, bool) { return {}; }
bool SharedCache::TryLock(const std::string&, int64_t, int64_t) { return true; }
void SharedCache::Unlock(const std::string&) {}
SharedCacheStats SharedCache::Stats() { return {}; }

#endif

}  // namespace ssr_native
