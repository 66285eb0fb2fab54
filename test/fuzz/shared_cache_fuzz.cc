// libFuzzer target for SharedCache over a hostile segment: any process of the same user can
// write the segment, so no value read from it may crash a reader or a writer. Each input makes
// a new small segment, then (first byte even) stores a few entries and patches the segment with
// the input's (offset, bytes) records, or (odd) fills the whole segment with the input's bytes,
// then runs get, put (with eviction), delete, purge, keys, lock and unlock on it. The mutex's
// own bytes are left alone: a process that can write them can ptrace us just as well.
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "ssr_native/shared_cache.h"

namespace {

using ssr_native::SharedCache;

bool Put(SharedCache* c, const std::string& key, size_t size, const std::string& tags) {
  static const std::string bytes(16 * 1024, 'b');
  SharedCache::Record r;
  r.target = "/" + key;
  r.primary = key;
  r.tags = tags;
  r.meta = "{}";
  r.body = reinterpret_cast<const uint8_t*>(bytes.data());
  r.bodySize = size % bytes.size();
  r.expiresAtMs = size % 3 == 0 ? 1 : INT64_MAX / 2;
  return c->Put(key, r);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const std::string path = "/dev/shm/ssr-native-fuzz-" + std::to_string(getpid());
  unlink(path.c_str());
  std::string error;
  auto cache = SharedCache::Open(path, 32 * 1024, 32, false, &error);
  if (!cache) __builtin_trap();
  cache->set_lock_wait_us(1000);
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  struct stat st {};
  fstat(fd, &st);
  const size_t length = static_cast<size_t>(st.st_size);
  auto* seg =
      static_cast<uint8_t*>(mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  close(fd);
  if (seg == MAP_FAILED) __builtin_trap();
  const size_t mutexFrom = SharedCache::MutexOffset();
  const size_t mutexTo = mutexFrom + sizeof(pthread_mutex_t);
  auto write = [&](size_t at, uint8_t byte) {
    if (at < length && (at < mutexFrom || at >= mutexTo)) seg[at] = byte;
  };
  std::string meta, body;
  if ((data[0] & 1) == 0) {
    for (int i = 0; i < 12; ++i)
      Put(cache.get(), "k" + std::to_string(i), 300 * i + 17, i % 2 ? "red\nblue" : "red");
    // records: offset (3 bytes, little-endian), count, bytes
    size_t i = 1;
    while (i + 4 <= size) {
      const size_t at = data[i] | data[i + 1] << 8 | static_cast<size_t>(data[i + 2]) << 16;
      const size_t n = data[i + 3];
      i += 4;
      for (size_t j = 0; j < n && i < size; ++j, ++i) write(at + j, data[i]);
    }
  } else {
    for (size_t at = 0; at < length; ++at) write(at, data[1 + at % (size - 1)]);
  }
  for (int i = 0; i < 12; ++i) {
    const std::string key = "k" + std::to_string(i);
    const uint64_t stamp = cache->Get(key, 2, 0, &meta, &body);
    cache->Get(key, 2, stamp, &meta, &body);
  }
  Put(cache.get(), "k3", 5000, "green");
  Put(cache.get(), "big", 14000, "red");
  cache->Delete("k5");
  cache->Keys(SharedCache::Field::kTag, "blue", false);
  cache->Keys(SharedCache::Field::kTarget, "/k", true);
  cache->Purge(SharedCache::Field::kPrimary, "k1", true);
  cache->TryLock("k7", 2, 100);
  cache->Unlock("k7");
  for (int i = 0; i < 8; ++i) Put(cache.get(), "n" + std::to_string(i), 2000 + 997 * i, "");
  cache->Purge(SharedCache::Field::kTag, "red", false);
  cache->Purge(SharedCache::Field::kAll, "", false);
  cache->Stats();
  munmap(seg, length);
  cache.reset();
  unlink(path.c_str());
  return 0;
}
