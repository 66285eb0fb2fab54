// libFuzzer target for the dcz decoder (the framing an encoder's tests rely on): any input, read
// as a dcz body against a fixed dictionary and hash, must decode within its output bound or be
// refused with a status; never a crash, a sanitizer report or output beyond the bound. The first
// byte chooses whether the input gets a valid dcz header (so the zstd frame parser is reached).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ssr_native/zstd_dictionary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ssr_native;
  if (size < 1 || !ZstdAvailable()) return 0;
  static const std::string dictionary =
      "<html><head><style>body{margin:0}</style></head><body><nav>a b c</nav>";
  uint8_t hash[kDczHashSize];
  std::memset(hash, 0xab, sizeof(hash));
  std::string input;
  if (data[0] & 1) {
    input.append(reinterpret_cast<const char*>(kDczMagic), sizeof(kDczMagic));
    input.append(reinterpret_cast<const char*>(hash), sizeof(hash));
  }
  input.append(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string out;
  const size_t bound = 1 << 16;
  DczDecodeStatus status =
      DecodeDcz(reinterpret_cast<const uint8_t*>(dictionary.data()), dictionary.size(), hash,
                reinterpret_cast<const uint8_t*>(input.data()), input.size(), bound, &out);
  if (status == DczDecodeStatus::kOk && out.size() > bound) abort();
  uint64_t window = 0;
  ZstdFrameWindow(data, size, &window);
  return 0;
}
