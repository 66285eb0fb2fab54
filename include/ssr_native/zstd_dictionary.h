// Zstandard with a shared dictionary, for Compression Dictionary Transport (RFC 9842): dictionary
// training (ZDICT), compression against a dictionary, and the `dcz` framing (a zstd skippable
// frame carrying the dictionary's SHA-256, then a zstd frame compressed with that dictionary).
//
// libzstd is loaded at run time (dlopen of libzstd.so.1, its own symbols bound first) rather than
// linked: the addon then needs no library a host may lack (without libzstd, Available() is false
// and callers offer no dictionary coding), and a host binary that exports zstd symbols of its own
// (a runtime bundling zstd) can never interpose on the ones used here.
#ifndef SSR_NATIVE_INCLUDE_SSR_NATIVE_ZSTD_DICTIONARY_H_
#define SSR_NATIVE_INCLUDE_SSR_NATIVE_ZSTD_DICTIONARY_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ssr_native {

/// The dcz magic: a zstd skippable frame (0x184D2A5E, little endian) of 32 bytes.
constexpr uint8_t kDczMagic[8] = {0x5e, 0x2a, 0x4d, 0x18, 0x20, 0x00, 0x00, 0x00};
constexpr size_t kDczHashSize = 32;
constexpr size_t kDczHeaderSize = sizeof(kDczMagic) + kDczHashSize;
/// RFC 9842 6.2: a dcz frame's window is at most the larger of 8 MiB and 1.25 x the dictionary.
constexpr size_t kDczMinWindowLimit = size_t{8} << 20;

/// Whether libzstd could be loaded; when false, Error() says why.
bool ZstdAvailable();
const std::string& ZstdLoadError();

/// The window a dcz answer against a dictionary of `dictionary_size` bytes may use (RFC 9842).
size_t DczWindowLimit(size_t dictionary_size);

/// Trains a dictionary of at most `capacity` bytes on `samples` (ZDICT_trainFromBuffer).
/// Returns false with `error` set when zstd cannot train on them (too few or too small samples).
bool TrainZstdDictionary(const std::vector<std::string>& samples, size_t capacity,
                         std::string* dictionary, std::string* error);

/// A dictionary prepared for compression (a ZSTD_CDict) at one level. Thread-safe: each call
/// uses its own compression context (one per thread, kept).
class ZstdDictionaryEncoder {
 public:
  static std::unique_ptr<ZstdDictionaryEncoder> Create(const uint8_t* dictionary, size_t size,
                                                       int level, std::string* error);
  ~ZstdDictionaryEncoder();
  ZstdDictionaryEncoder(const ZstdDictionaryEncoder&) = delete;
  ZstdDictionaryEncoder& operator=(const ZstdDictionaryEncoder&) = delete;

  /// A zstd frame of `body` compressed against the dictionary, appended to `out`.
  bool Compress(const uint8_t* body, size_t size, std::string* out, std::string* error) const;
  /// The dcz encoding: kDczMagic, `hash` (the dictionary's SHA-256), then Compress(body).
  bool EncodeDcz(const uint8_t hash[kDczHashSize], const uint8_t* body, size_t size,
                 std::string* out, std::string* error) const;
  size_t dictionary_size() const { return dictionary_size_; }

 private:
  ZstdDictionaryEncoder() = default;
  void* cdict_ = nullptr;
  size_t dictionary_size_ = 0;
  int window_log_ = 0;
};

enum class DczDecodeStatus {
  kOk,
  kTruncated,
  kBadMagic,
  kWrongDictionary,
  kCorrupt,
  kTooLarge,
  kUnavailable
};

/// The window a zstd frame declares (RFC 8878 3.1.1.1.2; a single-segment frame: its content size).
DczDecodeStatus ZstdFrameWindow(const uint8_t* frame, size_t size, uint64_t* window);

/// Decodes a dcz body against `dictionary` whose SHA-256 is `hash`: the header must carry that
/// hash, the frame's window must be within DczWindowLimit, the output at most `max_output` bytes.
DczDecodeStatus DecodeDcz(const uint8_t* dictionary, size_t dictionary_size,
                          const uint8_t hash[kDczHashSize], const uint8_t* input, size_t input_size,
                          size_t max_output, std::string* out);

}  // namespace ssr_native

#endif  // SSR_NATIVE_INCLUDE_SSR_NATIVE_ZSTD_DICTIONARY_H_
