// CRC-32 on AArch64 by carry-less-multiply folding (PMULL, 64 x 64 -> 128 bits) over eight
// 128-bit accumulators, 128 bytes per step: the fold of crc32_pclmul.cc with the same constants
// (both instructions multiply 64-bit lanes the same way). A chain of CRC32X instructions is bound
// by their latency (one 8-byte word per 2-3 cycles on Neoverse cores); independent multiplies are
// not. The folded 128 bits are a 16-byte message whose CRC (from a zero register) is the CRC of
// everything folded, so two CRC32X reduce it and the same instructions finish the last 0-127
// bytes: no Barrett step. Compiled with portable flags; reached only after the dispatcher saw
// HWCAP_PMULL and HWCAP_CRC32.
#include "crc32_internal.h"

#if defined(__aarch64__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__

#include <arm_acle.h>
#include <arm_neon.h>

#define SSR_TARGET_PMULL __attribute__((target("+crc+crypto")))

namespace ssr_native {
namespace crc32_internal {
namespace {

SSR_TARGET_PMULL inline uint64x2_t Load(const uint8_t* p) {
  return vreinterpretq_u64_u8(vld1q_u8(p));
}

// Low half times the low constant, high half times the high one, plus the data that far ahead.
SSR_TARGET_PMULL inline uint64x2_t Fold(uint64x2_t x, uint64x2_t constants, uint64x2_t data) {
  const poly128_t lo = vmull_p64(static_cast<poly64_t>(vgetq_lane_u64(x, 0)),
                                 static_cast<poly64_t>(vgetq_lane_u64(constants, 0)));
  const poly128_t hi = vmull_high_p64(vreinterpretq_p64_u64(x), vreinterpretq_p64_u64(constants));
  return veorq_u64(veorq_u64(vreinterpretq_u64_p128(lo), vreinterpretq_u64_p128(hi)), data);
}

// The (d+32, d-32) constant pair of a fold over `Distance` bits: low lane, high lane.
template <unsigned Distance>
SSR_TARGET_PMULL inline uint64x2_t Constants() {
  const uint64_t pair[2] = {kFold<Distance + 32>, kFold<Distance - 32>};
  return vld1q_u64(pair);
}

}  // namespace

SSR_TARGET_PMULL uint32_t ExtendArmPmull(uint32_t crc, const uint8_t* p, size_t n) {
  if (n < kArmPmullMinSize) return ExtendArmCrc32(crc, p, n);

  uint64x2_t a[8];
  for (int i = 0; i < 8; ++i) a[i] = Load(p + 16 * i);
  // The register (inverted on entry, as zlib does) is added to the first four bytes.
  a[0] = veorq_u64(a[0], vcombine_u64(vcreate_u64(static_cast<uint32_t>(~crc)), vcreate_u64(0)));
  p += 128;
  n -= 128;

  const uint64x2_t k1024 = Constants<1024>();
  for (; n >= 128; p += 128, n -= 128) {
    for (int i = 0; i < 8; ++i) a[i] = Fold(a[i], k1024, Load(p + 16 * i));
  }

  // A tree: lanes forward by 512, 256 and then 128 bits onto the ones after them.
  const uint64x2_t k512 = Constants<512>();
  const uint64x2_t k256 = Constants<256>();
  const uint64x2_t k128 = Constants<128>();
  for (int i = 0; i < 4; ++i) a[i] = Fold(a[i], k512, a[i + 4]);
  a[0] = Fold(a[0], k256, a[2]);
  a[1] = Fold(a[1], k256, a[3]);
  const uint64x2_t x = Fold(a[0], k128, a[1]);

  // x stands for 16 bytes of message: the CRC register over them, starting from zero.
  uint32_t c = __crc32d(0, vgetq_lane_u64(x, 0));
  c = __crc32d(c, vgetq_lane_u64(x, 1));
  return ~ArmCrc32Words(c, p, n);
}

}  // namespace crc32_internal
}  // namespace ssr_native

#else  // not little-endian AArch64: never dispatched to, but keep the symbol defined.

namespace ssr_native {
namespace crc32_internal {
uint32_t ExtendArmPmull(uint32_t crc, const uint8_t* p, size_t n) {
  return ExtendPortable(crc, p, n);
}
}  // namespace crc32_internal
}  // namespace ssr_native

#endif
