// Memory for cached file bodies. Blocks of 64 KiB and more come straight from mmap, so freeing
// an evicted body gives its pages back to the system at once: malloc would keep them in the
// arena of whichever pool thread allocated them, and resident memory would outgrow maxBytes.
#ifndef SSR_NATIVE_BLOB_BYTES_H_
#define SSR_NATIVE_BLOB_BYTES_H_

#include <cstddef>
#include <cstdint>

namespace ssr_native {

class BlobBytes {
 public:
  BlobBytes() = default;
  /// `size` writable bytes (at least one byte is reserved, so get() is never null).
  /// Throws std::bad_alloc when the memory cannot be had.
  explicit BlobBytes(size_t size);
  ~BlobBytes() { Release(); }
  BlobBytes(BlobBytes&& other) noexcept;
  BlobBytes& operator=(BlobBytes&& other) noexcept;
  BlobBytes(const BlobBytes&) = delete;
  BlobBytes& operator=(const BlobBytes&) = delete;

  uint8_t* get() const { return data_; }
  size_t capacity() const { return capacity_; }

 private:
  void Release();
  uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
  bool mapped_ = false;
};

}  // namespace ssr_native

#endif  // SSR_NATIVE_BLOB_BYTES_H_
