// FileCache for JavaScript. Bodies cross as external Buffers over the cache's own memory: each
// Buffer's finalizer drops one reference to the bytes, so an entry evicted or invalidated while a
// response still sends it stays alive until that Buffer is collected.
#include "file_cache_binding.h"

#include <errno.h>
#include <string.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>

#include "args.h"
#include "bytes.h"
#include "safe_worker.h"
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

// A byte bound from 0 up; Infinity (no bound) and anything past 2^64 - 1 become 2^64 - 1.
uint64_t ByteLimitOption(const Napi::Object& options, const char* key, uint64_t fallback) {
  const double value = NumberOption(options, "options", key, 0, INFINITY, -1);
  if (value < 0) return fallback;
  return value >= 18446744073709551615.0 ? UINT64_MAX : static_cast<uint64_t>(value);
}

// Loads one file on the libuv pool. Execute runs on a worker thread: no JS values there.
class LoadWorker : public SafeWorker {
 public:
  LoadWorker(Napi::Function callback, std::shared_ptr<ssr_native::FileCache> cache,
             std::string path, std::string top)
      : SafeWorker(callback, "ssr-native:file-cache-load"),
        cache_(std::move(cache)),
        path_(std::move(path)),
        top_(std::move(top)) {}

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
    if (!Arg(info, 0).IsUndefined()) {
      Napi::Object o = ObjectArg(info, 0, "options");
      options.root = StringOption(o, "options", "root", options.root);
      options.max_bytes = ByteLimitOption(o, "maxBytes", options.max_bytes);
      options.max_file_size = ByteLimitOption(o, "maxFileSize", options.max_file_size);
      options.watch = BoolOption(o, "options", "watch", options.watch);
      options.sweep_interval_ms = static_cast<int>(std::min<double>(
          NumberOption(o, "options", "sweepIntervalMs", 0, INFINITY, options.sweep_interval_ms),
          INT_MAX));
      options.allow_outside_root =
          BoolOption(o, "options", "allowOutsideRoot", options.allow_outside_root);
    }
    cache_ = std::make_shared<ssr_native::FileCache>(std::move(options));
  }

 private:
  ssr_native::FileCache& cache(const Napi::CallbackInfo& info) {
    if (!cache_) throw OwnError(info.Env(), "CLOSED", "FileCache is closed");
    return *cache_;
  }

  Napi::Value Lookup(const Napi::CallbackInfo& info) {
    return ResultObject(info.Env(), cache(info).Lookup(StringArg(info, 0, "path")));
  }

  // load(path, callback(err, result), top?): top = the mount root a miss's watches start from
  Napi::Value Load(const Napi::CallbackInfo& info) {
    cache(info);
    std::string path = StringArg(info, 0, "path");
    Napi::Function callback = FunctionArg(info, 1, "callback");
    std::string top = Arg(info, 2).IsUndefined() ? "" : StringArg(info, 2, "top");
    auto* worker = new LoadWorker(callback, cache_, std::move(path), std::move(top));
    worker->Queue();
    return info.Env().Undefined();
  }

  // touch(id) -> generation: the per-hit call, kept minimal.
  Napi::Value Touch(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), cache(info).Touch(SafeUintArg(info, 0, "id")));
  }

  Napi::Value Generation(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), cache(info).Generation());
  }

  // attachVariant(id, encoding, bytes) -> { body, etag } | null
  Napi::Value AttachVariant(const Napi::CallbackInfo& info) {
    const uint64_t id = SafeUintArg(info, 0, "id");
    const std::string encoding = StringArg(info, 1, "encoding");
    std::string scratch;
    const ByteView bytes = BytesOf(Arg(info, 2), &scratch, "bytes");
    auto blob = cache(info).AttachVariant(id, encoding, bytes.data, bytes.size);
    if (!blob) return info.Env().Null();
    return BlobObject(info.Env(), blob);
  }

  Napi::Value Variant(const Napi::CallbackInfo& info) {
    const uint64_t id = SafeUintArg(info, 0, "id");
    auto blob = cache(info).Variant(id, StringArg(info, 1, "encoding"));
    if (!blob) return info.Env().Null();
    return BlobObject(info.Env(), blob);
  }

  Napi::Value Invalidate(const Napi::CallbackInfo& info) {
    cache(info).Invalidate(StringArg(info, 0, "path"));
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
