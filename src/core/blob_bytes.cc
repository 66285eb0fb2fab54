#include "ssr_native/blob_bytes.h"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace ssr_native {
namespace {

constexpr size_t kMapThreshold = 64 * 1024;

}  // namespace

BlobBytes::BlobBytes(size_t size) {
  capacity_ = size == 0 ? 1 : size;
  if (capacity_ >= kMapThreshold) {
    void* p = mmap(nullptr, capacity_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      data_ = static_cast<uint8_t*>(p);
      mapped_ = true;
      return;
    }
  }
  data_ = new uint8_t[capacity_];
}

BlobBytes::BlobBytes(BlobBytes&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      capacity_(std::exchange(other.capacity_, 0)),
      mapped_(std::exchange(other.mapped_, false)) {}

BlobBytes& BlobBytes::operator=(BlobBytes&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
    mapped_ = std::exchange(other.mapped_, false);
  }
  return *this;
}

void BlobBytes::Release() {
  if (data_ == nullptr) return;
  if (mapped_) {
    munmap(data_, capacity_);
  } else {
    delete[] data_;
  }
  data_ = nullptr;
}

}  // namespace ssr_native
