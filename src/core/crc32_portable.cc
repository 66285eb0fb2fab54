// CRC-32 without special instructions: slicing-by-16 over tables computed at compile time.
// This is the path for CPUs without PCLMULQDQ and for the 0-63 byte heads and 0-15 byte tails of
// the folding paths. It is our own code so the addon needs no zlib: Node's binary happens to
// export zlib's crc32, Bun's does not, and a lazily bound `crc32` would kill the process at the
// first call (issue 8).
#include "crc32_internal.h"

namespace ssr_native {
namespace crc32_internal {
namespace {

constexpr uint32_t kPolyReflected32 = 0xEDB88320u;  // x^32 + x^26 + ... + 1, bit-reflected
constexpr int kSlices = 16;

// table[k][b] is the CRC register after byte b followed by k zero bytes, so 16 lookups advance
// the register over 16 input bytes at once (Kounavis & Berry, "A Systematic Approach to
// Building High Performance Software-based CRC Generators", 2005).
struct SliceTables {
  uint32_t table[kSlices][256];
};

constexpr SliceTables MakeSliceTables() {
  SliceTables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ kPolyReflected32 : c >> 1;
    t.table[0][b] = c;
  }
  for (int k = 1; k < kSlices; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      const uint32_t prev = t.table[k - 1][b];
      t.table[k][b] = (prev >> 8) ^ t.table[0][prev & 0xFFu];
    }
  }
  return t;
}

constexpr SliceTables kTables = MakeSliceTables();

// Little-endian load from any alignment, whatever the host's byte order (compiles to one mov
// on x86-64 and arm64).
inline uint32_t LoadLe32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

inline uint32_t Lookup(int slice, uint32_t word, int byte) {
  return kTables.table[slice][(word >> (8 * byte)) & 0xFFu];
}

}  // namespace

uint32_t PortableTableEntry(int slice, int byte) { return kTables.table[slice][byte]; }

uint32_t ExtendPortable(uint32_t crc, const uint8_t* p, size_t n) {
  uint32_t c = ~crc;
  for (; n >= 16; p += 16, n -= 16) {
    const uint32_t w0 = LoadLe32(p) ^ c;
    const uint32_t w1 = LoadLe32(p + 4);
    const uint32_t w2 = LoadLe32(p + 8);
    const uint32_t w3 = LoadLe32(p + 12);
    c = Lookup(15, w0, 0) ^ Lookup(14, w0, 1) ^ Lookup(13, w0, 2) ^ Lookup(12, w0, 3) ^
        Lookup(11, w1, 0) ^ Lookup(10, w1, 1) ^ Lookup(9, w1, 2) ^ Lookup(8, w1, 3) ^
        Lookup(7, w2, 0) ^ Lookup(6, w2, 1) ^ Lookup(5, w2, 2) ^ Lookup(4, w2, 3) ^
        Lookup(3, w3, 0) ^ Lookup(2, w3, 1) ^ Lookup(1, w3, 2) ^ Lookup(0, w3, 3);
  }
  for (; n > 0; ++p, --n) c = (c >> 8) ^ kTables.table[0][(c ^ *p) & 0xFFu];
  return ~c;
}

}  // namespace crc32_internal
}  // namespace ssr_native
