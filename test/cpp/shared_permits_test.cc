// SharedPermits: slots are exclusive across processes (and across two opens in one process),
// released ones are free again, and a process killed while holding one gives it back.
#include "ssr_native/shared_permits.h"

#include <gtest/gtest.h>
#include <signal.h>
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

}  // namespace
}  // namespace ssr_native
