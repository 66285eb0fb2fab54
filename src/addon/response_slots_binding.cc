// ResponseSlots for JavaScript: put(metadata string, body) -> id; metadata(id) -> the metadata
// string, body(id) -> a Buffer over the body bytes (no copy), each undefined for an empty slot;
// remove(id), clear(), count(), bytes(); ResponseSlots.blocksAlive(). Main thread only.
//
// A body Buffer keeps its whole block alive until V8 collects it and Node runs its finalizer (on
// a later turn of the event loop), so only a hit makes one: evictions and purges read the
// metadata as a string. When they read it through a Buffer, a long synchronous loop of stores
// kept every evicted block resident, each waiting for its finalizer, far past the cache's bound
// (docs/cache.md; test/js/cache/cache-response-slots.test.js).
#include "response_slots_binding.h"

#include <string>

#include "args.h"
#include "bytes.h"
#include "shared_buffer.h"
#include "ssr_native/response_slots.h"

namespace ssr_native_addon {

namespace {

using ssr_native::ResponseBlock;
using ssr_native::ResponseSlots;

constexpr size_t kPrefix = ResponseSlots::kPrefix;

// A slot id: an integer from 0 below kNoSlot, else a TypeError / RangeError.
uint32_t SlotId(const Napi::CallbackInfo& info) {
  const uint32_t id = Uint32Arg(info, 0, "the slot id");
  if (id >= ResponseSlots::kNoSlot) {
    throw ArgRangeError(info.Env(), ExpectedMessage(info.Env(), "an integer slot id below 2^32 - 1",
                                                    "the slot id", info[0]));
  }
  return id;
}

class ResponseSlotsWrap : public Napi::ObjectWrap<ResponseSlotsWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "ResponseSlots",
                       {
                           InstanceMethod<&ResponseSlotsWrap::Put>("put"),
                           InstanceMethod<&ResponseSlotsWrap::Metadata>("metadata"),
                           InstanceMethod<&ResponseSlotsWrap::Body>("body"),
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
    const std::string metadata = StringArg(info, 0, "the response metadata");
    std::string body_scratch;
    const ByteView body = BytesOf(Arg(info, 1), &body_scratch, "the response body");
    const uint32_t id = slots_.Put(reinterpret_cast<const uint8_t*>(metadata.data()),
                                   metadata.size(), body.data, body.size);
    return Napi::Number::New(info.Env(), id);
  }

  Napi::Value Metadata(const Napi::CallbackInfo& info) {
    std::shared_ptr<const ResponseBlock> block = slots_.Get(SlotId(info));
    if (!block) return info.Env().Undefined();
    const char* data = reinterpret_cast<const char*>(block->data.get());
    return Napi::String::New(info.Env(), data + kPrefix, ResponseSlots::MetadataSize(*block));
  }

  Napi::Value Body(const Napi::CallbackInfo& info) {
    std::shared_ptr<const ResponseBlock> block = slots_.Get(SlotId(info));
    if (!block) return info.Env().Undefined();
    const size_t offset = kPrefix + ResponseSlots::MetadataSize(*block);
    return SharedBuffer(info.Env(), block, block->data.get() + offset, block->size - offset);
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

Napi::Value BlocksAlive(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(ResponseBlock::Alive()));
}

}  // namespace

void InitResponseSlots(Napi::Env env, Napi::Object exports) {
  Napi::Function slots = ResponseSlotsWrap::Define(env);
  slots.Set("blocksAlive", Napi::Function::New(env, BlocksAlive, "blocksAlive"));
  exports.Set("ResponseSlots", slots);
}

}  // namespace ssr_native_addon
