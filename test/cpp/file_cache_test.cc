#include "ssr_native/file_cache.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "ssr_native/etag.h"

namespace ssr_native {
namespace {

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    char templ[] = "/tmp/ssr_native_fc_XXXXXX";
    char* made = mkdtemp(templ);
    path_ = made ? made : "";
  }
  ~TempDir() {
    const std::string cmd = "rm -rf '" + path_ + "'";
    if (!path_.empty()) {
      EXPECT_EQ(system(cmd.c_str()), 0);
    }
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

std::string BodyOf(const FileCacheResult& result) {
  if (!result.file) return std::string();
  return std::string(reinterpret_cast<const char*>(result.file->body->data.get()),
                     result.file->body->size);
}

// Polls `condition` for up to two seconds (change detection must take well under one).
bool Eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

FileCacheOptions OptionsFor(const TempDir& dir) {
  FileCacheOptions options;
  options.root = dir.path();
  options.max_bytes = 1 << 20;
  options.max_file_size = 64 << 10;
  options.sweep_interval_ms = 50;
  return options;
}

TEST(FileCache, LoadsThenHitsWithAContentEntityTag) {
  TempDir dir;
  WriteFile(dir / "a.txt", "123456789");
  FileCache cache(OptionsFor(dir));
  EXPECT_EQ(cache.Lookup(dir / "a.txt").status, FileCacheStatus::kMiss);
  const FileCacheResult first = cache.Load(dir / "a.txt");
  ASSERT_EQ(first.status, FileCacheStatus::kLoaded);
  EXPECT_TRUE(first.cached);
  EXPECT_EQ(BodyOf(first), "123456789");
  EXPECT_EQ(first.file->body->etag, "W/\"9-cbf43926\"");
  EXPECT_EQ(first.stat.size, 9u);
  EXPECT_TRUE(first.stat.is_regular);

  const FileCacheResult second = cache.Load(dir / "a.txt");
  ASSERT_EQ(second.status, FileCacheStatus::kHit);
  EXPECT_EQ(second.file.get(), first.file.get());  // the same bytes, not a copy
  const FileCacheStats stats = cache.Stats();
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.loads, 1u);
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, 9u);
}

TEST(FileCache, EmptyFile) {
  TempDir dir;
  WriteFile(dir / "empty", "");
  FileCache cache(OptionsFor(dir));
  const FileCacheResult result = cache.Load(dir / "empty");
  ASSERT_EQ(result.status, FileCacheStatus::kLoaded);
  EXPECT_EQ(result.file->body->size, 0u);
  EXPECT_EQ(result.file->body->etag, "W/\"0-00000000\"");
}

TEST(FileCache, ReportsErrorsDirectoriesAndLargeFiles) {
  TempDir dir;
  WriteFile(dir / "file", "x");
  ASSERT_EQ(mkdir((dir / "sub").c_str(), 0755), 0);
  WriteFile(dir / "big", std::string(100 << 10, 'b'));
  FileCache cache(OptionsFor(dir));

  FileCacheResult missing = cache.Load(dir / "nope");
  EXPECT_EQ(missing.status, FileCacheStatus::kError);
  EXPECT_EQ(missing.error, ENOENT);
  FileCacheResult not_dir = cache.Load(dir / "file/child");
  EXPECT_EQ(not_dir.status, FileCacheStatus::kError);
  EXPECT_EQ(not_dir.error, ENOTDIR);
  FileCacheResult too_long = cache.Load(dir / std::string(5000, 'n'));
  EXPECT_EQ(too_long.status, FileCacheStatus::kError);
  EXPECT_EQ(too_long.error, ENAMETOOLONG);

  FileCacheResult directory = cache.Load(dir / "sub");
  EXPECT_EQ(directory.status, FileCacheStatus::kDirectory);
  EXPECT_TRUE(directory.stat.is_directory);
  FileCacheResult big = cache.Load(dir / "big");
  EXPECT_EQ(big.status, FileCacheStatus::kTooLarge);
  EXPECT_EQ(big.stat.size, 100u << 10);
  // Nothing but the successful loads is remembered (no negative cache), or counted as a load.
  EXPECT_EQ(cache.Stats().entries, 0u);
  EXPECT_EQ(cache.Stats().loads, 0u);
}

TEST(FileCache, FifoIsNotRegularAndDoesNotBlock) {
  TempDir dir;
  ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0644), 0);
  FileCache cache(OptionsFor(dir));
  EXPECT_EQ(cache.Load(dir / "fifo").status, FileCacheStatus::kNotRegular);
}

TEST(FileCache, EvictsLeastRecentlyUsedWithinMaxBytes) {
  TempDir dir;
  for (const char* name : {"a", "b", "c", "d"}) WriteFile(dir / name, std::string(4000, *name));
  FileCacheOptions options = OptionsFor(dir);
  options.max_bytes = 10000;
  FileCache cache(options);
  ASSERT_EQ(cache.Load(dir / "a").status, FileCacheStatus::kLoaded);
  ASSERT_EQ(cache.Load(dir / "b").status, FileCacheStatus::kLoaded);
  const uint32_t before = cache.Generation();
  ASSERT_EQ(cache.Load(dir / "a").status, FileCacheStatus::kHit);     // a is now most recent
  ASSERT_EQ(cache.Load(dir / "c").status, FileCacheStatus::kLoaded);  // evicts b
  EXPECT_NE(cache.Generation(), before);
  EXPECT_EQ(cache.Lookup(dir / "b").status, FileCacheStatus::kMiss);
  EXPECT_EQ(cache.Lookup(dir / "a").status, FileCacheStatus::kHit);
  const FileCacheStats stats = cache.Stats();
  EXPECT_EQ(stats.entries, 2u);
  EXPECT_EQ(stats.bytes, 8000u);
  EXPECT_EQ(stats.evictions, 1u);
  EXPECT_LE(stats.bytes, options.max_bytes);
}

TEST(FileCache, TouchRefreshesRecency) {
  TempDir dir;
  for (const char* name : {"a", "b", "c"}) WriteFile(dir / name, std::string(4000, *name));
  FileCacheOptions options = OptionsFor(dir);
  options.max_bytes = 10000;
  FileCache cache(options);
  const uint64_t a = cache.Load(dir / "a").file->id;
  cache.Load(dir / "b");
  EXPECT_EQ(cache.Touch(a), cache.Generation());
  cache.Load(dir / "c");
  EXPECT_EQ(cache.Lookup(dir / "a").status, FileCacheStatus::kHit);
  EXPECT_EQ(cache.Lookup(dir / "b").status, FileCacheStatus::kMiss);
}

TEST(FileCache, EvictedBytesStayValidWhileReferenced) {
  TempDir dir;
  WriteFile(dir / "a", std::string(6000, 'a'));
  WriteFile(dir / "b", std::string(6000, 'b'));
  FileCacheOptions options = OptionsFor(dir);
  options.max_bytes = 10000;
  FileCache cache(options);
  std::shared_ptr<const FileBlob> held = cache.Load(dir / "a").file->body;
  cache.Load(dir / "b");  // evicts a
  EXPECT_EQ(cache.Lookup(dir / "a").status, FileCacheStatus::kMiss);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(held->data.get()), held->size),
            std::string(6000, 'a'));
}

TEST(FileCache, FileLargerThanMaxBytesIsServedButNotKept) {
  TempDir dir;
  WriteFile(dir / "a", std::string(3000, 'a'));
  FileCacheOptions options = OptionsFor(dir);
  options.max_bytes = 2000;
  FileCache cache(options);
  FileCacheResult result = cache.Load(dir / "a");
  EXPECT_EQ(result.status, FileCacheStatus::kLoaded);
  EXPECT_FALSE(result.cached);
  EXPECT_EQ(BodyOf(result).size(), 3000u);
  EXPECT_EQ(cache.Stats().entries, 0u);
}

// With inotify the stat sweep is set to a minute: a change seen within Eventually's two seconds
// can then only have come from a watch.
constexpr int kSweepNever = 60000;

FileCacheOptions InotifyOnlyOptionsFor(const TempDir& dir) {
  FileCacheOptions options = OptionsFor(dir);
  options.watch = true;
  options.sweep_interval_ms = kSweepNever;
  return options;
}

void ExpectChangesDetected(bool watch) {
  TempDir dir;
  WriteFile(dir / "a.txt", "one");
  FileCacheOptions options = watch ? InotifyOnlyOptionsFor(dir) : OptionsFor(dir);
  options.watch = watch;
  FileCache cache(options);
  ASSERT_EQ(BodyOf(cache.Load(dir / "a.txt")), "one");
  EXPECT_EQ(cache.Stats().watched_directories, watch ? 1u : 0u);

  // Edit in place (same size too: only content and mtime differ).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  WriteFile(dir / "a.txt", "two");
  EXPECT_TRUE(
      Eventually([&] { return cache.Lookup(dir / "a.txt").status == FileCacheStatus::kMiss; }));
  EXPECT_EQ(BodyOf(cache.Load(dir / "a.txt")), "two");

  // Replace by rename.
  WriteFile(dir / "tmp", "three!");
  ASSERT_EQ(rename((dir / "tmp").c_str(), (dir / "a.txt").c_str()), 0);
  EXPECT_TRUE(
      Eventually([&] { return cache.Lookup(dir / "a.txt").status == FileCacheStatus::kMiss; }));
  EXPECT_EQ(BodyOf(cache.Load(dir / "a.txt")), "three!");

  // Delete.
  ASSERT_EQ(unlink((dir / "a.txt").c_str()), 0);
  EXPECT_TRUE(
      Eventually([&] { return cache.Lookup(dir / "a.txt").status == FileCacheStatus::kMiss; }));
  EXPECT_EQ(cache.Load(dir / "a.txt").error, ENOENT);
}

#if defined(__linux__)
TEST(FileCache, DetectsEditRenameAndDeleteWithInotify) {
  {
    TempDir dir;
    FileCache cache(OptionsFor(dir));
    EXPECT_TRUE(cache.Stats().inotify);
  }
  ExpectChangesDetected(true);
}
#endif

TEST(FileCache, DetectsEditRenameAndDeleteWithStatSweep) { ExpectChangesDetected(false); }

TEST(FileCache, NewNameInAWatchedDirectoryMovesTheGeneration) {
  TempDir dir;
  WriteFile(dir / "a.txt", "a");
  FileCache cache(OptionsFor(dir));
  cache.Load(dir / "a.txt");
  const uint32_t before = cache.Generation();
  WriteFile(dir / "a", "new");
  EXPECT_TRUE(Eventually([&] { return cache.Generation() != before; }));
  EXPECT_EQ(cache.Lookup(dir / "a.txt").status, FileCacheStatus::kHit);  // untouched entry stays
}

#if defined(__linux__)
// A "not found" under directories that do not exist yet (an API route such as /api/users in
// a static root): settled, and creating the directory, then the file, each move the generation.
TEST(FileCache, SettledAbsenceUnderMissingDirectoriesMovesTheGenerationOnCreation) {
  TempDir dir;
  FileCache cache(InotifyOnlyOptionsFor(dir));
  FileCacheResult missing = cache.Load(dir / "api/v1/users");
  ASSERT_EQ(missing.status, FileCacheStatus::kError);
  EXPECT_EQ(missing.error, ENOENT);
  EXPECT_TRUE(missing.settled);
  uint32_t before = cache.Generation();
  ASSERT_EQ(mkdir((dir / "api").c_str(), 0755), 0);
  EXPECT_TRUE(Eventually([&] { return cache.Generation() != before; }));
  EXPECT_TRUE(cache.Load(dir / "api/v1/users").settled);
  before = cache.Generation();
  ASSERT_EQ(mkdir((dir / "api/v1").c_str(), 0755), 0);
  EXPECT_TRUE(Eventually([&] { return cache.Generation() != before; }));
  EXPECT_TRUE(cache.Load(dir / "api/v1/users").settled);
  before = cache.Generation();
  WriteFile(dir / "api/v1/users", "[]");
  EXPECT_TRUE(Eventually([&] { return cache.Generation() != before; }));
  EXPECT_EQ(BodyOf(cache.Load(dir / "api/v1/users")), "[]");
}

// Answers that could change without an event in a watched directory are not settled.
TEST(FileCache, AbsenceThroughSymlinksOrFilesIsNotSettled) {
  TempDir outside;
  TempDir dir;
  WriteFile(dir / "file.js", "x");
  ASSERT_EQ(mkdir((dir / "real").c_str(), 0755), 0);
  ASSERT_EQ(symlink((outside / "later").c_str(), (dir / "dangling").c_str()), 0);
  ASSERT_EQ(symlink(outside.path().c_str(), (dir / "linkdir").c_str()), 0);
  FileCache cache(InotifyOnlyOptionsFor(dir));
  EXPECT_FALSE(cache.Load(dir / "dangling").settled);
  EXPECT_FALSE(cache.Load(dir / "linkdir/missing").settled);
  EXPECT_FALSE(cache.Load(dir / "linkdir").settled);
  EXPECT_EQ(cache.Load(dir / "file.js/x").error, ENOTDIR);
  EXPECT_FALSE(cache.Load(dir / "file.js/x").settled);
  FileCacheResult directory = cache.Load(dir / "real");
  EXPECT_EQ(directory.status, FileCacheStatus::kDirectory);
  EXPECT_TRUE(directory.settled);
  EXPECT_TRUE(cache.Load(dir / "real/").settled);
  EXPECT_TRUE(cache.Load(dir / "real/missing").settled);
  // outside the root, or without a root: nothing to say
  EXPECT_FALSE(cache.Load(outside / "nothing").settled);
  FileCacheOptions rootless = InotifyOnlyOptionsFor(dir);
  rootless.root.clear();
  FileCache anywhere(rootless);
  EXPECT_FALSE(anywhere.Load(dir / "nothing").settled);
}

// A cache shared by several static mounts has no root: each mount passes its own as `top`, and
// its misses are then settled and watched like those of a cache with that root.
TEST(FileCache, RootlessCacheSettlesAbsenceUnderTheCallersTop) {
  TempDir dir;
  TempDir other;
  FileCacheOptions rootless = InotifyOnlyOptionsFor(dir);
  rootless.root.clear();
  FileCache cache(rootless);
  FileCacheResult missing = cache.Load(dir / "api/users", dir.path());
  ASSERT_EQ(missing.status, FileCacheStatus::kError);
  EXPECT_TRUE(missing.settled);
  EXPECT_TRUE(cache.Load(other / "page", other.path()).settled);  // a second mount, same cache
  EXPECT_FALSE(cache.Load(other / "page", dir.path()).settled);   // not under the top given
  EXPECT_FALSE(cache.Load(dir / "api/users", dir.path() + "/").settled);  // not normalised
  const uint32_t before = cache.Generation();
  ASSERT_EQ(mkdir((dir / "api").c_str(), 0755), 0);
  EXPECT_TRUE(Eventually([&] { return cache.Generation() != before; }));
}
#endif

// Without inotify the sweep moves the generation every period, so an absence is settled too.
TEST(FileCache, SettledAbsenceWithStatSweepExpiresEachPeriod) {
  TempDir dir;
  FileCacheOptions options = OptionsFor(dir);
  options.watch = false;
  FileCache cache(options);
  EXPECT_TRUE(cache.Load(dir / "api/users").settled);
  const uint32_t before = cache.Generation();
  EXPECT_TRUE(Eventually([&] { return cache.Generation() != before; }));
}

TEST(FileCache, RenamedParentDirectoryDropsItsEntries) {
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "d").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((dir / "d/e").c_str(), 0755), 0);
  WriteFile(dir / "d/e/f.txt", "old");
  FileCache cache(InotifyOnlyOptionsFor(dir));
  ASSERT_EQ(BodyOf(cache.Load(dir / "d/e/f.txt")), "old");
  EXPECT_EQ(cache.Stats().watched_directories, 3u);  // d/e, d and the root
  ASSERT_EQ(rename((dir / "d").c_str(), (dir / "d.old").c_str()), 0);
  ASSERT_EQ(mkdir((dir / "d").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((dir / "d/e").c_str(), 0755), 0);
  WriteFile(dir / "d/e/f.txt", "new");
  EXPECT_TRUE(
      Eventually([&] { return cache.Lookup(dir / "d/e/f.txt").status == FileCacheStatus::kMiss; }));
  EXPECT_EQ(BodyOf(cache.Load(dir / "d/e/f.txt")), "new");
  // And the new directory is watched again.
  WriteFile(dir / "d/e/f.txt", "newer");
  EXPECT_TRUE(Eventually([&] { return BodyOf(cache.Load(dir / "d/e/f.txt")) == "newer"; }));
}

TEST(FileCache, RefusesSymlinksLeavingTheRootWhenAsked) {
  TempDir outside;
  TempDir dir;
  WriteFile(outside / "secret", "secret");
  WriteFile(dir / "inside", "inside");
  ASSERT_EQ(symlink((outside / "secret").c_str(), (dir / "link").c_str()), 0);
  ASSERT_EQ(symlink((dir / "inside").c_str(), (dir / "good").c_str()), 0);
  FileCacheOptions options = OptionsFor(dir);
  options.allow_outside_root = false;
  FileCache strict(options);
  EXPECT_EQ(strict.Load(dir / "link").status, FileCacheStatus::kOutsideRoot);
  EXPECT_EQ(BodyOf(strict.Load(dir / "good")), "inside");
  FileCache lenient(OptionsFor(dir));
  EXPECT_EQ(BodyOf(lenient.Load(dir / "link")), "secret");
}

// A symlinked file: the link's directory is watched, so a link replaced by another (the way
// deploy tools switch versions) is seen by inotify; the target may live anywhere, so edits of
// the target are the stat sweep's job.
TEST(FileCache, SymlinkedFileTargetEditsAreSeen) {
  TempDir outside;
  TempDir dir;
  WriteFile(outside / "target", "v1");
  WriteFile(outside / "other", "other");
  ASSERT_EQ(symlink((outside / "target").c_str(), (dir / "link").c_str()), 0);
  {
    FileCache cache(InotifyOnlyOptionsFor(dir));
    ASSERT_EQ(BodyOf(cache.Load(dir / "link")), "v1");
    EXPECT_EQ(cache.Stats().watched_directories, 1u);
    ASSERT_EQ(symlink((outside / "other").c_str(), (dir / "link.tmp").c_str()), 0);
    ASSERT_EQ(rename((dir / "link.tmp").c_str(), (dir / "link").c_str()), 0);
    EXPECT_TRUE(
        Eventually([&] { return cache.Lookup(dir / "link").status == FileCacheStatus::kMiss; }));
    EXPECT_EQ(BodyOf(cache.Load(dir / "link")), "other");
    ASSERT_EQ(unlink((dir / "link").c_str()), 0);
    ASSERT_EQ(symlink((outside / "target").c_str(), (dir / "link").c_str()), 0);
  }
  FileCache cache(OptionsFor(dir));  // sweep every 50 ms
  ASSERT_EQ(BodyOf(cache.Load(dir / "link")), "v1");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  WriteFile(outside / "target", "v2!");
  EXPECT_TRUE(Eventually([&] { return BodyOf(cache.Load(dir / "link")) == "v2!"; }));
}

TEST(FileCache, VariantsCountAgainstMaxBytes) {
  TempDir dir;
  WriteFile(dir / "a", std::string(4000, 'a'));
  WriteFile(dir / "b", std::string(4000, 'b'));
  FileCacheOptions options = OptionsFor(dir);
  options.max_bytes = 10000;
  FileCache cache(options);
  const uint64_t a = cache.Load(dir / "a").file->id;
  const uint64_t b = cache.Load(dir / "b").file->id;
  const std::string gz(1500, 'z');
  auto blob =
      cache.AttachVariant(a, "gzip", reinterpret_cast<const uint8_t*>(gz.data()), gz.size());
  ASSERT_NE(blob, nullptr);
  EXPECT_EQ(blob->etag, EntityTag(gz.data(), gz.size(), true));
  EXPECT_EQ(cache.Variant(a, "gzip"), blob);
  EXPECT_EQ(cache.Variant(a, "br"), nullptr);
  EXPECT_EQ(cache.Stats().bytes, 9500u);
  // A second variant that does not fit evicts b, never a itself.
  auto br = cache.AttachVariant(a, "br", reinterpret_cast<const uint8_t*>(gz.data()), 1000);
  ASSERT_NE(br, nullptr);
  EXPECT_EQ(cache.Variant(b, "gzip"), nullptr);
  EXPECT_EQ(cache.Lookup(dir / "b").status, FileCacheStatus::kMiss);
  EXPECT_EQ(cache.Stats().bytes, 6500u);
  EXPECT_EQ(cache.AttachVariant(b, "gzip", reinterpret_cast<const uint8_t*>(gz.data()), 10),
            nullptr);  // b is gone
}

TEST(FileCache, InvalidateAndClear) {
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "d").c_str(), 0755), 0);
  WriteFile(dir / "d/x", "x");
  WriteFile(dir / "d/y", "y");
  WriteFile(dir / "z", "z");
  FileCache cache(OptionsFor(dir));
  for (const char* name : {"d/x", "d/y", "z"}) cache.Load(dir / name);
  cache.Invalidate(dir / "d/");
  EXPECT_EQ(cache.Stats().entries, 1u);
  cache.Invalidate(dir / "z");
  EXPECT_EQ(cache.Stats().entries, 0u);
  cache.Load(dir / "z");
  cache.Clear();
  EXPECT_EQ(cache.Stats().bytes, 0u);
}

// Readers and loaders on several threads while a writer keeps replacing files: every body seen
// is one whole version, and the tag always matches the bytes.
TEST(FileCache, ConcurrentLoadsAndEdits) {
  TempDir dir;
  const int kFiles = 8;
  for (int i = 0; i < kFiles; ++i) WriteFile(dir / std::to_string(i), std::string(1000, 'a'));
  FileCacheOptions options = OptionsFor(dir);
  options.max_bytes = 5000;  // forces evictions too
  FileCache cache(options);
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      int i = t;
      while (!stop.load()) {
        FileCacheResult r = cache.Load(dir / std::to_string(i++ % kFiles));
        if (r.file) {
          const std::string body = BodyOf(r);
          const bool whole = !body.empty() && body == std::string(body.size(), body[0]);
          if (!whole || r.file->body->etag != EntityTag(body.data(), body.size(), true)) ++bad;
          cache.Touch(r.file->id);
        }
      }
    });
  }
  for (int round = 0; round < 200; ++round) {
    const std::string name = std::to_string(round % kFiles);
    WriteFile(dir / ("tmp" + name), std::string(900 + round, static_cast<char>('b' + round % 20)));
    rename((dir / ("tmp" + name)).c_str(), (dir / name).c_str());
  }
  stop.store(true);
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_LE(cache.Stats().bytes, options.max_bytes);
  // After the dust settles every file reads as its last version.
  for (int i = 0; i < kFiles; ++i) {
    const std::string path = dir / std::to_string(i);
    std::ifstream in(path, std::ios::binary);
    const std::string expected((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    EXPECT_TRUE(Eventually([&] { return BodyOf(cache.Load(path)) == expected; })) << path;
  }
}

// A writer rewrites a file in place (truncate, then 512-byte writes, as cp or rsync --inplace
// do) while it is loaded again and again: a reading that the file changed under is read again,
// so a file that stays under max_file_size is never reported too large, and whatever is served
// carries the tag of exactly its bytes.
TEST(FileCache, FileRewrittenDuringItsReadIsReadAgainNeverTooLarge) {
  TempDir dir;
  const std::string path = dir / "churn.bin";
  WriteFile(path, std::string(1000, 'a'));
  FileCacheOptions options = OptionsFor(dir);  // max_file_size 64 KiB
  FileCache cache(options);
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::string last;
  std::thread writer([&] {
    uint32_t seed = 12345;
    while (!stop.load()) {
      seed = seed * 1103515245u + 12345u;
      const size_t size = 1000 + (seed >> 8) % (48 << 10);
      const std::string content(size, static_cast<char>('a' + (seed >> 4) % 26));
      FILE* out = fopen(path.c_str(), "wb");
      if (out == nullptr) continue;
      setvbuf(out, nullptr, _IONBF, 0);
      for (size_t at = 0; at < size; at += 512)
        fwrite(content.data() + at, 1, std::min<size_t>(512, size - at), out);
      fclose(out);
      last = content;
      ++writes;
    }
  });
  int too_large = 0;
  int bad_tag = 0;
  // Until enough readings overlapped a write (a few hundred ms here), at most five seconds.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline &&
         (cache.Stats().rereads < 50 || writes.load() < 20)) {
    cache.Invalidate(path);
    const FileCacheResult r = cache.Load(path);
    if (r.status == FileCacheStatus::kTooLarge) ++too_large;
    if (r.status != FileCacheStatus::kLoaded) continue;
    const std::string body = BodyOf(r);
    if (r.file->body->etag != EntityTag(body.data(), body.size(), true)) ++bad_tag;
  }
  stop.store(true);
  writer.join();
  EXPECT_EQ(too_large, 0);
  EXPECT_EQ(bad_tag, 0);
  const FileCacheStats stats = cache.Stats();
  EXPECT_GT(stats.rereads, 0u) << "no reading overlapped a write: the test proved nothing";
  EXPECT_TRUE(Eventually([&] { return BodyOf(cache.Load(path)) == last; }));
}

}  // namespace
}  // namespace ssr_native
