// BLAKE2b (RFC 7693), the hash under Argon2: unkeyed or keyed, 1..64 byte digests.
#ifndef SSR_NATIVE_BLAKE2B_H_
#define SSR_NATIVE_BLAKE2B_H_

#include <cstddef>
#include <cstdint>

namespace ssr_native {

/// Incremental BLAKE2b. Init, any number of Update calls, one Final. Wipes its state in Final
/// and on destruction, because Argon2 feeds it passwords and secrets.
class Blake2b {
 public:
  static constexpr size_t kBlockSize = 128;
  static constexpr size_t kMaxDigestSize = 64;
  static constexpr size_t kMaxKeySize = 64;

  /// digest_size in 1..64, key_size in 0..64 (returns false otherwise and leaves the state
  /// unusable).
  bool Init(size_t digest_size, const uint8_t* key = nullptr, size_t key_size = 0);
  void Update(const uint8_t* data, size_t size);
  /// Writes digest_size bytes to out.
  void Final(uint8_t* out);
  ~Blake2b();

 private:
  void Compress(const uint8_t* block, bool last);

  uint64_t h_[8] = {};
  uint64_t t_[2] = {};
  uint8_t buffer_[kBlockSize] = {};
  size_t buffered_ = 0;
  size_t digest_size_ = 0;
};

/// One-shot BLAKE2b of `size` bytes into `digest_size` bytes.
void Blake2bHash(uint8_t* out, size_t digest_size, const uint8_t* data, size_t size);

/// Argon2's variable-length hash H' (RFC 9106 section 3.3): `out_size` bytes (>= 1) of
/// H'(LE32(out_size) || data).
void Blake2bLong(uint8_t* out, size_t out_size, const uint8_t* data, size_t size);

/// Overwrites `size` bytes with zeros in a way the compiler may not drop.
void SecureWipe(void* data, size_t size);

}  // namespace ssr_native

#endif  // SSR_NATIVE_BLAKE2B_H_
