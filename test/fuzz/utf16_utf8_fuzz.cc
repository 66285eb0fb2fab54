// libFuzzer target for the UTF-16 -> UTF-8 transcoders (build: cmake -DSSR_NATIVE_FUZZ=ON with
// clang; run: node scripts/fuzz.js [seconds]). Each input byte picks one code unit from a class
// (ASCII, 2-byte, 3-byte, high or low surrogate, above the surrogates), so pairs, lone halves and
// class changes at every offset of the 16-unit steps are common. Besides crashes and sanitizer
// reports it checks:
//  - the portable and AVX-512 transcoders (where the CPU has it) write the same bytes;
//  - those bytes are well-formed UTF-8 that decodes to the input's code points, with a lone
//    surrogate as U+FFFD (what Buffer.from writes);
//  - the chunked digest has that length and that CRC, whatever the initial CRC.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "ssr_native/cpu_features.h"
#include "ssr_native/crc32.h"
#include "ssr_native/utf16_utf8.h"

namespace {

void Check(bool ok) {
  if (!ok) abort();
}

char16_t UnitOf(uint8_t b) {
  static const uint16_t kBase[8] = {0x20, 0x00, 0x80, 0x800, 0xD800, 0xDC00, 0xE000, 0x61};
  static const uint16_t kSpread[8] = {3, 4, 61, 0x6F0, 33, 33, 0x7FF, 1};
  const int cls = b >> 5;
  return static_cast<char16_t>(kBase[cls] + (b & 31) * kSpread[cls]);
}

// The code points the UTF-16 stands for, lone surrogates as U+FFFD.
std::vector<uint32_t> CodePointsOf(const std::vector<char16_t>& units) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < units.size(); ++i) {
    const uint32_t u = units[i];
    if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units.size() && units[i + 1] >= 0xDC00 &&
        units[i + 1] <= 0xDFFF) {
      out.push_back(0x10000 + ((u - 0xD800) << 10) + (units[++i] - 0xDC00u));
    } else {
      out.push_back(u >= 0xD800 && u <= 0xDFFF ? 0xFFFD : u);
    }
  }
  return out;
}

// Strict UTF-8 decoding (shortest form, no surrogates, at most U+10FFFF); aborts if malformed.
std::vector<uint32_t> Decode(const uint8_t* p, size_t n) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < n;) {
    const uint8_t b = p[i];
    size_t len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    Check(len != 0 && i + len <= n);
    uint32_t cp = len == 1 ? b : b & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      Check((p[i + k] & 0xC0) == 0x80);
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
    Check(cp >= kMin[len] && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF));
    out.push_back(cp);
    i += len;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ssr_native;
  std::vector<char16_t> units(size);
  for (size_t i = 0; i < size; ++i) units[i] = UnitOf(data[i]);

  std::vector<uint8_t> portable(3 * size + 1);
  const size_t n = utf16_utf8_internal::Utf16ToUtf8Portable(units.data(), size, portable.data());
  Check(n <= 3 * size);
  Check(Decode(portable.data(), n) == CodePointsOf(units));

  const CpuFeatures& f = GetCpuFeatures();
  if (f.avx512bw && f.avx512vl && f.avx512vbmi2) {
    std::vector<uint8_t> wide(3 * size + 1);
    const size_t m = utf16_utf8_internal::Utf16ToUtf8Avx512(units.data(), size, wide.data());
    Check(m == n);
    for (size_t i = 0; i < n; ++i) Check(wide[i] == portable[i]);
  }

  const uint32_t initial = size > 0 ? data[0] * 0x01010101u : 0;
  const Utf8Digest digest = Crc32OfUtf16AsUtf8(initial, units.data(), size);
  Check(digest.size == n);
  Check(digest.crc == Crc32(initial, portable.data(), n));
  return 0;
}
