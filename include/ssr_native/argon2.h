// Argon2 (RFC 9106): Argon2d, Argon2i and Argon2id, versions 0x10 and 0x13.
#ifndef SSR_NATIVE_ARGON2_H_
#define SSR_NATIVE_ARGON2_H_

#include <cstddef>
#include <cstdint>
#include <functional>

namespace ssr_native {

enum class Argon2Type : uint32_t { kD = 0, kI = 1, kId = 2 };

/// Argon2 versions. Any other value is hashed as 0x13 (what libargon2 does), so the only
/// behaviour that differs is 0x10's overwrite instead of XOR in later passes.
constexpr uint32_t kArgon2Version10 = 0x10;
constexpr uint32_t kArgon2Version13 = 0x13;

/// Why a hash could not be computed. Messages match libargon2's, which the argon2 npm
/// package passes through to JavaScript.
enum class Argon2Status {
  kOk = 0,
  kOutputTooShort,
  kSaltTooShort,
  kMemoryTooLittle,
  kTimeTooSmall,
  kLanesTooFew,
  kLanesTooMany,
  kIncorrectType,
  kMemoryAllocationError,
};
const char* Argon2StatusMessage(Argon2Status status);

/// The block-filling kernels; each one computes the same function.
enum class Argon2Kernel { kAuto, kPortable, kAvx2, kAvx512 };
/// True if `kernel` can run on this CPU (kAuto and kPortable always can).
bool Argon2KernelAvailable(Argon2Kernel kernel);
/// The kernel kAuto resolves to on this machine.
Argon2Kernel Argon2BestKernel();
const char* Argon2KernelName(Argon2Kernel kernel);

struct Argon2Params {
  Argon2Type type = Argon2Type::kId;
  uint32_t version = kArgon2Version13;
  uint32_t memory_kib = 65536;  // m: memory in 1 KiB blocks
  uint32_t passes = 3;          // t
  uint32_t lanes = 4;           // p
  Argon2Kernel kernel = Argon2Kernel::kAuto;
  /// Keep the (wiped) memory in a per-thread cache for the next hash on this thread, which
  /// saves faulting 64 MiB of fresh pages in every time. For long-lived worker threads; see
  /// Argon2ReleaseThreadMemory.
  bool reuse_thread_memory = false;
};

/// Borrowed input bytes; every pointer may be null when its size is 0.
struct Argon2Inputs {
  const uint8_t* password = nullptr;
  size_t password_size = 0;
  const uint8_t* salt = nullptr;
  size_t salt_size = 0;
  const uint8_t* secret = nullptr;  // K
  size_t secret_size = 0;
  const uint8_t* associated_data = nullptr;  // X
  size_t associated_data_size = 0;
};

/// Runs body(0) .. body(count - 1), possibly in parallel, and returns once all are done.
/// Argon2 calls it once per slice with count = lanes.
using ParallelFor = std::function<void(uint32_t count, const std::function<void(uint32_t)>& body)>;

/// The same checks libargon2 makes, in the same order, for a tag of `tag_size` bytes.
Argon2Status Argon2Validate(const Argon2Params& params, const Argon2Inputs& inputs,
                            size_t tag_size);

/// Computes the tag into tag[0 .. tag_size). `parallel_for` may be empty (lanes run on the
/// calling thread, two at a time, interleaved). `idle_helpers`, if given, says how many more
/// threads parallel_for could use right now: with fewer threads than half the lanes, lanes
/// are handed out in interleaved pairs, otherwise one by one. The memory is mmap'ed (huge
/// pages requested) and wiped before it is released.
Argon2Status Argon2Hash(const Argon2Params& params, const Argon2Inputs& inputs, uint8_t* tag,
                        size_t tag_size, const ParallelFor& parallel_for = nullptr,
                        const std::function<uint32_t()>& idle_helpers = nullptr);

/// Frees the calling thread's cached memory (from hashes with reuse_thread_memory).
void Argon2ReleaseThreadMemory();

/// Compares in time that depends only on `size`, not on where the bytes differ.
bool ConstantTimeEqual(const uint8_t* a, const uint8_t* b, size_t size);

}  // namespace ssr_native

#endif  // SSR_NATIVE_ARGON2_H_
