// ResponseSlots for JavaScript: put(metadata string, body) -> id, get(id) -> a Buffer over the
// block (no copy) or undefined, remove(id), clear(), count(), bytes(). Main thread only.
#include "response_slots_binding.h"

#include <cmath>
#include <string>

#include "bytes.h"
#include "shared_buffer.h"
#include "ssr_native/response_slots.h"

namespace ssr_native_addon {

namespace {

using ssr_native::ResponseBlock;
using ssr_native::ResponseSlots;

// A slot id: an integer from 0 below kNoSlot, else a TypeError / RangeError.
uint32_t SlotId(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsNumber())
    throw Napi::TypeError::New(info.Env(), "Expected a number for the slot id");
  const double id = info[0].As<Napi::Number>().DoubleValue();
  if (!(id >= 0) || id >= ResponseSlots::kNoSlot || std::floor(id) != id)
    throw Napi::RangeError::New(info.Env(), "Expected an integer slot id from 0");
  return static_cast<uint32_t>(id);
}

class ResponseSlotsWrap : public Napi::ObjectWrap<ResponseSlotsWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "ResponseSlots",
                       {
                           InstanceMethod<&ResponseSlotsWrap::Put>("put"),
                           InstanceMethod<&ResponseSlotsWrap::Get>("get"),
                           InstanceMethod<&ResponseSlotsWrap::Remove>("remove"),
                           InstanceMethod<&ResponseSlotsWrap::Clear>("clear"),
                           InstanceMethod<&ResponseSlotsWrap::Count>("count"),
                           InstanceMethod<&ResponseSlotsWrap::Bytes>("bytes"),
                       });
  }

  explicit ResponseSlotsWrap(const Napi::CallbackInfo& info)
      : Napi::ObjectWrap<ResponseSlotsWrap>(info) {}

 private:
  Napi::Value Put(const Napi::CallbackInfo& info) {
    if (info.Length() < 2 || !info[0].IsString())
      throw Napi::TypeError::New(info.Env(), "Expected a string for the response metadata");
    std::string metadata_scratch;
    std::string body_scratch;
    const ByteView metadata = BytesOf(info[0], &metadata_scratch, "the response metadata");
    const ByteView body = BytesOf(info[1], &body_scratch, "the response body");
    const uint32_t id = slots_.Put(metadata.data, metadata.size, body.data, body.size);
    return Napi::Number::New(info.Env(), id);
  }

  Napi::Value Get(const Napi::CallbackInfo& info) {
    std::shared_ptr<const ResponseBlock> block = slots_.Get(SlotId(info));
    if (!block) return info.Env().Undefined();
    return SharedBuffer(info.Env(), block, block->data.get(), block->size);
  }

  Napi::Value Remove(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), slots_.Remove(SlotId(info)));
  }

  Napi::Value Clear(const Napi::CallbackInfo& info) {
    slots_.Clear();
    return info.Env().Undefined();
  }

  Napi::Value Count(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(slots_.count()));
  }

  Napi::Value Bytes(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), static_cast<double>(slots_.bytes()));
  }

  ResponseSlots slots_;
};

}  // namespace

void InitResponseSlots(Napi::Env env, Napi::Object exports) {
  exports.Set("ResponseSlots", ResponseSlotsWrap::Define(env));
}

}  // namespace ssr_native_addon
