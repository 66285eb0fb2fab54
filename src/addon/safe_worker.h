// An AsyncWorker whose completion survives a worker thread being terminated.
#ifndef SSR_NATIVE_SRC_ADDON_SAFE_WORKER_H_
#define SSR_NATIVE_SRC_ADDON_SAFE_WORKER_H_

#include <napi.h>

namespace ssr_native_addon {

// In a worker thread being terminated the env can no longer run JavaScript nor take an
// exception: node-addon-api would then throw out of its callback wrapper and abort the
// process. Nothing can be reported to a dying env, so the error is dropped there, and the
// worker is destroyed whatever happens (SuppressDestruct: only OnWorkComplete frees it).
class SafeWorker : public Napi::AsyncWorker {
 public:
  SafeWorker(Napi::Function callback, const char* name) : Napi::AsyncWorker(callback, name) {
    SuppressDestruct();
  }

  void OnWorkComplete(Napi::Env env, napi_status status) override {
    try {
      Napi::AsyncWorker::OnWorkComplete(env, status);
    } catch (...) {
    }
    Destroy();
  }
};

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_SAFE_WORKER_H_
