// SharedCache for JavaScript: new SharedCache(path, maxBytes, maxEntries, persist, lockWaitMs
// = 5, at most 60000) (an Error with code ERR_SSR_NATIVE_SHARED_CACHE naming the file and why
// when it cannot be opened);
// get(key, now, knownStamp, metaStamp = 0) -> undefined (miss) | knownStamp (unchanged:
// nothing copied) | [stamp, meta string (undefined when stamp is metaStamp: the caller has
// it), body Buffer (allocated here, the core copying the body straight from the segment into
// it and checking its CRC there: one copy; an external Buffer over a copy cost ~6x more per
// hit in its finalizer and GC handle), slot (its index in the stamp table)]; stampTable() ->
// [ArrayBuffer over the segment's index slots (it keeps the mapping alive), slot bytes, seq,
// hash, stamp and ref offsets] (undefined where the runtime refuses external ArrayBuffers:
// ask get() with the known stamp instead); put(key, target, primary, tags, meta,
// body, expiresAt) -> bool; delete(key); purge(field, arg, prefix) -> count; keys(field, arg,
// prefix); lock(key, now, ms) -> bool; unlock(key); stats() (with lockTimeouts: operations
// that found the segment's mutex held past lockWaitMs: put false, lock false, a purge cut
// short; putsGivenUp). Main thread or worker threads.
#include "shared_cache_binding.h"

#include <algorithm>
#include <memory>
#include <string>

#include "args.h"
#include "bytes.h"
#include "ssr_native/shared_cache.h"

namespace ssr_native_addon {

namespace {

using ssr_native::SharedCache;

SharedCache::Field FieldArg(const Napi::CallbackInfo& info, size_t index) {
  const uint32_t field = Uint32Arg(info, index, "the purge field");
  if (field > 3) {
    throw ArgRangeError(info.Env(),
                        ExpectedMessage(info.Env(), "0 to 3", "the purge field", info[index]));
  }
  return static_cast<SharedCache::Field>(field);
}

int64_t TimeArg(const Napi::CallbackInfo& info, size_t index, const char* name) {
  return static_cast<int64_t>(SafeUintArg(info, index, name));
}

class SharedCacheWrap : public Napi::ObjectWrap<SharedCacheWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "SharedCache",
                       {
                           InstanceMethod<&SharedCacheWrap::Get>("get"),
                           InstanceMethod<&SharedCacheWrap::Put>("put"),
                           InstanceMethod<&SharedCacheWrap::Delete>("delete"),
                           InstanceMethod<&SharedCacheWrap::Purge>("purge"),
                           InstanceMethod<&SharedCacheWrap::Keys>("keys"),
                           InstanceMethod<&SharedCacheWrap::Lock>("lock"),
                           InstanceMethod<&SharedCacheWrap::Unlock>("unlock"),
                           InstanceMethod<&SharedCacheWrap::Stats>("stats"),
                           InstanceMethod<&SharedCacheWrap::StampTable>("stampTable"),
                       });
  }

  explicit SharedCacheWrap(const Napi::CallbackInfo& info)
      : Napi::ObjectWrap<SharedCacheWrap>(info) {
    const std::string path = StringArg(info, 0, "the segment path");
    const uint64_t maxBytes = SafeUintArg(info, 1, "maxBytes");
    const uint32_t maxEntries = Uint32Arg(info, 2, "maxEntries");
    const bool persist = Arg(info, 3).ToBoolean().Value();
    std::string error;
    cache_ = SharedCache::Open(path, maxBytes, maxEntries, persist, &error);
    if (!cache_) {
      Napi::Error err = Napi::Error::New(info.Env(), "ssr-native shared cache: " + error);
      err.Set("code", Napi::String::New(info.Env(), "ERR_SSR_NATIVE_SHARED_CACHE"));
      throw err;
    }
    if (info.Length() > 4 && !info[4].IsUndefined())
      cache_->set_lock_wait_us(std::min(Uint32Arg(info, 4, "lockWaitMs"), 60000u) * 1000);
  }

 private:
  Napi::Value Get(const Napi::CallbackInfo& info) {
    const std::string key = StringArg(info, 0, "the key");
    const int64_t now = TimeArg(info, 1, "now");
    const uint64_t known = SafeUintArg(info, 2, "the known stamp");
    const uint64_t metaKnown = info.Length() > 3 ? SafeUintArg(info, 3, "the metadata's stamp") : 0;
    Napi::Env env = info.Env();
    std::string meta;
    Napi::Buffer<uint8_t> body;  // the core copies the body once, into it, and checks it there
    uint32_t slot = 0;
    const uint64_t stamp = cache_->Get(
        key, now, known, &meta,
        [&](size_t size) {
          body = Napi::Buffer<uint8_t>::New(env, size);
          return body.Data();
        },
        &slot);
    if (stamp == 0) return env.Undefined();
    if (stamp == known) return Napi::Number::New(env, static_cast<double>(stamp));
    Napi::Array out = Napi::Array::New(env, 4);
    out.Set(0u, Napi::Number::New(env, static_cast<double>(stamp)));
    out.Set(1u, stamp == metaKnown ? env.Undefined() : Napi::String::New(env, meta));
    out.Set(2u, body);
    out.Set(3u, Napi::Number::New(env, slot));
    return out;
  }

  Napi::Value Put(const Napi::CallbackInfo& info) {
    const std::string key = StringArg(info, 0, "the key");
    SharedCache::Record r;
    r.target = StringArg(info, 1, "the target");
    r.primary = StringArg(info, 2, "the primary key");
    r.tags = StringArg(info, 3, "the tags");
    r.meta = StringArg(info, 4, "the metadata");
    std::string scratch;
    const ByteView body = BytesOf(Arg(info, 5), &scratch, "the body");
    r.body = body.data;
    r.bodySize = body.size;
    r.expiresAtMs = TimeArg(info, 6, "expiresAt");
    return Napi::Boolean::New(info.Env(), cache_->Put(key, r));
  }

  Napi::Value Delete(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), cache_->Delete(StringArg(info, 0, "the key")));
  }

  Napi::Value Purge(const Napi::CallbackInfo& info) {
    const SharedCache::Field field = FieldArg(info, 0);
    const uint64_t n = cache_->Purge(field, StringArg(info, 1, "the purge argument"),
                                     Arg(info, 2).ToBoolean().Value());
    return Napi::Number::New(info.Env(), static_cast<double>(n));
  }

  Napi::Value Keys(const Napi::CallbackInfo& info) {
    const SharedCache::Field field = FieldArg(info, 0);
    const auto keys = cache_->Keys(field, StringArg(info, 1, "the purge argument"),
                                   Arg(info, 2).ToBoolean().Value());
    Napi::Array out = Napi::Array::New(info.Env(), keys.size());
    for (size_t i = 0; i < keys.size(); ++i) out.Set(i, Napi::String::New(info.Env(), keys[i]));
    return out;
  }

  Napi::Value Lock(const Napi::CallbackInfo& info) {
    const std::string key = StringArg(info, 0, "the key");
    const int64_t now = TimeArg(info, 1, "now");
    const int64_t ms = TimeArg(info, 2, "the lock's duration");
    return Napi::Boolean::New(info.Env(), cache_->TryLock(key, now, ms));
  }

  Napi::Value Unlock(const Napi::CallbackInfo& info) {
    cache_->Unlock(StringArg(info, 0, "the key"));
    return info.Env().Undefined();
  }

  Napi::Value Stats(const Napi::CallbackInfo& info) {
    const auto s = cache_->Stats();
    Napi::Object out = Napi::Object::New(info.Env());
    out.Set("entries", static_cast<double>(s.entries));
    out.Set("bytes", static_cast<double>(s.bytes));
    out.Set("maxBytes", static_cast<double>(s.maxBytes));
    out.Set("evictions", static_cast<double>(s.evictions));
    out.Set("repairs", static_cast<double>(s.repairs));
    out.Set("putsGivenUp", static_cast<double>(s.putsGivenUp));
    out.Set("lockTimeouts", static_cast<double>(s.lockTimeouts));
    return out;
  }

  Napi::Value StampTable(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const SharedCache::StampTable t = cache_->Stamps();
    if (t.data == nullptr) return env.Undefined();
    // the ArrayBuffer holds the cache (its mapping) until V8 collects it
    auto* hint = new std::shared_ptr<SharedCache>(cache_);
    napi_value buffer = nullptr;
    const napi_status status = napi_create_external_arraybuffer(
        env, t.data, static_cast<size_t>(t.count * t.bytes),
        [](napi_env, void*, void* h) { delete static_cast<std::shared_ptr<SharedCache>*>(h); },
        hint, &buffer);
    if (status != napi_ok) {
      delete hint;
      if (env.IsExceptionPending()) env.GetAndClearPendingException();
      return env.Undefined();
    }
    Napi::Array out = Napi::Array::New(env, 6);
    out.Set(0u, Napi::Value(env, buffer));
    out.Set(1u, Napi::Number::New(env, t.bytes));
    out.Set(2u, Napi::Number::New(env, t.seqAt));
    out.Set(3u, Napi::Number::New(env, t.hashAt));
    out.Set(4u, Napi::Number::New(env, t.stampAt));
    out.Set(5u, Napi::Number::New(env, t.refAt));
    return out;
  }

  std::shared_ptr<SharedCache> cache_;
};

}  // namespace

void InitSharedCache(Napi::Env env, Napi::Object exports) {
  exports.Set("SharedCache", SharedCacheWrap::Define(env));
}

}  // namespace ssr_native_addon
