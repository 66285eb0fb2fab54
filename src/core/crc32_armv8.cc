// CRC-32 with the ARMv8 CRC32 instructions (CRC32X/W/H/B, the zlib polynomial, bit-reflected as
// zlib's register is): 8 bytes per instruction. Optional in ARMv8.0 and mandatory from ARMv8.1;
// Graviton, Ampere Altra and Apple M-series all have it. Compiled with portable flags: the
// function carries the "+crc" target attribute and is reached only after the dispatcher saw
// HWCAP_CRC32.
#include "crc32_internal.h"

#if defined(__aarch64__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__

#include <arm_acle.h>

#include <cstring>

#define SSR_TARGET_CRC __attribute__((target("+crc")))

namespace ssr_native {
namespace crc32_internal {

SSR_TARGET_CRC uint32_t ExtendArmCrc32(uint32_t crc, const uint8_t* p, size_t n) {
  uint32_t c = ~crc;
  // Bytes up to an 8-byte boundary, so the main loop's loads never straddle a cache line.
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c = __crc32b(c, *p++);
    --n;
  }
  // Little-endian 8-byte words: the first byte in memory is the lowest, the one the
  // reflected CRC takes first.
  for (; n >= 32; p += 32, n -= 32) {
    uint64_t w[4];
    std::memcpy(w, p, 32);
    c = __crc32d(c, w[0]);
    c = __crc32d(c, w[1]);
    c = __crc32d(c, w[2]);
    c = __crc32d(c, w[3]);
  }
  return ~ArmCrc32Words(c, p, n);
}

SSR_TARGET_CRC uint32_t ArmCrc32Words(uint32_t c, const uint8_t* p, size_t n) {
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = __crc32d(c, w);
  }
  if (n >= 4) {
    uint32_t w;
    std::memcpy(&w, p, 4);
    c = __crc32w(c, w);
    p += 4;
    n -= 4;
  }
  if (n >= 2) {
    uint16_t w;
    std::memcpy(&w, p, 2);
    c = __crc32h(c, w);
    p += 2;
    n -= 2;
  }
  if (n > 0) c = __crc32b(c, *p);
  return c;
}

}  // namespace crc32_internal
}  // namespace ssr_native

#else  // not little-endian AArch64: never dispatched to, but keep the symbol defined.

namespace ssr_native {
namespace crc32_internal {
uint32_t ExtendArmCrc32(uint32_t crc, const uint8_t* p, size_t n) {
  return ExtendPortable(crc, p, n);
}
uint32_t ArmCrc32Words(uint32_t c, const uint8_t* p, size_t n) { return ~ExtendPortable(~c, p, n); }
}  // namespace crc32_internal
}  // namespace ssr_native

#endif
