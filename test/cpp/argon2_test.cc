// BLAKE2b and Argon2 against published vectors (RFC 7693, RFC 9106, the PHC reference
// strings), run on every block-filling kernel this CPU supports, and the kernels against
// each other on random blocks.
#include "ssr_native/argon2.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../../src/core/argon2_internal.h"
#include "ssr_native/blake2b.h"

namespace ssr_native {
namespace {

using argon2_internal::Block;

std::string Hex(const uint8_t* data, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    out += kDigits[data[i] >> 4];
    out += kDigits[data[i] & 15];
  }
  return out;
}

std::vector<uint8_t> FromBase64(const std::string& text) {
  std::vector<uint8_t> out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* p = std::strchr(alphabet, c);
    if (p == nullptr || c == '\0') continue;
    bits = (bits << 6) | static_cast<uint32_t>(p - alphabet);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<uint8_t>(bits >> count));
    }
  }
  return out;
}

std::vector<uint8_t> Bytes(const std::string& s) {
  return std::vector<uint8_t>(s.begin(), s.end());
}

// Inputs that borrow `password` and `salt` (no secret, no associated data).
Argon2Inputs InputsOf(const std::vector<uint8_t>& password, const std::vector<uint8_t>& salt) {
  Argon2Inputs in;
  in.password = password.data();
  in.password_size = password.size();
  in.salt = salt.data();
  in.salt_size = salt.size();
  return in;
}

TEST(Blake2b, Rfc7693Abc) {
  const uint8_t abc[] = {'a', 'b', 'c'};
  uint8_t out[64];
  Blake2bHash(out, 64, abc, 3);
  EXPECT_EQ(Hex(out, 64),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
}

TEST(Blake2b, EmptyAndIncrementalMatchOneShot) {
  uint8_t out[64];
  Blake2bHash(out, 64, nullptr, 0);
  EXPECT_EQ(Hex(out, 64),
            "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
            "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce");
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  uint8_t one_shot[64];
  Blake2bHash(one_shot, 64, data.data(), data.size());
  for (size_t split : {0, 1, 127, 128, 129, 256, 999}) {
    Blake2b h;
    ASSERT_TRUE(h.Init(64));
    h.Update(data.data(), split);
    h.Update(data.data() + split, data.size() - split);
    uint8_t incremental[64];
    h.Final(incremental);
    EXPECT_EQ(Hex(incremental, 64), Hex(one_shot, 64)) << "split " << split;
  }
}

TEST(Blake2b, Keyed) {
  // RFC 7693 Appendix E self-test style: key 0..63, empty message (the BLAKE2 KAT vector).
  uint8_t key[64];
  for (int i = 0; i < 64; ++i) key[i] = static_cast<uint8_t>(i);
  Blake2b h;
  ASSERT_TRUE(h.Init(64, key, 64));
  uint8_t out[64];
  h.Final(out);
  EXPECT_EQ(Hex(out, 64),
            "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786"
            "b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568");
  EXPECT_FALSE(h.Init(0));
  EXPECT_FALSE(h.Init(65));
}

class Argon2KernelTest : public ::testing::TestWithParam<Argon2Kernel> {
 protected:
  void SetUp() override {
    if (!Argon2KernelAvailable(GetParam())) {
      GTEST_SKIP() << Argon2KernelName(GetParam()) << " is not supported on this CPU";
    }
  }

  std::string Hash(Argon2Type type, uint32_t version, uint32_t m, uint32_t t, uint32_t p,
                   const std::vector<uint8_t>& password, const std::vector<uint8_t>& salt,
                   const std::vector<uint8_t>& secret, const std::vector<uint8_t>& ad,
                   size_t tag_size) {
    Argon2Params params;
    params.type = type;
    params.version = version;
    params.memory_kib = m;
    params.passes = t;
    params.lanes = p;
    params.kernel = GetParam();
    Argon2Inputs in = InputsOf(password, salt);
    in.secret = secret.data();
    in.secret_size = secret.size();
    in.associated_data = ad.data();
    in.associated_data_size = ad.size();
    std::vector<uint8_t> tag(tag_size);
    const Argon2Status status = Argon2Hash(params, in, tag.data(), tag.size());
    EXPECT_EQ(status, Argon2Status::kOk) << Argon2StatusMessage(status);
    return Hex(tag.data(), tag.size());
  }
};

TEST_P(Argon2KernelTest, Rfc9106Vectors) {
  const std::vector<uint8_t> password(32, 0x01), salt(16, 0x02), secret(8, 0x03), ad(12, 0x04);
  EXPECT_EQ(Hash(Argon2Type::kD, 0x13, 32, 3, 4, password, salt, secret, ad, 32),
            "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb");
  EXPECT_EQ(Hash(Argon2Type::kI, 0x13, 32, 3, 4, password, salt, secret, ad, 32),
            "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8");
  EXPECT_EQ(Hash(Argon2Type::kId, 0x13, 32, 3, 4, password, salt, secret, ad, 32),
            "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659");
}

TEST_P(Argon2KernelTest, PhcReferenceStrings) {
  const auto password = Bytes("password"), salt = Bytes("somesalt");
  // $argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc
  auto expected = FromBase64("CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc");
  EXPECT_EQ(Hash(Argon2Type::kId, 0x13, 65536, 2, 1, password, salt, {}, {}, 32),
            Hex(expected.data(), expected.size()));
  // $argon2id$v=19$m=256,t=2,p=2$c29tZXNhbHQ$bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc
  expected = FromBase64("bQk8UB/VmZZF4Oo79iDXuL5/0ttZwg2f/5U52iv1cDc");
  EXPECT_EQ(Hash(Argon2Type::kId, 0x13, 256, 2, 2, password, salt, {}, {}, 32),
            Hex(expected.data(), expected.size()));
  // Version 0x10 (overwrite, no XOR): $argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89...
  EXPECT_EQ(Hash(Argon2Type::kI, 0x10, 65536, 2, 1, password, salt, {}, {}, 32),
            "f6c4db4a54e2a370627aff3db6176b94a2a209a62c8e36152711802f7b30c694");
}

TEST_P(Argon2KernelTest, LongAndShortTags) {
  // Tags longer than 64 bytes go through H' chaining; the kernels must agree with portable.
  const auto password = Bytes("password"), salt = Bytes("saltsaltsalt");
  const std::string tag = Hash(Argon2Type::kId, 0x13, 64, 1, 2, password, salt, {}, {}, 200);
  Argon2Params params;
  params.memory_kib = 64;
  params.passes = 1;
  params.lanes = 2;
  params.kernel = Argon2Kernel::kPortable;
  Argon2Inputs in = InputsOf(password, salt);
  std::vector<uint8_t> out(200);
  ASSERT_EQ(Argon2Hash(params, in, out.data(), out.size()), Argon2Status::kOk);
  EXPECT_EQ(tag, Hex(out.data(), out.size()));
  EXPECT_EQ(Hash(Argon2Type::kD, 0x13, 8, 1, 1, password, salt, {}, {}, 4).size(), 8u);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Argon2KernelTest,
                         ::testing::Values(Argon2Kernel::kPortable, Argon2Kernel::kAvx2,
                                           Argon2Kernel::kAvx512),
                         [](const ::testing::TestParamInfo<Argon2Kernel>& info) {
                           return std::string(Argon2KernelName(info.param));
                         });

TEST(Argon2Kernels, AgreeOnRandomBlocks) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 200; ++round) {
    Block prev, ref, start;
    for (auto& w : prev.v) w = rng();
    for (auto& w : ref.v) w = rng();
    for (auto& w : start.v) w = rng();
    for (bool xor_into : {false, true}) {
      Block expected = start;
      argon2_internal::FillBlockPortable(prev, ref, &expected, xor_into, nullptr);
      if (Argon2KernelAvailable(Argon2Kernel::kAvx2)) {
        Block got = start;
        argon2_internal::FillBlockAvx2(prev, ref, &got, xor_into, nullptr);
        ASSERT_EQ(0, std::memcmp(got.v, expected.v, sizeof(got.v))) << "avx2 round " << round;
      }
      if (Argon2KernelAvailable(Argon2Kernel::kAvx512)) {
        Block got = start;
        argon2_internal::FillBlockAvx512(prev, ref, &got, xor_into, nullptr);
        ASSERT_EQ(0, std::memcmp(got.v, expected.v, sizeof(got.v))) << "avx512 round " << round;
      }
    }
  }
}

TEST(Argon2, ValidationMatchesLibargon2Order) {
  const auto password = Bytes("pw"), salt = Bytes("saltsalt"), short_salt = Bytes("salt");
  Argon2Inputs in = InputsOf(password, salt);
  Argon2Params p;
  p.memory_kib = 64;
  p.passes = 1;
  p.lanes = 1;
  EXPECT_EQ(Argon2Validate(p, in, 32), Argon2Status::kOk);
  EXPECT_EQ(Argon2Validate(p, in, 3), Argon2Status::kOutputTooShort);
  Argon2Inputs bad_salt = in;
  bad_salt.salt = short_salt.data();
  bad_salt.salt_size = short_salt.size();
  EXPECT_EQ(Argon2Validate(p, bad_salt, 32), Argon2Status::kSaltTooShort);
  Argon2Params q = p;
  q.memory_kib = 7;
  EXPECT_EQ(Argon2Validate(q, in, 32), Argon2Status::kMemoryTooLittle);
  q = p;
  q.memory_kib = 16;
  q.lanes = 4;  // m < 8p
  EXPECT_EQ(Argon2Validate(q, in, 32), Argon2Status::kMemoryTooLittle);
  q = p;
  q.passes = 0;
  EXPECT_EQ(Argon2Validate(q, in, 32), Argon2Status::kTimeTooSmall);
  q = p;
  q.lanes = 0;
  EXPECT_EQ(Argon2Validate(q, in, 32), Argon2Status::kLanesTooFew);
  q = p;
  q.type = static_cast<Argon2Type>(3);
  EXPECT_EQ(Argon2Validate(q, in, 32), Argon2Status::kIncorrectType);
  EXPECT_STREQ(Argon2StatusMessage(Argon2Status::kIncorrectType),
               "There is no such version of Argon2");
  uint8_t tag[32];
  EXPECT_EQ(Argon2Hash(q, in, tag, sizeof(tag)), Argon2Status::kIncorrectType);
}

TEST(Argon2, ParallelForGivesTheSameTag) {
  const auto password = Bytes("password"), salt = Bytes("somesalt");
  Argon2Params params;
  params.memory_kib = 256;
  params.passes = 2;
  params.lanes = 2;
  Argon2Inputs in = InputsOf(password, salt);
  int calls = 0;
  // Runs lanes in reverse order: lanes of a slice must not depend on each other.
  ParallelFor reversed = [&](uint32_t count, const std::function<void(uint32_t)>& body) {
    ++calls;
    for (uint32_t i = count; i-- > 0;) body(i);
  };
  const std::string expected = "6d093c501fd5999645e0ea3bf620d7b8be7fd2db59c20d9fff9539da2bf57037";
  uint8_t tag[32];
  // One idle helper: two threads for two lanes, so lanes go one by one.
  ASSERT_EQ(Argon2Hash(params, in, tag, sizeof(tag), reversed, [] { return 1u; }),
            Argon2Status::kOk);
  EXPECT_EQ(calls, 8);  // 2 passes x 4 slices
  EXPECT_EQ(Hex(tag, 32), expected);
  // No idle helper: the two lanes go as one interleaved pair on the calling thread.
  calls = 0;
  ASSERT_EQ(Argon2Hash(params, in, tag, sizeof(tag), reversed), Argon2Status::kOk);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(Hex(tag, 32), expected);
}

TEST(Argon2, OddLaneCountsPairAndSplit) {
  // p=3 and p=5: pairs plus a lone lane, sequentially and split over "threads".
  const auto password = Bytes("password"), salt = Bytes("somesalt");
  Argon2Inputs in = InputsOf(password, salt);
  for (uint32_t lanes : {3u, 5u}) {
    Argon2Params params;
    params.memory_kib = 8 * lanes * 4;
    params.passes = 2;
    params.lanes = lanes;
    params.kernel = Argon2Kernel::kPortable;
    uint8_t one_by_one[32], paired[32], split[32];
    ParallelFor in_order = [](uint32_t count, const std::function<void(uint32_t)>& body) {
      for (uint32_t i = 0; i < count; ++i) body(i);
    };
    ASSERT_EQ(Argon2Hash(params, in, one_by_one, 32, in_order, [] { return 100u; }),
              Argon2Status::kOk);
    ASSERT_EQ(Argon2Hash(params, in, paired, 32), Argon2Status::kOk);
    ASSERT_EQ(Argon2Hash(params, in, split, 32, in_order, [] { return 0u; }), Argon2Status::kOk);
    EXPECT_EQ(Hex(paired, 32), Hex(one_by_one, 32)) << lanes;
    EXPECT_EQ(Hex(split, 32), Hex(one_by_one, 32)) << lanes;
  }
}

TEST(Argon2, ReusedThreadMemoryGivesTheSameTags) {
  const auto password = Bytes("password"), salt = Bytes("somesalt");
  Argon2Inputs in = InputsOf(password, salt);
  Argon2Params params;
  params.passes = 2;
  params.lanes = 2;
  params.reuse_thread_memory = true;
  // Big, small, big again, then an odd size: each reuses (or replaces) the kept memory,
  // which was wiped after the previous hash; the tags must not depend on that history.
  for (uint32_t m : {4096u, 256u, 4096u, 3000u, 256u}) {
    params.memory_kib = m;
    uint8_t kept[32], fresh[32];
    ASSERT_EQ(Argon2Hash(params, in, kept, sizeof(kept)), Argon2Status::kOk);
    Argon2Params once = params;
    once.reuse_thread_memory = false;
    ASSERT_EQ(Argon2Hash(once, in, fresh, sizeof(fresh)), Argon2Status::kOk);
    EXPECT_EQ(Hex(kept, 32), Hex(fresh, 32)) << "m=" << m;
    if (m == 256) {
      EXPECT_EQ(Hex(kept, 32), "6d093c501fd5999645e0ea3bf620d7b8be7fd2db59c20d9fff9539da2bf57037");
    }
  }
  Argon2ReleaseThreadMemory();
  Argon2ReleaseThreadMemory();  // twice is fine
}

TEST(Argon2, ConstantTimeEqual) {
  const uint8_t a[] = {1, 2, 3, 4}, b[] = {1, 2, 3, 4}, c[] = {1, 2, 3, 5};
  EXPECT_TRUE(ConstantTimeEqual(a, b, 4));
  EXPECT_FALSE(ConstantTimeEqual(a, c, 4));
  EXPECT_TRUE(ConstantTimeEqual(a, c, 3));
  EXPECT_TRUE(ConstantTimeEqual(a, c, 0));
}

}  // namespace
}  // namespace ssr_native
