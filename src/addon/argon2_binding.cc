// Argon2 for JavaScript. The hash runs on the process-wide HashPool (not libuv's pool); its
// result comes back through one thread-safe function per environment (main thread or worker),
// whose callback settles the promise on that environment's JS thread.
//
// Worker termination: when an environment is torn down, Node closes and then finalizes its
// thread-safe function. The finalizer closes a Gate (under its mutex); pool threads only call
// into the thread-safe function while holding that mutex and seeing the gate open, so a hash
// that finishes after its worker died just wipes and frees its result.
#include "argon2_binding.h"

#include <napi.h>

#if defined(__linux__) || defined(__APPLE__)
#include <dlfcn.h>
#endif

#include <memory>
#include <mutex>
#include <new>
#include <vector>

#include "args.h"
#include "bytes.h"
#include "ssr_native/argon2.h"
#include "ssr_native/blake2b.h"
#include "ssr_native/hash_pool.h"
#include "ssr_native/shared_permits.h"

namespace ssr_native_addon {
namespace {

using ssr_native::Argon2Status;
using ssr_native::HashPool;

// ---- The process-wide pool (shared by every environment, never destroyed: pool threads may
// still be running when the process exits, and must not find their pool gone).
std::mutex g_pool_mutex;
HashPool* g_pool = nullptr;
HashPool::Options g_pool_options;

// Node unloads (dlclose) an addon when the last environment that loaded it goes away, e.g.
// a worker thread that was the only user. Pool threads run this library's code, so once the
// pool exists the library must stay mapped: RTLD_NODELETE pins it for the process lifetime.
void PinThisLibrary() {
#if defined(__linux__) || defined(__APPLE__)
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&PinThisLibrary), &info) != 0 && info.dli_fname != nullptr) {
    // The handle is deliberately never closed.
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
#endif
}

HashPool& Pool() {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (g_pool == nullptr) {
    PinThisLibrary();
    HashPool::Options options = g_pool_options;
    // Pool threads keep their last arena between hashes and free it after 2 s without work.
    options.on_idle = [] { ssr_native::Argon2ReleaseThreadMemory(); };
    g_pool = new HashPool(options);
  }
  return *g_pool;
}

// The machine-wide budget (null: none). Hashes hold a reference to the one they took a permit
// from, so replacing it while they run is safe.
std::mutex g_shared_mutex;
std::shared_ptr<ssr_native::SharedPermits> g_shared;

std::shared_ptr<ssr_native::SharedPermits> SharedBudget() {
  std::lock_guard<std::mutex> lock(g_shared_mutex);
  return g_shared;
}

struct Gate {
  std::mutex mutex;
  bool open = true;
  napi_threadsafe_function tsfn = nullptr;
};

// Per environment; freed by an env cleanup hook.
struct EnvState {
  std::shared_ptr<Gate> gate;
  size_t pending = 0;  // JS thread only: hashes whose promise is not settled yet
};

// Secret-bearing bytes: wiped when freed.
struct SecretBytes {
  std::vector<uint8_t> bytes;
  SecretBytes() = default;
  SecretBytes(const SecretBytes&) = delete;
  SecretBytes& operator=(const SecretBytes&) = delete;
  void Assign(const ByteView& view) { bytes.assign(view.data, view.data + view.size); }
  ~SecretBytes() { ssr_native::SecureWipe(bytes.data(), bytes.size()); }
};

// Everything a hash needs, copied off the JS heap; worker thread code reads only this.
struct HashRequest {
  EnvState* state = nullptr;  // JS thread only
  std::shared_ptr<Gate> gate;
  napi_deferred deferred = nullptr;
  ssr_native::Argon2Params params;
  SecretBytes password, salt, secret, associated_data, tag;
  uint32_t tag_size = 0;
  Argon2Status status = Argon2Status::kOk;
};

// Pool thread: no JS values. Never throws.
void RunHash(HashRequest* request) {
  const std::shared_ptr<ssr_native::SharedPermits> shared = SharedBudget();
  unsigned slot = 0;
  bool holding = false;
  try {
    request->tag.bytes.resize(request->tag_size);
    request->params.reuse_thread_memory = true;
    ssr_native::Argon2Inputs in;
    in.password = request->password.bytes.data();
    in.password_size = request->password.bytes.size();
    in.salt = request->salt.bytes.data();
    in.salt_size = request->salt.bytes.size();
    in.secret = request->secret.bytes.data();
    in.secret_size = request->secret.bytes.size();
    in.associated_data = request->associated_data.bytes.data();
    in.associated_data_size = request->associated_data.bytes.size();
    HashPool& pool = Pool();
    // Machine-wide budget: wait for a permit before the arena is touched. A thread that has to
    // wait first frees the arena it kept from its last hash, so arenas in use across the
    // machine stay within the budget's slots.
    if (shared != nullptr && !shared->TryAcquire(&slot)) {
      ssr_native::Argon2ReleaseThreadMemory();
      slot = shared->Acquire();
    }
    holding = shared != nullptr;
    request->status = ssr_native::Argon2Hash(
        request->params, in, request->tag.bytes.data(), request->tag.bytes.size(),
        [&pool](uint32_t count, const std::function<void(uint32_t)>& body) {
          pool.ParallelFor(count, body);
        },
        [&pool] { return pool.spare_threads(); });
  } catch (...) {
    request->status = Argon2Status::kMemoryAllocationError;
  }
  if (holding) {
    shared->Release(slot);
    // Keep the arena only when this thread goes straight on to another hash.
    if (Pool().queued() == 0) ssr_native::Argon2ReleaseThreadMemory();
  }
  // The password is not needed any more: wipe it now rather than when the JS thread runs.
  ssr_native::SecureWipe(request->password.bytes.data(), request->password.bytes.size());
  ssr_native::SecureWipe(request->secret.bytes.data(), request->secret.bytes.size());

  std::shared_ptr<Gate> gate = request->gate;
  std::lock_guard<std::mutex> lock(gate->mutex);
  if (!gate->open ||
      napi_call_threadsafe_function(gate->tsfn, request, napi_tsfn_nonblocking) != napi_ok) {
    // The environment is gone (or going): nobody is waiting for this promise.
    delete request;
  }
}

// JS thread: settle the promise. env is null while the thread-safe function is torn down.
void SettleHash(napi_env env, napi_value /*js_callback*/, void* /*context*/, void* data) {
  std::unique_ptr<HashRequest> request(static_cast<HashRequest*>(data));
  if (env == nullptr) return;
  EnvState* state = request->state;
  if (--state->pending == 0) napi_unref_threadsafe_function(env, state->gate->tsfn);
  try {
    Napi::Env e(env);
    if (request->status == Argon2Status::kOk) {
      auto& tag = request->tag.bytes;
      napi_resolve_deferred(env, request->deferred,
                            Napi::Buffer<uint8_t>::Copy(e, tag.data(), tag.size()));
    } else {
      napi_reject_deferred(
          env, request->deferred,
          Napi::Error::New(e, ssr_native::Argon2StatusMessage(request->status)).Value());
    }
  } catch (const Napi::Error& e) {
    // E.g. a tag too large for a Buffer: reject with that error rather than never settling.
    napi_reject_deferred(env, request->deferred, e.Value());
  } catch (...) {
    // The environment is shutting down and cannot create values: nothing to settle.
  }
}

void FinalizeTsfn(napi_env /*env*/, void* finalize_data, void* /*hint*/) {
  std::unique_ptr<std::shared_ptr<Gate>> gate(static_cast<std::shared_ptr<Gate>*>(finalize_data));
  std::lock_guard<std::mutex> lock((*gate)->mutex);
  (*gate)->open = false;
  (*gate)->tsfn = nullptr;
}

void EnsureTsfn(Napi::Env env, EnvState* state) {
  if (state->gate->tsfn != nullptr || !state->gate->open) return;
  napi_value name = Napi::String::New(env, "ssr-native:argon2");
  auto* finalize_data = new std::shared_ptr<Gate>(state->gate);
  napi_threadsafe_function tsfn = nullptr;
  const napi_status status = napi_create_threadsafe_function(
      env, nullptr, nullptr, name, 0, 1, finalize_data, FinalizeTsfn, nullptr, SettleHash, &tsfn);
  if (status != napi_ok) {
    delete finalize_data;
    throw OwnError(env, "ARGON2_CHANNEL",
                   "ssr-native: cannot create the argon2 completion channel");
  }
  // Keeps the event loop alive only while hashes are pending (see pending).
  napi_unref_threadsafe_function(env, tsfn);
  std::lock_guard<std::mutex> lock(state->gate->mutex);
  state->gate->tsfn = tsfn;
}

// The bytes of options[key], copied. A value that is not a Buffer, TypedArray or DataView gets
// node-addon-api's message, the one the argon2 package gives for a non-Buffer salt or secret.
// options[key]: an integer from 0 to 2^32 - 1, which must be there.
uint32_t RequiredUint32(const Napi::Object& options, const char* key) {
  if (options.Get(key).IsUndefined()) {
    throw ArgTypeError(options.Env(),
                       ExpectedMessage(options.Env(), "an integer", std::string("options.") + key,
                                       options.Get(key)));
  }
  return Uint32Option(options, "options", key, 0);
}

void CopyBytesOption(const Napi::Object& options, const char* key, SecretBytes* out) {
  ByteView view;
  if (!ViewOfArrayBufferView(options.Env(), options.Get(key), &view)) {
    throw Napi::Error::New(options.Env(), "Invalid argument");
  }
  out->Assign(view);
}

// argon2Hash({ password, salt, secret, associatedData, hashLength, memoryCost, timeCost,
//              parallelism, type, version }) -> Promise<Buffer>
// Byte fields are Buffers (or other views); numeric ones integers from 0 to 2^32 - 1 (the JS
// layer coerces them with `>>> 0`, as the argon2 package's binding does).
Napi::Value Argon2Hash(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* state = static_cast<EnvState*>(info.Data());
  const Napi::Object options = ObjectArg(info, 0, "the argon2 options");
  auto request = std::make_unique<HashRequest>();
  CopyBytesOption(options, "password", &request->password);
  CopyBytesOption(options, "salt", &request->salt);
  CopyBytesOption(options, "secret", &request->secret);
  CopyBytesOption(options, "associatedData", &request->associated_data);
  const uint32_t hash_length = RequiredUint32(options, "hashLength");
  request->params.memory_kib = RequiredUint32(options, "memoryCost");
  request->params.passes = RequiredUint32(options, "timeCost");
  request->params.lanes = RequiredUint32(options, "parallelism");
  request->params.type = static_cast<ssr_native::Argon2Type>(RequiredUint32(options, "type"));
  request->params.version = RequiredUint32(options, "version");

  request->tag_size = hash_length;

  napi_value promise;
  NAPI_THROW_IF_FAILED(env, napi_create_promise(env, &request->deferred, &promise), Napi::Value());
  // Errors libargon2 reports before allocating: reject now, without a thread hop.
  ssr_native::Argon2Inputs check;
  check.salt_size = request->salt.bytes.size();
  const Argon2Status invalid = ssr_native::Argon2Validate(request->params, check, hash_length);
  if (hash_length == 0) {
    // The argon2 package hands libargon2 an empty vector's null data pointer in this case.
    napi_reject_deferred(env, request->deferred,
                         Napi::Error::New(env, "Output pointer is NULL").Value());
    return Napi::Value(env, promise);
  }
  if (invalid != Argon2Status::kOk) {
    napi_reject_deferred(env, request->deferred,
                         Napi::Error::New(env, ssr_native::Argon2StatusMessage(invalid)).Value());
    return Napi::Value(env, promise);
  }

  EnsureTsfn(env, state);
  request->state = state;
  request->gate = state->gate;
  if (state->pending++ == 0) napi_ref_threadsafe_function(env, state->gate->tsfn);
  HashRequest* raw = request.release();
  Pool().Submit([raw] { RunHash(raw); });
  return Napi::Value(env, promise);
}

// argon2Configure({ threads?, priority? }): applies to the process-wide pool.
Napi::Value Argon2Configure(const Napi::CallbackInfo& info) {
  const Napi::Object options = ObjectArg(info, 0, "the pool options");
  // Read (and checked) before anything changes.
  const Napi::Value threads_value = options.Get("threads");
  const uint32_t threads = Uint32Option(options, "options", "threads", 0);
  const Napi::Value priority_value = options.Get("priority");
  const int32_t nice = Int32Option(options, "options", "priority", -20, 19, 0);
  const Napi::Value policy_value = options.Get("policy");
  const uint32_t index = Uint32Option(options, "options", "policy", 0);
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (!threads_value.IsUndefined()) {
    g_pool_options.threads = threads;
    if (g_pool != nullptr) g_pool->Resize(threads == 0 ? HashPool::DefaultThreads() : threads);
  }
  if (!priority_value.IsUndefined()) {
    g_pool_options.nice = nice;
    if (g_pool != nullptr) g_pool->SetNice(nice);
  }
  if (!policy_value.IsUndefined()) {
    const auto policy = index == 1   ? HashPool::Policy::kBatch
                        : index == 2 ? HashPool::Policy::kIdle
                                     : HashPool::Policy::kNormal;
    g_pool_options.policy = policy;
    if (g_pool != nullptr) g_pool->SetPolicy(policy);
  }
  return info.Env().Undefined();
}

// argon2PoolStats() -> { threads, priority, queued, running, kernel }
Napi::Value Argon2PoolStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (g_pool != nullptr) {
    out.Set("threads", g_pool->threads());
    out.Set("priority", g_pool->nice());
    out.Set("policy", static_cast<int>(g_pool->policy()));
    out.Set("queued", static_cast<double>(g_pool->queued()));
    out.Set("running", static_cast<double>(g_pool->running()));
  } else {
    const unsigned threads =
        g_pool_options.threads == 0 ? HashPool::DefaultThreads() : g_pool_options.threads;
    out.Set("threads", threads);
    out.Set("priority", g_pool_options.nice);
    out.Set("policy", static_cast<int>(g_pool_options.policy));
    out.Set("queued", 0);
    out.Set("running", 0);
  }
  out.Set("kernel", ssr_native::Argon2KernelName(ssr_native::Argon2BestKernel()));
  return out;
}

// argon2ConfigureShared(path, slots) or argon2ConfigureShared(null): joins (or leaves) a
// machine-wide budget. Throws an Error saying why the lock file cannot be used.
Napi::Value Argon2ConfigureShared(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || info[0].IsNull() || info[0].IsUndefined()) {
    std::lock_guard<std::mutex> lock(g_shared_mutex);
    g_shared.reset();
    return env.Undefined();
  }
  const std::string path = StringArg(info, 0, "the lock file path");
  const uint32_t slots = Uint32Arg(info, 1, "slots");
  std::string error;
  std::shared_ptr<ssr_native::SharedPermits> permits =
      ssr_native::SharedPermits::Open(path, slots, &error);
  if (permits == nullptr)
    throw OwnError(env, "ARGON2_SHARED_BUDGET", "argon2: shared budget: " + error);
  std::lock_guard<std::mutex> lock(g_shared_mutex);
  g_shared = std::move(permits);
  return env.Undefined();
}

// argon2SharedStats() -> null or { slots, held (machine-wide), here (this process) }
Napi::Value Argon2SharedStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::shared_ptr<ssr_native::SharedPermits> shared = SharedBudget();
  if (shared == nullptr) return env.Null();
  Napi::Object out = Napi::Object::New(env);
  out.Set("slots", shared->slots());
  out.Set("held", shared->HeldMachineWide());
  out.Set("here", shared->HeldHere());
  return out;
}

void FreeEnvState(void* data) { delete static_cast<EnvState*>(data); }

}  // namespace

void InitArgon2(Napi::Env env, Napi::Object exports) {
  auto* state = new EnvState();
  state->gate = std::make_shared<Gate>();
  napi_add_env_cleanup_hook(env, FreeEnvState, state);
  exports.Set("argon2Hash", Napi::Function::New(env, Argon2Hash, "argon2Hash", state));
  exports.Set("argon2Configure", Napi::Function::New(env, Argon2Configure, "argon2Configure"));
  exports.Set("argon2PoolStats", Napi::Function::New(env, Argon2PoolStats, "argon2PoolStats"));
  exports.Set("argon2ConfigureShared",
              Napi::Function::New(env, Argon2ConfigureShared, "argon2ConfigureShared"));
  exports.Set("argon2SharedStats",
              Napi::Function::New(env, Argon2SharedStats, "argon2SharedStats"));
}

}  // namespace ssr_native_addon
