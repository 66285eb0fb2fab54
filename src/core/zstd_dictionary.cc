// libzstd through dlopen: see zstd_dictionary.h for why it is not linked.
#include "ssr_native/zstd_dictionary.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>

#if __has_include(<zstd.h>) && __has_include(<zdict.h>)
#include <zdict.h>
#include <zstd.h>
#define SSR_NATIVE_HAVE_ZSTD_HEADERS 1
#endif

// The sanitizers' runtimes refuse RTLD_DEEPBIND (they must stay first in symbol lookup).
#if defined(__SANITIZE_ADDRESS__)
#define SSR_NATIVE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SSR_NATIVE_SANITIZED 1
#endif
#endif
#ifndef SSR_NATIVE_SANITIZED
#define SSR_NATIVE_SANITIZED 0
#endif

namespace ssr_native {

#ifdef SSR_NATIVE_HAVE_ZSTD_HEADERS
namespace {

// The libzstd functions used here, bound from the library's own handle.
struct ZstdApi {
  decltype(&ZSTD_isError) isError = nullptr;
  decltype(&ZSTD_getErrorName) getErrorName = nullptr;
  decltype(&ZSTD_compressBound) compressBound = nullptr;
  decltype(&ZSTD_createCDict) createCDict = nullptr;
  decltype(&ZSTD_freeCDict) freeCDict = nullptr;
  decltype(&ZSTD_createCCtx) createCCtx = nullptr;
  decltype(&ZSTD_freeCCtx) freeCCtx = nullptr;
  decltype(&ZSTD_CCtx_reset) cctxReset = nullptr;
  decltype(&ZSTD_CCtx_refCDict) cctxRefCDict = nullptr;
  decltype(&ZSTD_CCtx_setParameter) cctxSetParameter = nullptr;
  decltype(&ZSTD_compress2) compress2 = nullptr;
  decltype(&ZSTD_createDCtx) createDCtx = nullptr;
  decltype(&ZSTD_freeDCtx) freeDCtx = nullptr;
  decltype(&ZSTD_DCtx_setParameter) dctxSetParameter = nullptr;
  decltype(&ZSTD_DCtx_loadDictionary) dctxLoadDictionary = nullptr;
  decltype(&ZSTD_decompressStream) decompressStream = nullptr;
  decltype(&ZDICT_trainFromBuffer) trainFromBuffer = nullptr;
  decltype(&ZDICT_isError) zdictIsError = nullptr;
  decltype(&ZDICT_getErrorName) zdictGetErrorName = nullptr;
  bool ok = false;
  std::string error;
};

template <typename T>
bool Bind(void* handle, const char* name, T* slot, std::string* error) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    if (error->empty()) *error = std::string("libzstd lacks ") + name;
    return false;
  }
  *slot = reinterpret_cast<T>(symbol);
  return true;
}

const ZstdApi& Api() {
  static ZstdApi api;
  static std::once_flag once;
  std::call_once(once, [] {
    int flags = RTLD_NOW | RTLD_LOCAL;
#if defined(RTLD_DEEPBIND) && !SSR_NATIVE_SANITIZED
    flags |= RTLD_DEEPBIND;  // its calls into itself go to itself, never to a host's zstd
#endif
#if defined(__APPLE__)
    const char* kNames[] = {"libzstd.1.dylib", "/opt/homebrew/lib/libzstd.1.dylib",
                            "/usr/local/lib/libzstd.1.dylib"};
#else
    const char* kNames[] = {"libzstd.so.1"};
#endif
    void* handle = nullptr;
    for (const char* name : kNames) {
      handle = dlopen(name, flags);
      if (handle != nullptr) break;
    }
    if (handle == nullptr) {
      const char* why = dlerror();
      api.error = std::string("libzstd does not load: ") + (why ? why : "unknown");
      return;
    }
    std::string& e = api.error;
    // every symbol is looked up (no short cut), so the error names the first one missing
    bool ok = true;
    ok = Bind(handle, "ZSTD_isError", &api.isError, &e) && ok;
    ok = Bind(handle, "ZSTD_getErrorName", &api.getErrorName, &e) && ok;
    ok = Bind(handle, "ZSTD_compressBound", &api.compressBound, &e) && ok;
    ok = Bind(handle, "ZSTD_createCDict", &api.createCDict, &e) && ok;
    ok = Bind(handle, "ZSTD_freeCDict", &api.freeCDict, &e) && ok;
    ok = Bind(handle, "ZSTD_createCCtx", &api.createCCtx, &e) && ok;
    ok = Bind(handle, "ZSTD_freeCCtx", &api.freeCCtx, &e) && ok;
    ok = Bind(handle, "ZSTD_CCtx_reset", &api.cctxReset, &e) && ok;
    ok = Bind(handle, "ZSTD_CCtx_refCDict", &api.cctxRefCDict, &e) && ok;
    ok = Bind(handle, "ZSTD_CCtx_setParameter", &api.cctxSetParameter, &e) && ok;
    ok = Bind(handle, "ZSTD_compress2", &api.compress2, &e) && ok;
    ok = Bind(handle, "ZSTD_createDCtx", &api.createDCtx, &e) && ok;
    ok = Bind(handle, "ZSTD_freeDCtx", &api.freeDCtx, &e) && ok;
    ok = Bind(handle, "ZSTD_DCtx_setParameter", &api.dctxSetParameter, &e) && ok;
    ok = Bind(handle, "ZSTD_DCtx_loadDictionary", &api.dctxLoadDictionary, &e) && ok;
    ok = Bind(handle, "ZSTD_decompressStream", &api.decompressStream, &e) && ok;
    ok = Bind(handle, "ZDICT_trainFromBuffer", &api.trainFromBuffer, &e) && ok;
    ok = Bind(handle, "ZDICT_isError", &api.zdictIsError, &e) && ok;
    ok = Bind(handle, "ZDICT_getErrorName", &api.zdictGetErrorName, &e) && ok;
    api.ok = ok;
  });
  return api;
}

// One compression context per thread, kept for the thread's life (a context is ~1 MB of tables
// that would otherwise be allocated and cleared for every body).
struct ThreadContext {
  ZSTD_CCtx* cctx = nullptr;
  ~ThreadContext() {
    if (cctx != nullptr) Api().freeCCtx(cctx);
  }
};

ZSTD_CCtx* ContextForThisThread() {
  thread_local ThreadContext context;
  if (context.cctx == nullptr) context.cctx = Api().createCCtx();
  return context.cctx;
}

int FloorLog2(size_t value) {
  int log = 0;
  while ((value >> 1) >= (size_t{1} << log)) log++;
  return log;
}

}  // namespace

bool ZstdAvailable() { return Api().ok; }
const std::string& ZstdLoadError() { return Api().error; }

bool TrainZstdDictionary(const std::vector<std::string>& samples, size_t capacity,
                         std::string* dictionary, std::string* error) {
  const ZstdApi& api = Api();
  if (!api.ok) {
    *error = api.error;
    return false;
  }
  std::string joined;
  std::vector<size_t> sizes;
  sizes.reserve(samples.size());
  for (const std::string& sample : samples) {
    joined.append(sample);
    sizes.push_back(sample.size());
  }
  dictionary->assign(capacity, '\0');
  size_t written = api.trainFromBuffer(&(*dictionary)[0], capacity, joined.data(), sizes.data(),
                                       static_cast<unsigned>(sizes.size()));
  if (api.zdictIsError(written)) {
    *error = api.zdictGetErrorName(written);
    dictionary->clear();
    return false;
  }
  dictionary->resize(written);
  return true;
}

std::unique_ptr<ZstdDictionaryEncoder> ZstdDictionaryEncoder::Create(const uint8_t* dictionary,
                                                                     size_t size, int level,
                                                                     std::string* error) {
  const ZstdApi& api = Api();
  if (!api.ok) {
    *error = api.error;
    return nullptr;
  }
  std::unique_ptr<ZstdDictionaryEncoder> encoder(new ZstdDictionaryEncoder());
  encoder->cdict_ = api.createCDict(dictionary, size, level);
  if (encoder->cdict_ == nullptr) {
    *error = "ZSTD_createCDict failed";
    return nullptr;
  }
  encoder->dictionary_size_ = size;
  encoder->window_log_ = FloorLog2(DczWindowLimit(size));
  return encoder;
}

ZstdDictionaryEncoder::~ZstdDictionaryEncoder() {
  if (cdict_ != nullptr) Api().freeCDict(static_cast<ZSTD_CDict*>(cdict_));
}

bool ZstdDictionaryEncoder::Compress(const uint8_t* body, size_t size, std::string* out,
                                     std::string* error) const {
  const ZstdApi& api = Api();
  ZSTD_CCtx* cctx = ContextForThisThread();
  if (cctx == nullptr) {
    *error = "ZSTD_createCCtx failed";
    return false;
  }
  api.cctxReset(cctx, ZSTD_reset_session_and_parameters);
  size_t rc = api.cctxRefCDict(cctx, static_cast<const ZSTD_CDict*>(cdict_));
  // The window may not exceed the RFC's limit whatever the level; zstd shrinks it further to the
  // body's size, which it knows here.
  if (!api.isError(rc))
    rc = api.cctxSetParameter(cctx, ZSTD_c_windowLog, window_log_ > 27 ? 27 : window_log_);
  if (api.isError(rc)) {
    *error = api.getErrorName(rc);
    return false;
  }
  size_t start = out->size();
  size_t bound = api.compressBound(size);
  out->resize(start + bound);
  size_t written = api.compress2(cctx, &(*out)[start], bound, body, size);
  if (api.isError(written)) {
    out->resize(start);
    *error = api.getErrorName(written);
    return false;
  }
  out->resize(start + written);
  return true;
}

bool ZstdDictionaryEncoder::EncodeDcz(const uint8_t hash[kDczHashSize], const uint8_t* body,
                                      size_t size, std::string* out, std::string* error) const {
  out->append(reinterpret_cast<const char*>(kDczMagic), sizeof(kDczMagic));
  out->append(reinterpret_cast<const char*>(hash), kDczHashSize);
  return Compress(body, size, out, error);
}

DczDecodeStatus DecodeDcz(const uint8_t* dictionary, size_t dictionary_size,
                          const uint8_t hash[kDczHashSize], const uint8_t* input, size_t input_size,
                          size_t max_output, std::string* out) {
  const ZstdApi& api = Api();
  if (!api.ok) return DczDecodeStatus::kUnavailable;
  if (input_size < kDczHeaderSize) return DczDecodeStatus::kTruncated;
  if (std::memcmp(input, kDczMagic, sizeof(kDczMagic)) != 0) return DczDecodeStatus::kBadMagic;
  if (std::memcmp(input + sizeof(kDczMagic), hash, kDczHashSize) != 0)
    return DczDecodeStatus::kWrongDictionary;
  const uint8_t* frame = input + kDczHeaderSize;
  size_t frame_size = input_size - kDczHeaderSize;
  uint64_t window = 0;
  DczDecodeStatus head = ZstdFrameWindow(frame, frame_size, &window);
  if (head != DczDecodeStatus::kOk) return head;
  if (window > DczWindowLimit(dictionary_size)) return DczDecodeStatus::kCorrupt;
  ZSTD_DCtx* dctx = api.createDCtx();
  if (dctx == nullptr) return DczDecodeStatus::kCorrupt;
  struct Free {
    const ZstdApi& api;
    ZSTD_DCtx* dctx;
    ~Free() { api.freeDCtx(dctx); }
  } free_dctx{api, dctx};
  size_t rc = api.dctxSetParameter(dctx, ZSTD_d_windowLogMax, 31);
  if (!api.isError(rc)) rc = api.dctxLoadDictionary(dctx, dictionary, dictionary_size);
  if (api.isError(rc)) return DczDecodeStatus::kCorrupt;
  out->clear();
  ZSTD_inBuffer in{frame, frame_size, 0};
  char chunk[16384];
  size_t remaining_hint = 1;
  while (in.pos < in.size || remaining_hint != 0) {
    ZSTD_outBuffer buffer{chunk, sizeof(chunk), 0};
    size_t before = in.pos;
    remaining_hint = api.decompressStream(dctx, &buffer, &in);
    if (api.isError(remaining_hint)) return DczDecodeStatus::kCorrupt;
    if (out->size() + buffer.pos > max_output) return DczDecodeStatus::kTooLarge;
    out->append(chunk, buffer.pos);
    if (remaining_hint == 0) {
      // One frame only: anything after it is not part of a dcz body.
      return in.pos == in.size ? DczDecodeStatus::kOk : DczDecodeStatus::kCorrupt;
    }
    if (in.pos == before && buffer.pos == 0 && in.pos == in.size)
      return DczDecodeStatus::kTruncated;
  }
  return DczDecodeStatus::kTruncated;
}

#else  // no zstd headers at build time: every dictionary coding is unavailable

namespace {
const std::string& NotBuilt() {
  static const std::string error = "built without libzstd headers (Debian: libzstd-dev)";
  return error;
}
}  // namespace

bool ZstdAvailable() { return false; }
const std::string& ZstdLoadError() { return NotBuilt(); }
bool TrainZstdDictionary(const std::vector<std::string>&, size_t, std::string*,
                         std::string* error) {
  *error = NotBuilt();
  return false;
}
std::unique_ptr<ZstdDictionaryEncoder> ZstdDictionaryEncoder::Create(const uint8_t*, size_t, int,
                                                                     std::string* error) {
  *error = NotBuilt();
  return nullptr;
}
ZstdDictionaryEncoder::~ZstdDictionaryEncoder() = default;
bool ZstdDictionaryEncoder::Compress(const uint8_t*, size_t, std::string*,
                                     std::string* error) const {
  *error = NotBuilt();
  return false;
}
bool ZstdDictionaryEncoder::EncodeDcz(const uint8_t*, const uint8_t*, size_t, std::string*,
                                      std::string* error) const {
  *error = NotBuilt();
  return false;
}
DczDecodeStatus DecodeDcz(const uint8_t*, size_t, const uint8_t*, const uint8_t*, size_t, size_t,
                          std::string*) {
  return DczDecodeStatus::kUnavailable;
}

#endif

DczDecodeStatus ZstdFrameWindow(const uint8_t* frame, size_t size, uint64_t* window) {
  // RFC 8878 3.1.1: magic, Frame_Header_Descriptor, [Window_Descriptor], [Dictionary_ID],
  // [Frame_Content_Size].
  static const uint8_t kMagic[4] = {0x28, 0xb5, 0x2f, 0xfd};
  if (size < 5) return DczDecodeStatus::kTruncated;
  if (std::memcmp(frame, kMagic, 4) != 0) return DczDecodeStatus::kCorrupt;
  const uint8_t descriptor = frame[4];
  const bool single_segment = (descriptor & 0x20) != 0;
  if ((descriptor & 0x08) != 0) return DczDecodeStatus::kCorrupt;  // reserved bit
  static const size_t kDictionaryIdSizes[4] = {0, 1, 2, 4};
  const size_t dictionary_id_size = kDictionaryIdSizes[descriptor & 3];
  const unsigned fcs_flag = descriptor >> 6;
  const size_t fcs_size = fcs_flag == 0 ? (single_segment ? 1 : 0) : (size_t{1} << fcs_flag);
  size_t pos = 5;
  if (!single_segment) {
    if (size < pos + 1) return DczDecodeStatus::kTruncated;
    const uint8_t wd = frame[pos++];
    const unsigned window_log = 10 + (wd >> 3);
    const uint64_t base = uint64_t{1} << window_log;
    *window = base + (base / 8) * (wd & 7);
    return DczDecodeStatus::kOk;
  }
  pos += dictionary_id_size;
  if (size < pos + fcs_size) return DczDecodeStatus::kTruncated;
  uint64_t content_size = 0;
  for (size_t i = 0; i < fcs_size; i++) content_size |= uint64_t{frame[pos + i]} << (8 * i);
  if (fcs_size == 2) content_size += 256;
  *window = content_size;  // a single segment: the window is the whole content
  return DczDecodeStatus::kOk;
}

size_t DczWindowLimit(size_t dictionary_size) {
  size_t scaled = dictionary_size + dictionary_size / 4;
  return scaled > kDczMinWindowLimit ? scaled : kDczMinWindowLimit;
}

}  // namespace ssr_native
