// SharedCache: one segment for several processes; forked children killed mid-write, holding the
// writer mutex or a fill lock leave it usable; foreign / open / garbage segments are refused or
// rebuilt; a seeded model test against std::map.
#include "ssr_native/shared_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using ssr_native::SharedCache;

std::string TempPath(const char* name) {
  return "/dev/shm/ssr-native-test-" + std::string(name) + "-" + std::to_string(getpid());
}

struct Segment {
  explicit Segment(const char* name) : path(TempPath(name)) { unlink(path.c_str()); }
  ~Segment() { unlink(path.c_str()); }
  std::unique_ptr<SharedCache> Open(uint64_t bytes = 1 << 20, uint32_t entries = 256) {
    std::string error;
    auto cache = SharedCache::Open(path, bytes, entries, true, &error);
    EXPECT_TRUE(cache) << error;
    return cache;
  }
  std::string path;
};

constexpr int64_t kFar = INT64_MAX / 2;

bool Put(SharedCache* c, const std::string& key, const std::string& body,
         const std::string& tags = "", const std::string& target = "/t") {
  SharedCache::Record r;
  r.target = target;
  r.primary = key;
  r.tags = tags;
  r.meta = "{\"k\":\"" + key + "\"}";
  r.body = reinterpret_cast<const uint8_t*>(body.data());
  r.bodySize = body.size();
  r.expiresAtMs = kFar;
  return c->Put(key, r);
}

// A body whose every byte derives from the key and a version: a torn or foreign body shows.
std::string BodyOf(const std::string& key, uint32_t version, size_t size) {
  std::string body(size, '\0');
  uint64_t x = SharedCache::HashKey(key) ^ version;
  for (size_t i = 0; i < size; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    body[i] = static_cast<char>(x >> 56);
  }
  return body.substr(0, size - 8) + std::string(reinterpret_cast<char*>(&version), 4) + "tail";
}

bool Consistent(const std::string& key, const std::string& body) {
  if (body.size() < 8) return false;
  uint32_t version;
  std::memcpy(&version, body.data() + body.size() - 8, 4);
  return body == BodyOf(key, version, body.size());
}

TEST(SharedCache, PutGetDeleteAcrossTwoOpenings) {
  Segment seg("basic");
  auto a = seg.Open();
  auto b = seg.Open();
  ASSERT_TRUE(Put(a.get(), "k1", "hello", "red\nblue"));
  std::string meta, body;
  const uint64_t stamp = b->Get("k1", 0, 0, &meta, &body);
  ASSERT_NE(stamp, 0u);
  EXPECT_EQ(body, "hello");
  EXPECT_EQ(meta, "{\"k\":\"k1\"}");
  EXPECT_EQ(b->Get("k1", 0, stamp, &meta, &body), stamp);  // known: nothing copied
  EXPECT_EQ(b->Get("k1", kFar + 1, 0, &meta, &body), 0u);  // expired
  EXPECT_EQ(b->Purge(SharedCache::Field::kTag, "blue", false), 1u);
  EXPECT_EQ(a->Get("k1", 0, 0, &meta, &body), 0u);
  ASSERT_TRUE(Put(a.get(), "k2", "x", "", "/a/b"));
  EXPECT_EQ(a->Keys(SharedCache::Field::kTarget, "/a", true).size(), 1u);
  EXPECT_TRUE(b->Delete("k2"));
  EXPECT_EQ(a->Stats().entries, 0u);
}

// The stamp table (Stamps()): the words a reader checks without a call say, at the slot Get
// named, which write is stored; a rewrite changes the stamp, a delete empties the slot.
TEST(SharedCache, StampTableNamesTheStoredWrite) {
  Segment seg("stamps");
  auto a = seg.Open();
  auto b = seg.Open();
  const SharedCache::StampTable t = b->Stamps();
  ASSERT_NE(t.data, nullptr);
  ASSERT_EQ(t.count, 256u);
  auto word = [&](uint32_t slot, uint32_t at) {
    uint64_t w;
    std::memcpy(&w, t.data + static_cast<size_t>(slot) * t.bytes + at, 8);
    return w;
  };
  std::mt19937 rng(0x57a4b);
  for (int round = 0; round < 200; ++round) {
    const std::string key = "k" + std::to_string(rng() % 16);
    ASSERT_TRUE(Put(a.get(), key, BodyOf(key, round, 100 + rng() % 2000)));
    std::string meta;
    std::string body;
    uint32_t slot = UINT32_MAX;
    const uint64_t stamp = b->Get(
        key, 0, 0, &meta,
        [&](size_t size) {
          body.resize(size);
          return reinterpret_cast<uint8_t*>(&body[0]);
        },
        &slot);
    ASSERT_NE(stamp, 0u) << "round " << round;
    ASSERT_LT(slot, t.count);
    EXPECT_EQ(word(slot, t.stampAt), stamp) << "round " << round;
    EXPECT_EQ(word(slot, t.hashAt), SharedCache::HashKey(key));
    EXPECT_EQ(word(slot, t.seqAt) % 2, 0u);
    uint32_t known = UINT32_MAX;
    EXPECT_EQ(b->Get(
                  key, 0, stamp, &meta, [](size_t) { return nullptr; }, &known),
              stamp);
    EXPECT_EQ(known, slot);
    t.data[static_cast<size_t>(slot) * t.bytes + t.refAt] = 0;
    EXPECT_EQ(b->Get(key, 0, stamp, &meta, &body), stamp);
    EXPECT_EQ(t.data[static_cast<size_t>(slot) * t.bytes + t.refAt], 1)
        << "a hit marks the slot used";
    if (rng() % 4 == 0) {
      ASSERT_TRUE(Put(a.get(), key, "again"));
      EXPECT_FALSE(word(slot, t.hashAt) != 0 && word(slot, t.stampAt) == stamp) << "rewritten";
    } else if (rng() % 4 == 0) {
      ASSERT_TRUE(a->Delete(key));
      EXPECT_EQ(word(slot, t.hashAt), 0u) << "an emptied slot has hash 0";
    }
  }
}

TEST(SharedCache, BoundedByMaxBytesEvictingOldEntries) {
  Segment seg("bound");
  auto c = seg.Open(64 * 1024, 1024);
  for (int i = 0; i < 200; ++i)
    ASSERT_TRUE(Put(c.get(), "k" + std::to_string(i), std::string(1000, 'x')));
  const auto stats = c->Stats();
  EXPECT_LE(stats.bytes, stats.maxBytes);
  EXPECT_GT(stats.evictions, 0u);
  std::string meta, body;
  EXPECT_NE(c->Get("k199", 0, 0, &meta, &body), 0u);
  EXPECT_FALSE(Put(c.get(), "huge", std::string(70 * 1024, 'x')));
}

TEST(SharedCache, SeededModelAgainstStdMap) {
  const uint32_t seed = static_cast<uint32_t>(std::random_device{}());
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Segment seg("model");
  auto c = seg.Open(4 << 20, 4096);  // room for everything: no eviction, so the model is exact
  std::map<std::string, std::string> model;
  for (int step = 0; step < 5000; ++step) {
    const std::string key = "key" + std::to_string(rng() % 300);
    const unsigned op = rng() % 10;
    std::string meta, body;
    if (op < 4) {
      const std::string value = BodyOf(key, rng(), 8 + rng() % 3000);
      ASSERT_TRUE(Put(c.get(), key, value, "", "/" + key.substr(0, 4)));
      model[key] = value;
    } else if (op < 5) {
      EXPECT_EQ(c->Delete(key), model.erase(key) == 1) << key;
    } else {
      const bool hit = c->Get(key, 0, 0, &meta, &body) != 0;
      auto it = model.find(key);
      ASSERT_EQ(hit, it != model.end()) << key;
      if (hit) {
        ASSERT_EQ(body, it->second) << key;
      }
    }
  }
  EXPECT_EQ(c->Stats().entries, model.size());
}

// Filled at the defaults (64 MiB, 10,000 entries) with pages of mixed sizes, one 256 KB put
// evicts about its own size of other pages (the entries overlapping one window), not most of
// the cache: once, CLOCK over the index slots evicted 7,737 entries (83%) for it.
TEST(SharedCache, OneLargePutEvictsAboutItsOwnSize) {
  const uint32_t seed = 52;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Segment seg("window");
  auto c = seg.Open(64 << 20, 10000);
  const std::string bytes = BodyOf("filler", 1, 64 << 10);
  for (int i = 0; i < 30000; ++i) {
    // sizes from 500 B to 64 KB, smaller ones more often (log-uniform)
    const size_t size = static_cast<size_t>(500 * std::pow(128.0, (rng() % 1000) / 1000.0));
    Put(c.get(), "page" + std::to_string(i), bytes.substr(0, size));
  }
  const auto before = c->Stats();
  ASSERT_GT(before.bytes, before.maxBytes * 8 / 10) << "not full";
  const std::string large = BodyOf("large", 1, 256 << 10);
  ASSERT_TRUE(Put(c.get(), "large", large));
  const auto after = c->Stats();
  const uint64_t evicted = after.evictions - before.evictions;
  const uint64_t needed = (large.size() + 1023) / 512 * 512;
  const uint64_t evictedBytes = before.bytes + needed - after.bytes;
  EXPECT_LE(evictedBytes, 2 * needed + (128 << 10)) << evicted << " entries evicted";
  EXPECT_LE(evicted, evictedBytes / 500 + 1);
  EXPECT_GT(after.entries, before.entries * 9 / 10);
  std::string meta, body;
  EXPECT_NE(c->Get("large", 0, 0, &meta, &body), 0u);
  EXPECT_EQ(body, large);
}

// A put that could only be stored by evicting far more than its own size is not stored, and
// counted: a small page does not push out a 255 KB one.
TEST(SharedCache, PutThatWouldEvictTooMuchGivesUp) {
  Segment seg("giveup");
  auto c = seg.Open(1 << 20, 256);
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(Put(c.get(), "big" + std::to_string(i), std::string(255 << 10, 'b')));
  EXPECT_FALSE(Put(c.get(), "small", std::string(3000, 's')));
  const auto stats = c->Stats();
  EXPECT_EQ(stats.putsGivenUp, 1u);
  EXPECT_EQ(stats.entries, 4u);
  EXPECT_EQ(stats.evictions, 0u);
  ASSERT_TRUE(Put(c.get(), "big4", std::string(255 << 10, 'b')));  // its own size: evicts one
  EXPECT_EQ(c->Stats().evictions, 1u);
}

// A segment written by a hostile process of the same user crashes no one: here an entry's
// stored key and target lengths run far past its blocks (the purge read them as they were).
TEST(SharedCache, HostileLengthsInTheSegmentAreNotTrusted) {
  Segment seg("hostile");
  auto c = seg.Open();
  ASSERT_TRUE(Put(c.get(), "victim-key", "body", "t"));
  const int fd = open(seg.path.c_str(), O_RDWR);
  struct stat st {};
  fstat(fd, &st);
  auto* map = static_cast<char*>(
      mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  close(fd);
  ASSERT_NE(map, MAP_FAILED);
  const std::string needle = "victim-key/t";  // the record: head, key, target, ...
  char* at = static_cast<char*>(
      memmem(map, static_cast<size_t>(st.st_size), needle.data(), needle.size()));
  ASSERT_NE(at, nullptr);
  const uint32_t huge = 0x7fffffff;  // RecordHead: magic, crc, keyLen, targetLen, ...
  std::memcpy(at - 32, &huge, 4);
  std::memcpy(at - 28, &huge, 4);
  munmap(map, static_cast<size_t>(st.st_size));
  std::string meta, body;
  EXPECT_EQ(c->Get("victim-key", 0, 0, &meta, &body), 0u);
  EXPECT_TRUE(c->Keys(SharedCache::Field::kTarget, "/t", false).empty());
  EXPECT_EQ(c->Purge(SharedCache::Field::kTarget, "/t", false), 0u);
  EXPECT_FALSE(c->Delete("victim-key"));
  EXPECT_TRUE(Put(c.get(), "victim-key", "again"));
  EXPECT_NE(c->Get("victim-key", 0, 0, &meta, &body), 0u);
  EXPECT_EQ(body, "again");
}

// The body is copied once, into the caller's room, and the CRC-32 checked on that copy: a byte
// of a record changed in the segment behind the writer's back (a torn or overwritten entry) is
// a miss through either Get, never served; the room's bytes are exactly the body otherwise.
TEST(SharedCache, ChangedBytesInTheSegmentAreAMissNotServed) {
  const uint32_t seed = static_cast<uint32_t>(std::random_device{}());
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Segment seg("changed");
  auto c = seg.Open(4 << 20, 1024);
  const int fd = open(seg.path.c_str(), O_RDWR);
  struct stat st {};
  fstat(fd, &st);
  const size_t mapSize = static_cast<size_t>(st.st_size);
  auto* map = static_cast<char*>(mmap(nullptr, mapSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  close(fd);
  ASSERT_NE(map, MAP_FAILED);
  for (int round = 0; round < 200; ++round) {
    const std::string key = "page" + std::to_string(round);
    const std::string value = BodyOf(key, rng(), 16 + rng() % 40000);
    SCOPED_TRACE(key + " of " + std::to_string(value.size()) + " bytes");
    ASSERT_TRUE(Put(c.get(), key, value));
    std::string meta, body;
    std::vector<uint8_t> room;
    const uint64_t stamp = c->Get(key, 0, 0, &meta, [&room](size_t size) {
      room.assign(size, 0);
      return room.data();
    });
    ASSERT_NE(stamp, 0u);
    ASSERT_EQ(std::string(room.begin(), room.end()), value);
    EXPECT_EQ(c->Get(key, 0, 0, &meta, [](size_t) { return nullptr; }), 0u);  // no room
    // one byte of the stored body (most rounds) or of the whole record, flipped in the segment
    char* at = static_cast<char*>(memmem(map, mapSize, value.data(), value.size()));
    ASSERT_NE(at, nullptr);
    const size_t recordBytes = value.size() + meta.size() + 2 * key.size() + 2 + 40;
    const size_t back = 1 + (rng() % 4 == 0 ? rng() % recordBytes : rng() % value.size());
    char* flip = at + value.size() - back;
    const uint8_t bit = static_cast<uint8_t>(1u << (rng() % 8));
    SCOPED_TRACE("bit " + std::to_string(bit) + " flipped " + std::to_string(back) +
                 " bytes before the body's end");
    *flip = static_cast<char>(*flip ^ bit);
    EXPECT_EQ(c->Get(key, 0, 0, &meta, &body), 0u);
    EXPECT_EQ(c->Get(key, 0, 0, &meta,
                     [&room](size_t size) {
                       room.assign(size, 0);
                       return room.data();
                     }),
              0u);
    *flip = static_cast<char>(*flip ^ bit);  // put back: served again, the same bytes
    EXPECT_EQ(c->Get(key, 0, 0, &meta, &body), stamp);
    EXPECT_EQ(body, value);
  }
  munmap(map, mapSize);
}

// Whether the kernel frees a mutex whose owner died (robust futexes): what a writer SIGKILLed
// holding the writer mutex relies on. qemu-user does not emulate them (get/set_robust_list are
// ENOSYS there), so such a mutex stays held for good under it.
bool RobustFutexesWork() {
  void* head = nullptr;
  size_t length = 0;
  return syscall(SYS_get_robust_list, 0, &head, &length) == 0;
}

// Children write (and are SIGKILLed at random instants, some of them holding the writer
// mutex or half-way through copying a record into blocks they reserved); the parent reads all
// along and never sees a torn body, and the dead children's reservations are taken back.
TEST(SharedCache, ChildrenKilledMidWriteLeaveItUsable) {
  if (!RobustFutexesWork()) GTEST_SKIP() << "no robust futexes here (qemu-user)";
  const uint32_t seed = static_cast<uint32_t>(std::random_device{}());
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  Segment seg("chaos");
  auto c = seg.Open(256 * 1024, 128);
  for (int round = 0; round < 30; ++round) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      std::string error;
      auto child = SharedCache::Open(seg.path, 256 * 1024, 128, true, &error);
      if (!child) _exit(3);
      for (uint32_t v = 0;; ++v) {
        const std::string key = "k" + std::to_string(v % 40);
        Put(child.get(), key, BodyOf(key, v, 100 + v % 9000));
      }
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200 + rng() % 3000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    std::string meta, body;
    for (int i = 0; i < 40; ++i) {
      const std::string key = "k" + std::to_string(i);
      if (c->Get(key, 0, 0, &meta, &body) != 0) {
        ASSERT_TRUE(Consistent(key, body)) << key;
      }
    }
    ASSERT_TRUE(Put(c.get(), "parent", "still works"));  // never blocks on a dead holder
  }
  EXPECT_LE(c->Stats().bytes, c->Stats().maxBytes);
  // blocks reserved by children killed while copying a page are taken back: after a purge,
  // one page fills nearly the whole area
  c->Purge(SharedCache::Field::kAll, "", false);
  EXPECT_TRUE(Put(c.get(), "whole", std::string(240 * 1024, 'w')));
  EXPECT_LE(c->Stats().bytes, c->Stats().maxBytes);
}

// A process stopped while it holds the segment's mutex (SIGSTOP, a debugger, a frozen cgroup)
// costs the others a miss or a page not stored, never a stalled caller: every operation waits
// a bounded time. Reads take no lock and still answer. Once it is killed, the next writer
// repairs the segment and goes on.
TEST(SharedCache, StoppedHolderCostsAMissNotAStall) {
  if (!RobustFutexesWork()) GTEST_SKIP() << "no robust futexes here (qemu-user)";
  Segment seg("stopped");
  auto c = seg.Open();
  c->set_lock_wait_us(2000);
  ASSERT_TRUE(Put(c.get(), "kept", "still served", "t"));
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::string error;
    auto child = SharedCache::Open(seg.path, 1 << 20, 256, true, &error);
    if (!child) _exit(3);
    child->WithMutexHeld([] { raise(SIGSTOP); });
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(status));
  const uint64_t timeouts = c->Stats().lockTimeouts;
  EXPECT_FALSE(Put(c.get(), "new", "not stored"));
  EXPECT_FALSE(c->Delete("kept"));
  EXPECT_FALSE(c->TryLock("page", 0, 1000));  // as if held: wait for the page, then render
  bool complete = true;
  EXPECT_EQ(c->Purge(SharedCache::Field::kAll, "", false, &complete), 0u);
  EXPECT_FALSE(complete);
  std::string meta, body;
  EXPECT_NE(c->Get("kept", 0, 0, &meta, &body), 0u);
  EXPECT_EQ(body, "still served");
  EXPECT_EQ(c->Stats().lockTimeouts, timeouts + 4);
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  EXPECT_TRUE(Put(c.get(), "new", "stored"));  // the dead holder's mutex: repaired, taken
  EXPECT_EQ(c->Stats().repairs, 1u);
  EXPECT_EQ(c->Purge(SharedCache::Field::kAll, "", false, &complete), 2u);
  EXPECT_TRUE(complete);
}

TEST(SharedCache, FillLockOfADeadProcessIsFreed) {
  Segment seg("lock");
  auto c = seg.Open();
  const pid_t pid = fork();
  if (pid == 0) {
    std::string error;
    auto child = SharedCache::Open(seg.path, 1 << 20, 256, true, &error);
    if (!child || !child->TryLock("page", 0, kFar)) _exit(3);
    raise(SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(c->TryLock("page", 0, 1000));  // dead holder: taken over
  // a live holder (this process) keeps it from another pid until its deadline
  const pid_t other = fork();
  if (other == 0) {
    std::string error;
    auto child = SharedCache::Open(seg.path, 1 << 20, 256, true, &error);
    _exit(child && !child->TryLock("page", 10, 1000) && child->TryLock("page", 2000, 1000) ? 0 : 1);
  }
  waitpid(other, &status, 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(SharedCache, OpenSegmentsAndLinksAreRefused) {
  Segment seg("mode");
  { auto c = seg.Open(); }
  chmod(seg.path.c_str(), 0666);
  std::string error;
  EXPECT_FALSE(SharedCache::Open(seg.path, 1 << 20, 256, true, &error));
  EXPECT_NE(error.find("mode 0666"), std::string::npos) << error;
  Segment link("link");
  ASSERT_EQ(symlink(seg.path.c_str(), link.path.c_str()), 0);
  EXPECT_FALSE(SharedCache::Open(link.path, 1 << 20, 256, true, &error));
  EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
  if (geteuid() == 0) {
    Segment foreign("foreign");
    const int fd = open(foreign.path.c_str(), O_CREAT | O_RDWR, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(fchown(fd, 65534, 65534), 0);
    close(fd);
    EXPECT_FALSE(SharedCache::Open(foreign.path, 1 << 20, 256, true, &error));
    EXPECT_NE(error.find("owned by uid 65534"), std::string::npos) << error;
  }
}

TEST(SharedCache, GarbageOrOtherSizesAreRebuilt) {
  Segment seg("garbage");
  const int fd = open(seg.path.c_str(), O_CREAT | O_RDWR, 0600);
  std::string junk(1 << 16, '\xa5');
  ASSERT_EQ(write(fd, junk.data(), junk.size()), static_cast<ssize_t>(junk.size()));
  close(fd);
  auto c = seg.Open();
  std::string meta, body;
  EXPECT_EQ(c->Get("k", 0, 0, &meta, &body), 0u);
  ASSERT_TRUE(Put(c.get(), "k", "v"));
  c.reset();
  auto bigger = seg.Open(2 << 20, 256);  // other options: a new segment, nothing trusted
  EXPECT_EQ(bigger->Get("k", 0, 0, &meta, &body), 0u);
}

TEST(SharedCache, TooSmallFileSystemFailsAtOpen) {
  std::string error;
  const std::string path = TempPath("huge");
  EXPECT_FALSE(SharedCache::Open(path, 1ull << 46, 256, true, &error));
  EXPECT_NE(error.find("cannot reserve"), std::string::npos) << error;
  struct stat st {};
  EXPECT_NE(stat(path.c_str(), &st), 0);  // not left behind
}

}  // namespace
