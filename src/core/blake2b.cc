// BLAKE2b from RFC 7693, written for Argon2's use: short messages, sequential, no tree mode.
#include "ssr_native/blake2b.h"

#include <algorithm>
#include <cstring>

namespace ssr_native {
namespace {

constexpr uint64_t kIv[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

constexpr uint8_t kSigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

inline uint64_t Rotr(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

inline void Store64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

inline void Mix(uint64_t* v, int a, int b, int c, int d, uint64_t x, uint64_t y) {
  v[a] = v[a] + v[b] + x;
  v[d] = Rotr(v[d] ^ v[a], 32);
  v[c] = v[c] + v[d];
  v[b] = Rotr(v[b] ^ v[c], 24);
  v[a] = v[a] + v[b] + y;
  v[d] = Rotr(v[d] ^ v[a], 16);
  v[c] = v[c] + v[d];
  v[b] = Rotr(v[b] ^ v[c], 63);
}

}  // namespace

void SecureWipe(void* data, size_t size) {
  if (size == 0) return;
  std::memset(data, 0, size);
  // The empty asm with a memory clobber tells the compiler the zeros are observed.
  __asm__ __volatile__("" : : "r"(data) : "memory");
}

bool Blake2b::Init(size_t digest_size, const uint8_t* key, size_t key_size) {
  if (digest_size == 0 || digest_size > kMaxDigestSize || key_size > kMaxKeySize) {
    digest_size_ = 0;
    return false;
  }
  std::copy(kIv, kIv + 8, h_);
  h_[0] ^= 0x01010000ULL ^ (static_cast<uint64_t>(key_size) << 8) ^ digest_size;
  t_[0] = t_[1] = 0;
  buffered_ = 0;
  digest_size_ = digest_size;
  if (key_size > 0) {
    uint8_t block[kBlockSize] = {};
    std::memcpy(block, key, key_size);
    Update(block, kBlockSize);
    SecureWipe(block, sizeof(block));
  }
  return true;
}

void Blake2b::Compress(const uint8_t* block, bool last) {
  uint64_t m[16];
  uint64_t v[16];
  for (int i = 0; i < 16; ++i) m[i] = Load64(block + 8 * i);
  for (int i = 0; i < 8; ++i) {
    v[i] = h_[i];
    v[i + 8] = kIv[i];
  }
  v[12] ^= t_[0];
  v[13] ^= t_[1];
  if (last) v[14] = ~v[14];
  for (const auto& s : kSigma) {
    Mix(v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
    Mix(v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
    Mix(v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
    Mix(v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
    Mix(v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
    Mix(v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
    Mix(v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
    Mix(v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; ++i) h_[i] ^= v[i] ^ v[i + 8];
  SecureWipe(m, sizeof(m));
  SecureWipe(v, sizeof(v));
}

void Blake2b::Update(const uint8_t* data, size_t size) {
  // The last block must go through Compress(last = true), so a full buffer is only
  // compressed once more input arrives.
  while (size > 0) {
    if (buffered_ == kBlockSize) {
      t_[0] += kBlockSize;
      if (t_[0] < kBlockSize) ++t_[1];
      Compress(buffer_, false);
      buffered_ = 0;
    }
    const size_t take = std::min(size, kBlockSize - buffered_);
    std::memcpy(buffer_ + buffered_, data, take);
    buffered_ += take;
    data += take;
    size -= take;
  }
}

void Blake2b::Final(uint8_t* out) {
  t_[0] += buffered_;
  if (t_[0] < buffered_) ++t_[1];
  std::memset(buffer_ + buffered_, 0, kBlockSize - buffered_);
  Compress(buffer_, true);
  uint8_t full[kMaxDigestSize];
  for (int i = 0; i < 8; ++i) Store64(full + 8 * i, h_[i]);
  std::memcpy(out, full, digest_size_);
  SecureWipe(full, sizeof(full));
  SecureWipe(h_, sizeof(h_));
  SecureWipe(buffer_, sizeof(buffer_));
  buffered_ = 0;
}

Blake2b::~Blake2b() {
  SecureWipe(h_, sizeof(h_));
  SecureWipe(buffer_, sizeof(buffer_));
}

void Blake2bHash(uint8_t* out, size_t digest_size, const uint8_t* data, size_t size) {
  Blake2b state;
  state.Init(digest_size);
  state.Update(data, size);
  state.Final(out);
}

void Blake2bLong(uint8_t* out, size_t out_size, const uint8_t* data, size_t size) {
  uint8_t length[4];
  for (int i = 0; i < 4; ++i) length[i] = static_cast<uint8_t>(out_size >> (8 * i));
  Blake2b state;
  if (out_size <= Blake2b::kMaxDigestSize) {
    state.Init(out_size);
    state.Update(length, 4);
    state.Update(data, size);
    state.Final(out);
    return;
  }
  // V1 = H^64(LE32(T) || X); each next V_i = H^64(V_{i-1}); the first 32 bytes of each are
  // emitted, and the last V is as long as what remains.
  uint8_t v[Blake2b::kMaxDigestSize];
  state.Init(Blake2b::kMaxDigestSize);
  state.Update(length, 4);
  state.Update(data, size);
  state.Final(v);
  std::memcpy(out, v, 32);
  out += 32;
  size_t remaining = out_size - 32;
  while (remaining > Blake2b::kMaxDigestSize) {
    uint8_t next[Blake2b::kMaxDigestSize];
    Blake2bHash(next, Blake2b::kMaxDigestSize, v, Blake2b::kMaxDigestSize);
    std::memcpy(v, next, sizeof(v));
    SecureWipe(next, sizeof(next));
    std::memcpy(out, v, 32);
    out += 32;
    remaining -= 32;
  }
  uint8_t last[Blake2b::kMaxDigestSize];
  Blake2bHash(last, remaining, v, Blake2b::kMaxDigestSize);
  std::memcpy(out, last, remaining);
  SecureWipe(last, sizeof(last));
  SecureWipe(v, sizeof(v));
}

}  // namespace ssr_native
