// SharedPermits: slots are exclusive across processes (and across two opens in one process),
// released ones are free again, a process killed while holding one gives it back, and a lock
// file that is not ours (another owner, group/other permissions, a link, a directory or FIFO) is
// refused with a message naming it, where a file we created or own with mode 0600 is used.
#include "ssr_native/shared_permits.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace ssr_native {
namespace {

std::string LockPath(const char* name) {
  return std::string("/tmp/ssr-native-shared-permits-test-") + name + "-" +
         std::to_string(getpid());
}

TEST(SharedPermits, SlotsAreExclusiveAcrossOpens) {
  const std::string path = LockPath("exclusive");
  std::string error;
  auto a = SharedPermits::Open(path, 2, &error);
  auto b = SharedPermits::Open(path, 2, &error);  // another open file description
  ASSERT_NE(a, nullptr) << error;
  ASSERT_NE(b, nullptr) << error;
  unsigned s1 = 9, s2 = 9, s3 = 9;
  ASSERT_TRUE(a->TryAcquire(&s1));
  ASSERT_TRUE(b->TryAcquire(&s2));
  EXPECT_NE(s1, s2);
  EXPECT_FALSE(a->TryAcquire(&s3));  // both slots held, one by each
  EXPECT_FALSE(b->TryAcquire(&s3));
  EXPECT_EQ(a->HeldMachineWide(), 2u);
  EXPECT_EQ(a->HeldHere(), 1u);
  b->Release(s2);
  EXPECT_EQ(a->HeldMachineWide(), 1u);
  ASSERT_TRUE(a->TryAcquire(&s3));
  EXPECT_EQ(s3, s2);
  EXPECT_EQ(a->HeldHere(), 2u);
  a->Release(s1);
  a->Release(s3);
  EXPECT_EQ(b->HeldMachineWide(), 0u);
  std::remove(path.c_str());
}

TEST(SharedPermits, AProcessKilledHoldingASlotGivesItBack) {
  const std::string path = LockPath("killed");
  std::string error;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child opens the budget itself and holds both slots until it is killed.
    auto permits = SharedPermits::Open(path, 2, &error);
    unsigned slot;
    const bool ok = permits != nullptr && permits->TryAcquire(&slot) && permits->TryAcquire(&slot);
    const char byte = ok ? '1' : '0';
    if (write(ready[1], &byte, 1) != 1) _exit(2);
    for (;;) pause();
  }
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  ASSERT_EQ(byte, '1');
  auto permits = SharedPermits::Open(path, 2, &error);
  ASSERT_NE(permits, nullptr) << error;
  unsigned slot;
  EXPECT_FALSE(permits->TryAcquire(&slot));
  EXPECT_EQ(permits->HeldMachineWide(), 2u);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  // Both permits are free again, with no cleanup by anyone.
  EXPECT_EQ(permits->HeldMachineWide(), 0u);
  EXPECT_TRUE(permits->TryAcquire(&slot));
  EXPECT_TRUE(permits->TryAcquire(&slot));
  close(ready[0]);
  close(ready[1]);
  std::remove(path.c_str());
}

TEST(SharedPermits, RejectsZeroSlotsAndUnopenablePaths) {
  std::string error;
  EXPECT_EQ(SharedPermits::Open(LockPath("zero"), 0, &error), nullptr);
  EXPECT_EQ(SharedPermits::Open("/nonexistent-dir/x.lock", 2, &error), nullptr);
  EXPECT_NE(error.find("/nonexistent-dir/x.lock"), std::string::npos);
}

// Creates `path` as a plain file with exactly `mode` (the umask does not apply to fchmod).
void MakeFile(const std::string& path, mode_t mode) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(fchmod(fd, mode), 0);
  close(fd);
}

// Open must fail with an error that names the file and contains `why`.
void ExpectRefused(const std::string& path, const std::string& why) {
  std::string error;
  EXPECT_EQ(SharedPermits::Open(path, 2, &error), nullptr) << path << " was accepted";
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_NE(error.find(why), std::string::npos) << error;
}

TEST(SharedPermits, CreatesItsFileWithMode0600WhateverTheUmask) {
  const std::string path = LockPath("created");
  std::remove(path.c_str());
  const mode_t old_mask = umask(0);
  std::string error;
  auto permits = SharedPermits::Open(path, 2, &error);
  umask(old_mask);
  ASSERT_NE(permits, nullptr) << error;
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, geteuid());
  std::remove(path.c_str());
}

TEST(SharedPermits, UsesAnExistingFileThatIsOurs) {
  const std::string path = LockPath("ours");
  MakeFile(path, 0600);
  std::string error;
  auto permits = SharedPermits::Open(path, 2, &error);
  ASSERT_NE(permits, nullptr) << error;
  unsigned slot;
  EXPECT_TRUE(permits->TryAcquire(&slot));
  std::remove(path.c_str());
}

TEST(SharedPermits, RefusesAFileOthersMayOpen) {
  for (mode_t mode : {0666, 0660, 0604, 0640, 0602}) {
    const std::string path = LockPath("mode");
    MakeFile(path, mode);
    ExpectRefused(path, "lets other users open it");
    std::remove(path.c_str());
  }
}

TEST(SharedPermits, RefusesAFileOwnedByAnotherUser) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to give a file to another uid (fchown to 65534)";
  }
  const std::string path = LockPath("foreign");
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fchown(fd, 65534, 65534), 0);
  close(fd);
  ExpectRefused(path, "owned by uid 65534");
  std::remove(path.c_str());
}

TEST(SharedPermits, RefusesASymbolicLinkEvenToAFileOfOurs) {
  const std::string target = LockPath("link-target");
  const std::string path = LockPath("symlink");
  MakeFile(target, 0600);
  ASSERT_EQ(symlink(target.c_str(), path.c_str()), 0);
  ExpectRefused(path, "symbolic link");
  std::remove(path.c_str());
  std::remove(target.c_str());
}

TEST(SharedPermits, RefusesAHardLinkedFile) {
  const std::string path = LockPath("hardlink");
  const std::string other = LockPath("hardlink-other");
  MakeFile(path, 0600);
  ASSERT_EQ(link(path.c_str(), other.c_str()), 0);
  ExpectRefused(path, "hard links");
  std::remove(path.c_str());
  std::remove(other.c_str());
}

TEST(SharedPermits, RefusesADirectoryAndAFifo) {
  const std::string dir = LockPath("dir");
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  std::string error;
  EXPECT_EQ(SharedPermits::Open(dir, 2, &error), nullptr);
  EXPECT_NE(error.find(dir), std::string::npos) << error;
  rmdir(dir.c_str());

  const std::string fifo = LockPath("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ExpectRefused(fifo, "not a regular file");  // and the open did not block
  std::remove(fifo.c_str());
}

}  // namespace
}  // namespace ssr_native
