// FileCache for JavaScript. Bodies cross as external Buffers over the cache's own memory: each
// Buffer's finalizer drops one reference to the bytes, so an entry evicted or invalidated while a
// response still sends it stays alive until that Buffer is collected.
#include "file_cache_binding.h"

#include <errno.h>
#include <string.h>

#include <memory>
#include <string>

#include "bytes.h"
#include "shared_buffer.h"
#include "ssr_native/file_cache.h"

namespace ssr_native_addon {
namespace {

using ssr_native::CachedFile;
using ssr_native::FileBlob;
using ssr_native::FileCacheResult;
using ssr_native::FileCacheStatus;
using ssr_native::FileStat;

const char* StatusName(FileCacheStatus status) {
  switch (status) {
    case FileCacheStatus::kHit:
      return "hit";
    case FileCacheStatus::kLoaded:
      return "loaded";
    case FileCacheStatus::kMiss:
      return "miss";
    case FileCacheStatus::kDirectory:
      return "directory";
    case FileCacheStatus::kTooLarge:
      return "tooLarge";
    case FileCacheStatus::kNotRegular:
      return "notRegular";
    case FileCacheStatus::kOutsideRoot:
      return "outsideRoot";
    case FileCacheStatus::kError:
      return "error";
  }
  return "error";
}

// The errno names fs errors carry in `code` (the ones send distinguishes, plus common ones).
std::string ErrnoName(int error) {
  switch (error) {
    case ENOENT:
      return "ENOENT";
    case ENOTDIR:
      return "ENOTDIR";
    case ENAMETOOLONG:
      return "ENAMETOOLONG";
    case EACCES:
      return "EACCES";
    case EPERM:
      return "EPERM";
    case ELOOP:
      return "ELOOP";
    case EISDIR:
      return "EISDIR";
    case EMFILE:
      return "EMFILE";
    case ENFILE:
      return "ENFILE";
    case EIO:
      return "EIO";
    case EINVAL:
      return "EINVAL";
    case ENOMEM:
      return "ENOMEM";
    default:
      return "E" + std::to_string(error);
  }
}

// A Buffer over the blob's bytes without copying (a copy where external buffers are refused).
Napi::Value BufferOf(Napi::Env env, const std::shared_ptr<const FileBlob>& blob) {
  return SharedBuffer(env, blob, blob->data.get(), blob->size);
}

double Millis(int64_t ns) { return static_cast<double>(ns) / 1e6; }

Napi::Object StatObject(Napi::Env env, const FileStat& stat) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("size", static_cast<double>(stat.size));
  out.Set("dev", static_cast<double>(stat.dev));
  out.Set("ino", static_cast<double>(stat.ino));
  out.Set("mode", stat.mode);
  out.Set("nlink", stat.nlink);
  out.Set("uid", stat.uid);
  out.Set("gid", stat.gid);
  out.Set("rdev", static_cast<double>(stat.rdev));
  out.Set("blksize", static_cast<double>(stat.blksize));
  out.Set("blocks", static_cast<double>(stat.blocks));
  out.Set("atimeMs", Millis(stat.atime_ns));
  out.Set("mtimeMs", Millis(stat.mtime_ns));
  out.Set("ctimeMs", Millis(stat.ctime_ns));
  return out;
}

Napi::Object BlobObject(Napi::Env env, const std::shared_ptr<const FileBlob>& blob) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("body", BufferOf(env, blob));
  out.Set("etag", blob->etag);
  return out;
}

// { status, code?, stat?, settled?, id?, body?, etag? }
Napi::Object ResultObject(Napi::Env env, const FileCacheResult& result) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("status", StatusName(result.status));
  if (result.status == FileCacheStatus::kError) {
    out.Set("code", ErrnoName(result.error));
    out.Set("errno", -result.error);
    out.Set("message", strerror(result.error));
    if (result.settled) out.Set("settled", true);
    return out;
  }
  if (result.status == FileCacheStatus::kMiss || result.status == FileCacheStatus::kOutsideRoot) {
    return out;
  }
  out.Set("stat", StatObject(env, result.stat));
  if (result.settled) out.Set("settled", true);
  if (result.file) {
    out.Set("id", static_cast<double>(result.file->id));
    out.Set("body", BufferOf(env, result.file->body));
    out.Set("etag", result.file->body->etag);
    out.Set("cached", result.cached);
  }
  return out;
}

std::string PathArgument(const Napi::CallbackInfo& info, size_t index) {
  if (info.Length() <= index || !info[index].IsString()) {
    throw Napi::TypeError::New(info.Env(), "path must be a string");
  }
  return info[index].As<Napi::String>().Utf8Value();
}

double NumberOption(const Napi::Object& options, const char* name, double fallback) {
  Napi::Value value = options.Get(name);
  return value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : fallback;
}

bool BoolOption(const Napi::Object& options, const char* name, bool fallback) {
  Napi::Value value = options.Get(name);
  return value.IsBoolean() ? value.As<Napi::Boolean>().Value() : fallback;
}

// Loads one file on the libuv pool. Execute runs on a worker thread: no JS values there.
class LoadWorker : public Napi::AsyncWorker {
 public:
  LoadWorker(Napi::Function callback, std::shared_ptr<ssr_native::FileCache> cache,
             std::string path, std::string top)
      : Napi::AsyncWorker(callback, "ssr-native:file-cache-load"),
        cache_(std::move(cache)),
        path_(std::move(path)),
        top_(std::move(top)) {
    SuppressDestruct();  // OnWorkComplete destroys it, whatever happens
  }

  void Execute() override {
    try {
      result_ = cache_->Load(path_, top_);
    } catch (const std::exception& e) {
      SetError(e.what());
    } catch (...) {
      SetError("file cache load failed");
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    Callback().Call({env.Null(), ResultObject(env, result_)});
  }

  // In a worker thread being terminated the env can no longer run JavaScript nor take an
  // exception: node-addon-api would then throw out of its callback wrapper and abort the
  // process. Nothing can be reported to a dying env, so the error is dropped there.
  void OnWorkComplete(Napi::Env env, napi_status status) override {
    try {
      Napi::AsyncWorker::OnWorkComplete(env, status);
    } catch (...) {
    }
    Destroy();
  }

 private:
  std::shared_ptr<ssr_native::FileCache> cache_;
  std::string path_;
  std::string top_;  // the mount root a miss's watches start from ("" = the cache's root)
  FileCacheResult result_;
};

class FileCacheWrap : public Napi::ObjectWrap<FileCacheWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "FileCache",
                       {
                           InstanceMethod<&FileCacheWrap::Lookup>("lookup"),
                           InstanceMethod<&FileCacheWrap::Load>("load"),
                           InstanceMethod<&FileCacheWrap::Touch>("touch"),
                           InstanceMethod<&FileCacheWrap::Generation>("generation"),
                           InstanceMethod<&FileCacheWrap::AttachVariant>("attachVariant"),
                           InstanceMethod<&FileCacheWrap::Variant>("variant"),
                           InstanceMethod<&FileCacheWrap::Invalidate>("invalidate"),
                           InstanceMethod<&FileCacheWrap::Clear>("clear"),
                           InstanceMethod<&FileCacheWrap::Stats>("stats"),
                           InstanceMethod<&FileCacheWrap::Close>("close"),
                       });
  }

  explicit FileCacheWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<FileCacheWrap>(info) {
    ssr_native::FileCacheOptions options;
    if (info.Length() > 0 && info[0].IsObject()) {
      Napi::Object o = info[0].As<Napi::Object>();
      Napi::Value root = o.Get("root");
      if (root.IsString()) options.root = root.As<Napi::String>().Utf8Value();
      options.max_bytes = static_cast<uint64_t>(
          NumberOption(o, "maxBytes", static_cast<double>(options.max_bytes)));
      options.max_file_size = static_cast<uint64_t>(
          NumberOption(o, "maxFileSize", static_cast<double>(options.max_file_size)));
      options.watch = BoolOption(o, "watch", options.watch);
      options.sweep_interval_ms =
          static_cast<int>(NumberOption(o, "sweepIntervalMs", options.sweep_interval_ms));
      options.allow_outside_root = BoolOption(o, "allowOutsideRoot", options.allow_outside_root);
    }
    cache_ = std::make_shared<ssr_native::FileCache>(std::move(options));
  }

 private:
  ssr_native::FileCache& cache(const Napi::CallbackInfo& info) {
    if (!cache_) throw Napi::Error::New(info.Env(), "FileCache is closed");
    return *cache_;
  }

  Napi::Value Lookup(const Napi::CallbackInfo& info) {
    return ResultObject(info.Env(), cache(info).Lookup(PathArgument(info, 0)));
  }

  // load(path, callback(err, result), top?): top = the mount root a miss's watches start from
  Napi::Value Load(const Napi::CallbackInfo& info) {
    cache(info);
    std::string path = PathArgument(info, 0);
    if (info.Length() < 2 || !info[1].IsFunction()) {
      throw Napi::TypeError::New(info.Env(), "callback must be a function");
    }
    std::string top = info.Length() > 2 && !info[2].IsUndefined() ? PathArgument(info, 2) : "";
    auto* worker =
        new LoadWorker(info[1].As<Napi::Function>(), cache_, std::move(path), std::move(top));
    worker->Queue();
    return info.Env().Undefined();
  }

  // touch(id) -> generation: the per-hit call, kept minimal.
  Napi::Value Touch(const Napi::CallbackInfo& info) {
    const double id = info[0].As<Napi::Number>().DoubleValue();
    return Napi::Number::New(info.Env(), cache(info).Touch(static_cast<uint64_t>(id)));
  }

  Napi::Value Generation(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), cache(info).Generation());
  }

  // attachVariant(id, encoding, bytes) -> { body, etag } | null
  Napi::Value AttachVariant(const Napi::CallbackInfo& info) {
    const double id = info[0].As<Napi::Number>().DoubleValue();
    const std::string encoding = PathArgument(info, 1);
    std::string scratch;
    const ByteView bytes = BytesOf(info[2], &scratch, "bytes");
    auto blob =
        cache(info).AttachVariant(static_cast<uint64_t>(id), encoding, bytes.data, bytes.size);
    if (!blob) return info.Env().Null();
    return BlobObject(info.Env(), blob);
  }

  Napi::Value Variant(const Napi::CallbackInfo& info) {
    const double id = info[0].As<Napi::Number>().DoubleValue();
    auto blob = cache(info).Variant(static_cast<uint64_t>(id), PathArgument(info, 1));
    if (!blob) return info.Env().Null();
    return BlobObject(info.Env(), blob);
  }

  Napi::Value Invalidate(const Napi::CallbackInfo& info) {
    cache(info).Invalidate(PathArgument(info, 0));
    return info.Env().Undefined();
  }

  Napi::Value Clear(const Napi::CallbackInfo& info) {
    cache(info).Clear();
    return info.Env().Undefined();
  }

  Napi::Value Stats(const Napi::CallbackInfo& info) {
    const ssr_native::FileCacheStats s = cache(info).Stats();
    Napi::Object out = Napi::Object::New(info.Env());
    out.Set("hits", static_cast<double>(s.hits));
    out.Set("misses", static_cast<double>(s.misses));
    out.Set("entries", static_cast<double>(s.entries));
    out.Set("bytes", static_cast<double>(s.bytes));
    out.Set("evictions", static_cast<double>(s.evictions));
    out.Set("invalidations", static_cast<double>(s.invalidations));
    out.Set("watchedDirectories", static_cast<double>(s.watched_directories));
    out.Set("rereads", static_cast<double>(s.rereads));
    out.Set("unstableLoads", static_cast<double>(s.unstable_loads));
    out.Set("loads", static_cast<double>(s.loads));
    out.Set("watchFallbacks", static_cast<double>(s.watch_fallbacks));
    out.Set("inotify", s.inotify);
    return out;
  }

  // Stops the watcher thread and drops every entry now (pending loads keep it alive until done).
  Napi::Value Close(const Napi::CallbackInfo& info) {
    cache_.reset();
    return info.Env().Undefined();
  }

  std::shared_ptr<ssr_native::FileCache> cache_;
};

}  // namespace

void InitFileCache(Napi::Env env, Napi::Object exports) {
  exports.Set("FileCache", FileCacheWrap::Define(env));
}

}  // namespace ssr_native_addon
