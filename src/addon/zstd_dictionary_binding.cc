// Zstandard dictionaries for JavaScript (lib/compression/dcz.js): training, large encodings and
// the preparation of large dictionaries run on libuv's pool (AsyncWorker); an encoder crosses as
// an External that owns its prepared dictionary, freed when V8 collects the External and no
// encoding in flight still holds it.
#include "zstd_dictionary_binding.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "bytes.h"
#include "safe_worker.h"
#include "ssr_native/dictionary_builder.h"
#include "ssr_native/zstd_dictionary.h"

namespace ssr_native_addon {
namespace {

using ssr_native::DczDecodeStatus;
using ssr_native::ZstdDictionaryEncoder;
using EncoderHandle = std::shared_ptr<const ZstdDictionaryEncoder>;

constexpr size_t kMaxDictionaryCapacity = size_t{8} << 20;
constexpr int32_t kMinLevel = 1;
constexpr int32_t kMaxLevel = 19;
constexpr double kMaxDecodedBytes = 1 << 30;

// A dictionary's capacity (zstdTrainDictionary, zstdChooseDictionary): 256 bytes to 8 MiB.
size_t CapacityArg(const Napi::CallbackInfo& info, size_t index) {
  return static_cast<size_t>(
      NumberArg(info, index, "capacity", 256, static_cast<double>(kMaxDictionaryCapacity)));
}

EncoderHandle EncoderArg(const Napi::CallbackInfo& info, size_t index) {
  return *static_cast<EncoderHandle*>(
      ExternalArg(info, index, "encoder", "a zstd dictionary encoder"));
}

const uint8_t* HashArg(const Napi::CallbackInfo& info, size_t index) {
  return ViewBytesOf(Arg(info, index), "hash", ssr_native::kDczHashSize, ssr_native::kDczHashSize)
      .data;
}

Napi::Value Status(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object status = Napi::Object::New(env);
  status.Set("available", ssr_native::ZstdAvailable());
  status.Set("error", ssr_native::ZstdLoadError());
  return status;
}

// Runs `work` on the pool; callback(err, Buffer).
class BytesWorker : public SafeWorker {
 public:
  BytesWorker(Napi::Function callback, const char* name) : SafeWorker(callback, name) {}

  void OnOK() override {
    Napi::Env env = Env();
    Callback().Call(
        {env.Null(), Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<const uint8_t*>(out_.data()),
                                                 out_.size())});
  }

 protected:
  std::string out_;
};

class TrainWorker : public BytesWorker {
 public:
  TrainWorker(Napi::Function callback, std::vector<std::string> samples, size_t capacity)
      : BytesWorker(callback, "ssr-native:zstd-train"),
        samples_(std::move(samples)),
        capacity_(capacity) {}

  void Execute() override {
    std::string error;
    if (!ssr_native::TrainZstdDictionary(samples_, capacity_, &out_, &error)) SetError(error);
  }

 private:
  std::vector<std::string> samples_;
  size_t capacity_;
};

// zstdTrainDictionary(samples: Buffer[], capacity, callback(err, dictionary))
Napi::Value Train(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<std::string> samples = ViewCopiesOf(Arg(info, 0), "samples");
  const size_t capacity = CapacityArg(info, 1);
  Napi::Function callback = FunctionArg(info, 2, "callback");
  auto* worker = new TrainWorker(callback, std::move(samples), capacity);
  worker->Queue();
  return env.Undefined();
}

class ChooseWorker : public SafeWorker {
 public:
  ChooseWorker(Napi::Function callback, std::vector<std::string> samples, size_t capacity,
               int level, std::string current, double improvement)
      : SafeWorker(callback, "ssr-native:dictionary-choose"),
        samples_(std::move(samples)),
        capacity_(capacity),
        level_(level),
        current_(std::move(current)),
        improvement_(improvement) {}

  void Execute() override {
    try {
      choice_ = ssr_native::ChooseDictionary(samples_, capacity_, level_, current_, improvement_);
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::Object result = Napi::Object::New(env);
    if (choice_.dictionary.empty()) {
      result.Set("dictionary", env.Null());
    } else {
      result.Set("dictionary", Napi::Buffer<uint8_t>::Copy(
                                   env, reinterpret_cast<const uint8_t*>(choice_.dictionary.data()),
                                   choice_.dictionary.size()));
    }
    result.Set("method", choice_.method);
    result.Set("trainedBytes", static_cast<double>(choice_.trained_bytes));
    result.Set("commonBytes", static_cast<double>(choice_.common_bytes));
    result.Set("currentBytes", static_cast<double>(choice_.current_bytes));
    Callback().Call({env.Null(), result});
  }

 private:
  std::vector<std::string> samples_;
  size_t capacity_;
  int level_;
  std::string current_;
  double improvement_;
  ssr_native::DictionaryChoice choice_;
};

// zstdChooseDictionary(samples, capacity, level, current | null, improvement, callback(err,
// choice))
Napi::Value Choose(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<std::string> samples = ViewCopiesOf(Arg(info, 0), "samples");
  const size_t capacity = CapacityArg(info, 1);
  const int level = Int32Arg(info, 2, "level", kMinLevel, kMaxLevel);
  std::string current;
  if (!Arg(info, 3).IsNull() && !Arg(info, 3).IsUndefined()) {
    const ByteView view = ViewBytesOf(Arg(info, 3), "current");
    current.assign(reinterpret_cast<const char*>(view.data), view.size);
  }
  const double improvement = NumberArg(info, 4, "improvement", -INFINITY, INFINITY);
  Napi::Function callback = FunctionArg(info, 5, "callback");
  auto* worker = new ChooseWorker(callback, std::move(samples), capacity, level, std::move(current),
                                  improvement);
  worker->Queue();
  return env.Undefined();
}

// The dictionary and level of zstdDictionaryEncoder(Async), checked.
struct EncoderArgs {
  ByteView dictionary;
  int level;
};

EncoderArgs EncoderArgsOf(const Napi::CallbackInfo& info) {
  const ByteView dictionary = ViewBytesOf(Arg(info, 0), "dictionary", 1, kMaxDictionaryCapacity);
  const int level = Int32Arg(info, 1, "level", kMinLevel, kMaxLevel);
  return {dictionary, level};
}

Napi::Value EncoderExternal(Napi::Env env, std::unique_ptr<ZstdDictionaryEncoder> encoder) {
  return Napi::External<EncoderHandle>::New(
      env, new EncoderHandle(std::move(encoder)),
      [](Napi::Env, EncoderHandle* handle) { delete handle; });
}

// zstdDictionaryEncoder(dictionary, level) -> External
Napi::Value CreateEncoder(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const EncoderArgs args = EncoderArgsOf(info);
  std::string error;
  std::unique_ptr<ZstdDictionaryEncoder> encoder =
      ZstdDictionaryEncoder::Create(args.dictionary.data, args.dictionary.size, args.level, &error);
  if (!encoder) throw OwnError(env, "ZSTD", error);
  return EncoderExternal(env, std::move(encoder));
}

// Preparing a dictionary (ZSTD_createCDict) takes time in proportion to its size: a large one is
// prepared here, off the JavaScript thread.
class CreateEncoderWorker : public SafeWorker {
 public:
  CreateEncoderWorker(Napi::Function callback, std::string dictionary, int level)
      : SafeWorker(callback, "ssr-native:zstd-dictionary-prepare"),
        dictionary_(std::move(dictionary)),
        level_(level) {}

  void Execute() override {
    std::string error;
    encoder_ = ZstdDictionaryEncoder::Create(reinterpret_cast<const uint8_t*>(dictionary_.data()),
                                             dictionary_.size(), level_, &error);
    if (!encoder_) SetError(error);
  }

  void OnOK() override {
    Napi::Env env = Env();
    Callback().Call({env.Null(), EncoderExternal(env, std::move(encoder_))});
  }

 private:
  std::string dictionary_;  // a copy: the caller's buffer may be collected while this runs
  int level_;
  std::unique_ptr<ZstdDictionaryEncoder> encoder_;
};

// zstdDictionaryEncoderAsync(dictionary, level, callback(err, External)) on the pool
Napi::Value CreateEncoderAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const EncoderArgs args = EncoderArgsOf(info);
  Napi::Function callback = FunctionArg(info, 2, "callback");
  auto* worker = new CreateEncoderWorker(
      callback,
      std::string(reinterpret_cast<const char*>(args.dictionary.data), args.dictionary.size),
      args.level);
  worker->Queue();
  return env.Undefined();
}

// dczEncode(encoder, hash, body) -> Buffer, on this thread
Napi::Value Encode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  EncoderHandle encoder = EncoderArg(info, 0);
  const uint8_t* hash = HashArg(info, 1);
  const ByteView body = ViewBytesOf(Arg(info, 2), "body");
  std::string out;
  std::string error;
  if (!encoder->EncodeDcz(hash, body.data, body.size, &out, &error))
    throw OwnError(env, "ZSTD", error);
  return Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<const uint8_t*>(out.data()), out.size());
}

class EncodeWorker : public BytesWorker {
 public:
  EncodeWorker(Napi::Function callback, EncoderHandle encoder, const uint8_t* hash,
               std::string body)
      : BytesWorker(callback, "ssr-native:dcz-encode"),
        encoder_(std::move(encoder)),
        body_(std::move(body)) {
    std::copy(hash, hash + ssr_native::kDczHashSize, hash_);
  }

  void Execute() override {
    std::string error;
    if (!encoder_->EncodeDcz(hash_, reinterpret_cast<const uint8_t*>(body_.data()), body_.size(),
                             &out_, &error)) {
      SetError(error);
    }
  }

 private:
  EncoderHandle encoder_;
  uint8_t hash_[ssr_native::kDczHashSize];
  std::string body_;  // a copy: the caller's buffer may be collected while this runs
};

// dczEncodeAsync(encoder, hash, body, callback(err, Buffer)) on the pool
Napi::Value EncodeAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  EncoderHandle encoder = EncoderArg(info, 0);
  const uint8_t* hash = HashArg(info, 1);
  const ByteView body = ViewBytesOf(Arg(info, 2), "body");
  Napi::Function callback = FunctionArg(info, 3, "callback");
  auto* worker = new EncodeWorker(callback, std::move(encoder), hash,
                                  std::string(reinterpret_cast<const char*>(body.data), body.size));
  worker->Queue();
  return env.Undefined();
}

const char* DecodeStatusName(DczDecodeStatus status) {
  switch (status) {
    case DczDecodeStatus::kOk:
      return "ok";
    case DczDecodeStatus::kTruncated:
      return "truncated";
    case DczDecodeStatus::kBadMagic:
      return "bad magic";
    case DczDecodeStatus::kWrongDictionary:
      return "wrong dictionary";
    case DczDecodeStatus::kCorrupt:
      return "corrupt";
    case DczDecodeStatus::kTooLarge:
      return "too large";
    case DczDecodeStatus::kUnavailable:
      return "zstd unavailable";
  }
  return "corrupt";
}

// dczDecode(dictionary, hash, input, maxOutput) -> Buffer; throws Error('dcz: <status>')
Napi::Value Decode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ByteView dictionary = ViewBytesOf(Arg(info, 0), "dictionary");
  const uint8_t* hash = HashArg(info, 1);
  const ByteView input = ViewBytesOf(Arg(info, 2), "input");
  const double max_output = NumberArg(info, 3, "maxOutput", 0, kMaxDecodedBytes);
  std::string out;
  DczDecodeStatus status = ssr_native::DecodeDcz(dictionary.data, dictionary.size, hash, input.data,
                                                 input.size, static_cast<size_t>(max_output), &out);
  if (status != DczDecodeStatus::kOk)
    throw OwnError(env, "DCZ_DECODE", std::string("dcz: ") + DecodeStatusName(status));
  return Napi::Buffer<uint8_t>::Copy(env, reinterpret_cast<const uint8_t*>(out.data()), out.size());
}

}  // namespace

void InitZstdDictionary(Napi::Env env, Napi::Object exports) {
  exports.Set("zstdDictionaryStatus", Napi::Function::New(env, Status, "zstdDictionaryStatus"));
  exports.Set("zstdTrainDictionary", Napi::Function::New(env, Train, "zstdTrainDictionary"));
  exports.Set("zstdChooseDictionary", Napi::Function::New(env, Choose, "zstdChooseDictionary"));
  exports.Set("zstdDictionaryEncoder",
              Napi::Function::New(env, CreateEncoder, "zstdDictionaryEncoder"));
  exports.Set("zstdDictionaryEncoderAsync",
              Napi::Function::New(env, CreateEncoderAsync, "zstdDictionaryEncoderAsync"));
  exports.Set("dczEncode", Napi::Function::New(env, Encode, "dczEncode"));
  exports.Set("dczEncodeAsync", Napi::Function::New(env, EncodeAsync, "dczEncodeAsync"));
  exports.Set("dczDecode", Napi::Function::New(env, Decode, "dczDecode"));
}

}  // namespace ssr_native_addon
