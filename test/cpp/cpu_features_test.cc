#include "ssr_native/cpu_features.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "ssr_native/crc32.h"

namespace ssr_native {
namespace {

TEST(CpuFeatures, ImpliedFeaturesAreConsistent) {
  const CpuFeatures& f = GetCpuFeatures();
  // AVX-512 sub-features are only reported together with the foundation.
  if (f.avx512bw || f.avx512vl) {
    EXPECT_TRUE(f.avx512f);
  }
  EXPECT_EQ(&f, &GetCpuFeatures());  // detected once
}

// The kernel's view of the CPU (it drops AVX/AVX-512 flags the OS does not save), or an empty
// set where there is no x86 /proc/cpuinfo.
std::set<std::string> CpuinfoFlags() {
  std::set<std::string> flags;
#if defined(__x86_64__) || defined(__i386__)
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::string word;
    while (words >> word) flags.insert(word);
    break;
  }
#endif
  return flags;
}

TEST(CpuFeatures, AgreeWithProcCpuinfo) {
  const std::set<std::string> flags = CpuinfoFlags();
  if (flags.empty()) GTEST_SKIP() << "no x86 /proc/cpuinfo flags here: cannot check detection";
  const CpuFeatures& f = GetCpuFeatures();
  EXPECT_EQ(f.sse41, flags.count("sse4_1") == 1);
  EXPECT_EQ(f.pclmulqdq, flags.count("pclmulqdq") == 1);
  EXPECT_EQ(f.avx2, flags.count("avx2") == 1);
  EXPECT_EQ(f.avx512f, flags.count("avx512f") == 1);
  EXPECT_EQ(f.avx512bw, flags.count("avx512bw") == 1);
  EXPECT_EQ(f.avx512vl, flags.count("avx512vl") == 1);
  EXPECT_EQ(f.vpclmulqdq, flags.count("vpclmulqdq") == 1);
}

TEST(CpuFeatures, FastestCrc32PathIsChosen) {
  const std::set<std::string> flags = CpuinfoFlags();
  if (flags.empty()) GTEST_SKIP() << "no x86 /proc/cpuinfo flags here: cannot check dispatch";
  auto has = [&](std::initializer_list<const char*> names) {
    for (const char* n : names) {
      if (flags.count(n) == 0) return false;
    }
    return true;
  };
  if (has({"sse4_1", "pclmulqdq", "avx512f", "avx512bw", "avx512vl", "vpclmulqdq"})) {
    EXPECT_EQ(Crc32ActivePath(), Crc32Path::kVpclmul512);
  } else if (has({"sse4_1", "pclmulqdq", "avx2", "vpclmulqdq"})) {
    EXPECT_EQ(Crc32ActivePath(), Crc32Path::kVpclmul256);
  } else if (has({"sse4_1", "pclmulqdq"})) {
    EXPECT_EQ(Crc32ActivePath(), Crc32Path::kPclmul);
  } else {
    std::printf("[ NOTE     ] no PCLMULQDQ: the portable CRC-32 path is expected\n");
    EXPECT_FALSE(Crc32PathAvailable(Crc32Path::kPclmul));
  }
}

}  // namespace
}  // namespace ssr_native
