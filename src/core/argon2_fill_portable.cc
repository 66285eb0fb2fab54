// The portable Argon2 block function: plain 64-bit arithmetic, any CPU.
#include "argon2_internal.h"

namespace ssr_native {
namespace argon2_internal {
namespace {

inline uint64_t Rotr(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

// BlaMka: a + b + 2 * lo32(a) * lo32(b), BLAKE2b's addition made multiplication-hard.
inline uint64_t BlaMka(uint64_t a, uint64_t b) {
  return a + b + 2 * (a & 0xFFFFFFFFULL) * (b & 0xFFFFFFFFULL);
}

inline void G(uint64_t& a, uint64_t& b, uint64_t& c, uint64_t& d) {
  a = BlaMka(a, b);
  d = Rotr(d ^ a, 32);
  c = BlaMka(c, d);
  b = Rotr(b ^ c, 24);
  a = BlaMka(a, b);
  d = Rotr(d ^ a, 16);
  c = BlaMka(c, d);
  b = Rotr(b ^ c, 63);
}

// The permutation P on 16 words given by their indices into the block.
inline void Permute(uint64_t* w, const int (&i)[16]) {
  G(w[i[0]], w[i[4]], w[i[8]], w[i[12]]);
  G(w[i[1]], w[i[5]], w[i[9]], w[i[13]]);
  G(w[i[2]], w[i[6]], w[i[10]], w[i[14]]);
  G(w[i[3]], w[i[7]], w[i[11]], w[i[15]]);
  G(w[i[0]], w[i[5]], w[i[10]], w[i[15]]);
  G(w[i[1]], w[i[6]], w[i[11]], w[i[12]]);
  G(w[i[2]], w[i[7]], w[i[8]], w[i[13]]);
  G(w[i[3]], w[i[4]], w[i[9]], w[i[14]]);
}

}  // namespace

void FillBlockPortable(const Block& prev, const Block& ref, Block* next, bool xor_into_next,
                       const NextBlockHint* hint) {
  Block r;  // R = prev ^ ref
  Block q;  // Q = P(R), then the output
  for (size_t k = 0; k < kWordsPerBlock; ++k) r.v[k] = q.v[k] = prev.v[k] ^ ref.v[k];
  // Rows: registers 8i .. 8i+7, i.e. words 16i .. 16i+15.
  for (int row = 0; row < 8; ++row) {
    int idx[16];
    for (int k = 0; k < 16; ++k) idx[k] = 16 * row + k;
    Permute(q.v, idx);
  }
  // Columns: registers i, i+8, ..., i+56, i.e. word pairs 2i + 16k, 2i + 16k + 1.
  for (int col = 0; col < 8; ++col) {
    int idx[16];
    for (int k = 0; k < 8; ++k) {
      idx[2 * k] = 2 * col + 16 * k;
      idx[2 * k + 1] = 2 * col + 16 * k + 1;
    }
    Permute(q.v, idx);
  }
  if (xor_into_next) {
    for (size_t k = 0; k < kWordsPerBlock; ++k) next->v[k] ^= q.v[k] ^ r.v[k];
  } else {
    for (size_t k = 0; k < kWordsPerBlock; ++k) next->v[k] = q.v[k] ^ r.v[k];
  }
  if (hint != nullptr) hint->fn(hint->context, next->v[0]);
}

}  // namespace argon2_internal
}  // namespace ssr_native
