// libFuzzer target for every CRC-32 path (build: cmake -DSSR_NATIVE_FUZZ=ON with clang; run:
// node scripts/fuzz.js [seconds]). The input's first bytes choose a running value, a split point
// and how many times the rest is repeated (so inputs of up to 512 bytes still reach the 128- and
// 256-byte main loops and their tails, at every length the fuzzer tries); each is read at an
// offset 0-63 from a 64-byte boundary. Besides crashes and sanitizer reports it checks that every
// path this CPU has gives the portable path's CRC, whole and chained across the split.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../src/core/crc32_internal.h"
#include "ssr_native/crc32.h"

namespace {

void Check(bool ok) {
  if (!ok) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ssr_native;
  if (size < 7) return 0;
  uint32_t initial;
  std::memcpy(&initial, data, 4);
  const size_t repeats = 1 + data[4] % 16;
  const size_t offset = data[5] % 64;
  const uint8_t split_byte = data[6];
  data += 7;
  size -= 7;

  // A 64-byte aligned buffer, the message at `offset` into it.
  std::vector<uint8_t> backing(offset + size * repeats + 64);
  uint8_t* base = backing.data();
  base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;
  uint8_t* message = base + offset;
  for (size_t r = 0; r < repeats; ++r) std::memcpy(message + r * size, data, size);
  const size_t n = size * repeats;
  const size_t split = n == 0 ? 0 : (split_byte * n) / 255;

  const uint32_t expected = crc32_internal::ExtendPortable(initial, message, n);
  for (int i = 0; i < kCrc32PathCount; ++i) {
    const auto path = static_cast<Crc32Path>(i);
    if (!Crc32PathAvailable(path)) continue;
    Check(Crc32WithPath(path, initial, message, n) == expected);
    const uint32_t first = Crc32WithPath(path, initial, message, split);
    Check(Crc32WithPath(path, first, message + split, n - split) == expected);
  }
  Check(Crc32(initial, message, n) == expected);
  return 0;
}
