// CRC-32 and entity tags for JavaScript: unpack the bytes, call the core, pack the result.
#include "etag_binding.h"

#include <napi.h>

#include <cstring>
#include <new>
#include <string>

#include "args.h"
#include "bytes.h"
#include "ssr_native/cpu_features.h"
#include "ssr_native/crc32.h"
#include "ssr_native/etag.h"
#include "ssr_native/latin1_utf8.h"
#include "ssr_native/utf16_utf8.h"
#include "string_bytes.h"

namespace ssr_native_addon {
namespace {

using ssr_native::Crc32Path;

// The CRC to continue (zlib.crc32's `value`): 0 when absent.
uint32_t InitialCrc(const Napi::CallbackInfo& info, size_t index) {
  return Arg(info, index).IsUndefined() ? 0 : Uint32Arg(info, index, "value");
}

// crc32(data, value = 0) -> uint32, like zlib.crc32.
Napi::Value Crc32(const Napi::CallbackInfo& info) {
  std::string scratch;  // unused for strings: they go to the thread's scratch block
  StringBytes string_bytes;
  ByteView bytes;
  if (info[0].IsString()) {
    if (string_bytes.Encode(info.Env(), info[0], StringEncoding::kUtf8) != napi_ok) {
      throw ArgRangeError(info.Env(), "data is too large to hash");
    }
    bytes = string_bytes.view();
  } else {
    bytes = BytesOf(info[0], &scratch, "data");
  }
  const uint32_t crc = ssr_native::Crc32(InitialCrc(info, 1), bytes.data, bytes.size);
  return Napi::Number::New(info.Env(), crc);
}

// The encoding code lib/etag.js passes (a StringEncoding); UTF-8 when absent.
bool ReadEncoding(napi_env env, size_t argc, napi_value* argv, size_t index, StringEncoding* out) {
  int32_t code = 0;
  if (!ReadInt32(env, argc, argv, index, "encoding", static_cast<int32_t>(StringEncoding::kUtf8),
                 static_cast<int32_t>(StringEncoding::kUtf16le),
                 static_cast<int32_t>(StringEncoding::kUtf8), &code)) {
    return false;
  }
  *out = static_cast<StringEncoding>(code);
  return true;
}

constexpr const char* kBodyTypes = "a string, Buffer, TypedArray or DataView";

napi_value TagValue(napi_env env, uint64_t size, uint32_t crc, bool weak) {
  char tag[ssr_native::kMaxEntityTagLength];
  const size_t n = ssr_native::FormatEntityTag(size, crc, weak, tag);
  napi_value result = nullptr;
  napi_create_string_latin1(env, tag, n, &result);
  return result;
}

// entityTag(data, weak, encoding) -> 'W/"<len>-<crc>"' or '"<len>-<crc>"'.
// The per-response hot path, written against the C Node-API directly: a Uint8Array is read
// with one call (no separate type check), a string is written into the thread's scratch block
// (no heap copy per call), and no C++ wrapper objects are created.
napi_value EntityTag(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok) return nullptr;
  if (argc == 0) {
    ThrowExpectedType(env, kBodyTypes, "body", nullptr);
    return nullptr;
  }
  bool weak = true;
  if (!ReadBool(env, argc, argv, 1, "weak", true, &weak)) return nullptr;

  napi_typedarray_type type;
  size_t length = 0;
  void* data = nullptr;
  const napi_status view_status =
      napi_get_typedarray_info(env, argv[0], &type, &length, &data, nullptr, nullptr);
  if (view_status == napi_ok && type == napi_uint8_array) {
    return TagValue(env, length, ssr_native::Crc32(0, data, length), weak);
  }
  ByteView bytes;
  if (view_status != napi_ok) {  // not a typed array: a string?
    StringEncoding encoding = StringEncoding::kUtf8;
    if (!ReadEncoding(env, argc, argv, 2, &encoding)) return nullptr;
    StringBytes string_bytes;
    const napi_status status = string_bytes.Encode(env, argv[0], encoding);
    if (status == napi_ok) {
      bytes = string_bytes.view();
      return TagValue(env, bytes.size, ssr_native::Crc32(0, bytes.data, bytes.size), weak);
    }
    if (status != napi_string_expected) {
      napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "body is too large to hash");
      return nullptr;
    }
  }
  if (!ViewOfArrayBufferView(env, argv[0], &bytes)) {  // other typed arrays, DataView
    ThrowExpectedType(env, kBodyTypes, "body", argv[0]);
    return nullptr;
  }
  return TagValue(env, bytes.size, ssr_native::Crc32(0, bytes.data, bytes.size), weak);
}

// Text with no code unit above U+00FF (lib/etag.js checks that first) is hashed as the UTF-8 it
// stands for without V8's UTF-8 encoder: V8 copies its Latin-1 bytes (a memcpy for one-byte
// strings) and the core expands only the bytes of 0x80 and up. A long text comes in slices small
// enough that each copy is still in L1 while it is checked and hashed (lib/etag.js).

// Reads the arguments of a slice call into argv (`count` slots, the first the slice); false, with
// a TypeError pending, if there is no first argument.
bool SliceArgs(napi_env env, napi_callback_info info, size_t count, napi_value* argv,
               size_t* argc) {
  *argc = count;
  if (napi_get_cb_info(env, info, argc, argv, nullptr, nullptr) != napi_ok) return false;
  if (*argc < 1) return ThrowExpectedType(env, "a string", "text", nullptr);
  return true;
}

// Writes `value`'s bytes in `encoding` into `out`; false, with a TypeError (not a string) or a
// RangeError (no memory) pending, if that cannot be done.
bool EncodeText(napi_env env, napi_value value, StringEncoding encoding, StringBytes* out) {
  const napi_status status = out->Encode(env, value, encoding);
  if (status == napi_string_expected) return ThrowExpectedType(env, "a string", "text", value);
  if (status != napi_ok) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "text is too large to hash");
    return false;
  }
  return true;
}

// The slice's UTF-8 digest continuing `crc`, and its length in characters; false (with a JS
// exception pending) for a non-string or no memory. Wrong bytes, never a crash, if the text has
// a code unit above U+00FF after all.
bool DigestOfLatin1Slice(napi_env env, napi_value value, uint32_t crc, size_t* units,
                         ssr_native::Utf8Digest* digest) {
  StringBytes string_bytes;
  if (!EncodeText(env, value, StringEncoding::kLatin1, &string_bytes)) return false;
  const ByteView bytes = string_bytes.view();
  *units = bytes.size;  // one Latin-1 byte per UTF-16 code unit
  *digest = ssr_native::Crc32OfLatin1AsUtf8(crc, bytes.data, bytes.size);
  return true;
}

// Longest slice latin1Utf8Crc takes: its extra-byte count times 2^32 must stay an exact double.
constexpr size_t kMaxLatin1Slice = size_t{1} << 20;

// latin1Utf8Crc(slice, crc) -> crc' + 2^32 * extra, where crc' continues `crc` over the slice's
// UTF-8 bytes and extra counts its characters of U+0080..U+00FF (each one UTF-8 byte longer
// than its Latin-1 byte). One number, so the call allocates nothing.
napi_value Latin1Utf8Crc(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc = 0;
  if (!SliceArgs(env, info, 2, argv, &argc)) return nullptr;
  uint32_t crc = 0;
  if (!ReadUint32(env, argc, argv, 1, "crc", 0, &crc)) return nullptr;
  size_t units = 0;
  ssr_native::Utf8Digest digest{};
  if (!DigestOfLatin1Slice(env, argv[0], crc, &units, &digest)) return nullptr;
  if (units > kMaxLatin1Slice) {
    ThrowExpectedRange(env, "at most 1 MiB per slice", "text", argv[0]);
    return nullptr;
  }
  const double extra = static_cast<double>(digest.size - units);
  napi_value result = nullptr;
  napi_create_double(env, extra * 4294967296.0 + digest.crc, &result);
  return result;
}

// latin1Utf8Tag(slice, weak, crc = 0, bytesBefore = 0) -> the entity tag of a text whose earlier
// slices came to `bytesBefore` UTF-8 bytes with CRC `crc`, ending with `slice` (the whole text
// when it is one slice).
napi_value Latin1Utf8Tag(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  size_t argc = 0;
  if (!SliceArgs(env, info, 4, argv, &argc)) return nullptr;
  bool weak = true;
  uint32_t crc = 0;
  uint64_t before = 0;
  if (!ReadBool(env, argc, argv, 1, "weak", true, &weak) ||
      !ReadUint32(env, argc, argv, 2, "crc", 0, &crc) ||
      !ReadSafeUint(env, argc, argv, 3, "bytesBefore", 0, &before)) {
    return nullptr;
  }
  size_t units = 0;
  ssr_native::Utf8Digest digest{};
  if (!DigestOfLatin1Slice(env, argv[0], crc, &units, &digest)) return nullptr;
  return TagValue(env, before + digest.size, digest.crc, weak);
}

// utf16Utf8Tag(text, weak) -> the entity tag of a text with code units above U+00FF (a two-byte
// string in V8), hashed as UTF-8 without V8's UTF-8 writer: V8 copies its UTF-16 code units (a
// memcpy for two-byte strings) and the core transcodes them in chunks, ASCII runs 16 units a step,
// where V8's writer takes one character at a time (figures: CONTRIBUTING.md).
napi_value Utf16Utf8Tag(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc = 0;
  if (!SliceArgs(env, info, 2, argv, &argc)) return nullptr;
  bool weak = true;
  if (!ReadBool(env, argc, argv, 1, "weak", true, &weak)) return nullptr;
  StringBytes string_bytes;
  if (!EncodeText(env, argv[0], StringEncoding::kUtf16le, &string_bytes)) return nullptr;
  const ByteView bytes = string_bytes.view();
  const size_t count = bytes.size / sizeof(char16_t);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  // The scratch holds little-endian units (as Buffer's utf16le); the core reads native ones.
  char16_t* swapped = reinterpret_cast<char16_t*>(const_cast<uint8_t*>(bytes.data));
  for (size_t i = 0; i < count; ++i) {
    swapped[i] = static_cast<char16_t>((swapped[i] << 8) | (swapped[i] >> 8));
  }
#endif
  const char16_t* units = reinterpret_cast<const char16_t*>(bytes.data);
  if (!ssr_native::Utf16TranscoderSuits(units, count)) {
    // Mostly non-ASCII text on a CPU without the AVX-512 transcoder: V8's writer is faster there.
    StringBytes utf8;
    if (!EncodeText(env, argv[0], StringEncoding::kUtf8, &utf8)) return nullptr;
    const ByteView view = utf8.view();
    return TagValue(env, view.size, ssr_native::Crc32(0, view.data, view.size), weak);
  }
  const ssr_native::Utf8Digest digest = ssr_native::Crc32OfUtf16AsUtf8(0, units, count);
  return TagValue(env, digest.size, digest.crc, weak);
}

bool PathFromName(const std::string& name, Crc32Path* path) {
  for (int i = 0; i < ssr_native::kCrc32PathCount; ++i) {
    const auto candidate = static_cast<Crc32Path>(i);
    if (name == ssr_native::Crc32PathName(candidate)) {
      *path = candidate;
      return true;
    }
  }
  return false;
}

// crc32WithPath(name, data, value = 0): one specific implementation, for tests and benchmarks.
Napi::Value Crc32WithPath(const Napi::CallbackInfo& info) {
  Crc32Path path;
  if (!PathFromName(StringArg(info, 0, "the CRC-32 path"), &path)) {
    throw ArgTypeError(info.Env(), "unknown CRC-32 path");
  }
  if (!ssr_native::Crc32PathAvailable(path)) {
    throw ArgRangeError(info.Env(), "this CPU cannot run that CRC-32 path");
  }
  std::string scratch;
  const ByteView bytes = BytesOf(info[1], &scratch, "data");
  return Napi::Number::New(
      info.Env(), ssr_native::Crc32WithPath(path, InitialCrc(info, 2), bytes.data, bytes.size));
}

// crc32Paths() -> { active, available: [...] }
Napi::Value Crc32Paths(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object result = Napi::Object::New(env);
  result.Set("active", ssr_native::Crc32PathName(ssr_native::Crc32ActivePath()));
  Napi::Array available = Napi::Array::New(env);
  uint32_t count = 0;
  for (int i = 0; i < ssr_native::kCrc32PathCount; ++i) {
    const auto path = static_cast<Crc32Path>(i);
    if (ssr_native::Crc32PathAvailable(path))
      available.Set(count++, ssr_native::Crc32PathName(path));
  }
  result.Set("available", available);
  return result;
}

// cpuFeatures() -> { sse41, pclmulqdq, avx2, avx512f, avx512bw, avx512vl, vpclmulqdq,
// avx512vbmi2 }: what the core detected (CPU and OS), so tests can check it against /proc/cpuinfo.
Napi::Value CpuFeatures(const Napi::CallbackInfo& info) {
  const ssr_native::CpuFeatures& f = ssr_native::GetCpuFeatures();
  Napi::Object result = Napi::Object::New(info.Env());
  result.Set("sse41", f.sse41);
  result.Set("pclmulqdq", f.pclmulqdq);
  result.Set("avx2", f.avx2);
  result.Set("avx512f", f.avx512f);
  result.Set("avx512bw", f.avx512bw);
  result.Set("avx512vl", f.avx512vl);
  result.Set("vpclmulqdq", f.vpclmulqdq);
  result.Set("avx512vbmi2", f.avx512vbmi2);
  return result;
}

// The per-call functions are plain Node-API callbacks: no C++ wrapper objects on the hot path.
void ExportCFunction(Napi::Env env, Napi::Object exports, const char* name,
                     napi_callback callback) {
  napi_value fn = nullptr;
  NAPI_THROW_IF_FAILED_VOID(
      env, napi_create_function(env, name, NAPI_AUTO_LENGTH, callback, nullptr, &fn));
  exports.Set(name, Napi::Value(env, fn));
}

}  // namespace

void InitEtag(Napi::Env env, Napi::Object exports) {
  exports.Set("crc32", Napi::Function::New(env, Crc32, "crc32"));
  ExportCFunction(env, exports, "entityTag", EntityTag);
  ExportCFunction(env, exports, "latin1Utf8Crc", Latin1Utf8Crc);
  ExportCFunction(env, exports, "latin1Utf8Tag", Latin1Utf8Tag);
  ExportCFunction(env, exports, "utf16Utf8Tag", Utf16Utf8Tag);
  exports.Set("crc32WithPath", Napi::Function::New(env, Crc32WithPath, "crc32WithPath"));
  exports.Set("crc32Paths", Napi::Function::New(env, Crc32Paths, "crc32Paths"));
  exports.Set("cpuFeatures", Napi::Function::New(env, CpuFeatures, "cpuFeatures"));
}

}  // namespace ssr_native_addon
