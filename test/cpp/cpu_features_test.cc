#include "ssr_native/cpu_features.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ssr_native
