// Critical CSS for JavaScript (lib/critical-css/engine.js): unpack, call the core, pack.
// Main thread only: a page takes well under a millisecond once its plan is compiled, and the
// plan itself is compiled once per stylesheet content.
//
//   criticalCssCompile(css: string | Buffer) -> [plan: External, bytes, rules] | string error
//   criticalCssCompileAsync(css: Buffer, callback(null, [plan, bytes, rules] | string error))
//       the same, compiled on libuv's pool (a large stylesheet takes milliseconds)
//   criticalCssLinks(html: string | Buffer) -> Array<string | null> | { skipped: reason }
//       one entry per link[rel=stylesheet]: its href when beasties would fetch it, else null
//   criticalCssInline(html, plans, flags) -> string | Buffer | { skipped: reason, overBound? }
//       plans: Array<External | null> (per link) or (href, index) => External | null;
//       flags: 1 compress, 2 noscript fallback, 4 inline fonts, 8 beasties 0.4, 16 media-script,
//       32 leave a prerendered page already inlined as it is, 64 leave any page already inlined
#include "critical_css_binding.h"

#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "bytes.h"
#include "safe_worker.h"
#include "ssr_native/critical_css.h"
#include "ssr_native/latin1_utf8.h"

namespace ssr_native_addon {
namespace {

namespace css = ssr_native::critical_css;

using PlanHandle = std::shared_ptr<const css::Plan>;

std::string_view ViewOf(const ByteView& v) {
  return std::string_view(reinterpret_cast<const char*>(v.data), v.size);
}

Napi::Value Skipped(Napi::Env env, const std::string& reason, bool over_bound = false) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("skipped", Napi::String::New(env, reason));
  if (over_bound) o.Set("overBound", Napi::Boolean::New(env, true));
  return o;
}

// [plan: External, bytes, rules] for a compiled plan, or its error as a string.
Napi::Value CompiledValue(Napi::Env env, css::CompileResult result) {
  if (!result.plan) return Napi::String::New(env, result.error);
  auto* handle = new PlanHandle(std::move(result.plan));
  Napi::External<PlanHandle> external =
      Napi::External<PlanHandle>::New(env, handle, [](Napi::Env, PlanHandle* h) { delete h; });
  Napi::Array out = Napi::Array::New(env, 3);
  out.Set(0u, external);
  out.Set(1u, Napi::Number::New(env, static_cast<double>(css::PlanMemoryBytes(**handle))));
  out.Set(2u, Napi::Number::New(env, static_cast<double>(css::PlanRuleCount(**handle))));
  return out;
}

Napi::Value Compile(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string scratch;
  const ByteView bytes = BytesOf(Arg(info, 0), &scratch, "css");
  return CompiledValue(env, css::CompilePlan(ViewOf(bytes)));
}

class CompileWorker : public SafeWorker {
 public:
  CompileWorker(Napi::Function callback, std::string css)
      : SafeWorker(callback, "ssr-native:critical-css-compile"), css_(std::move(css)) {}

  void Execute() override { result_ = css::CompilePlan(css_); }

  void OnOK() override {
    Napi::Env env = Env();
    Callback().Call({env.Null(), CompiledValue(env, std::move(result_))});
  }

 private:
  std::string css_;  // a copy: the caller's buffer may be collected while this runs
  css::CompileResult result_;
};

Napi::Value CompileAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ByteView bytes = ViewBytesOf(Arg(info, 0), "css");
  Napi::Function callback = FunctionArg(info, 1, "callback");
  auto* worker = new CompileWorker(
      callback, std::string(reinterpret_cast<const char*>(bytes.data), bytes.size));
  worker->Queue();
  return env.Undefined();
}

Napi::Value Links(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string scratch;
  const ByteView bytes = BytesOf(Arg(info, 0), &scratch, "html");
  const css::LinksResult result = css::FindLinks(ViewOf(bytes));
  if (result.status != css::Status::kDone) return Skipped(env, result.reason);
  Napi::Array out = Napi::Array::New(env, result.links.size());
  for (size_t i = 0; i < result.links.size(); ++i) {
    const css::PageLink& link = result.links[i];
    if (link.fetched) {
      out.Set(static_cast<uint32_t>(i), Napi::String::New(env, link.href));
    } else {
      out.Set(static_cast<uint32_t>(i), env.Null());
    }
  }
  return out;
}

Napi::Value Inline(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string scratch;
  const bool buffer_in = !Arg(info, 0).IsString();
  const ByteView bytes = BytesOf(Arg(info, 0), &scratch, "html");
  // plans: an array (one entry per link, as criticalCssLinks lists them) or a function
  // (href, index) -> External | null called during the one parse of the page.
  std::vector<const css::Plan*> listed;
  Napi::Function resolver;
  const Napi::Value plans = Arg(info, 1);
  if (plans.IsArray()) {
    Napi::Array list = plans.As<Napi::Array>();
    listed.assign(list.Length(), nullptr);
    for (uint32_t i = 0; i < list.Length(); ++i) {
      Napi::Value v = list.Get(i);
      if (v.IsExternal()) listed[i] = v.As<Napi::External<PlanHandle>>().Data()->get();
    }
  } else if (plans.IsFunction()) {
    resolver = plans.As<Napi::Function>();
  } else {
    throw ArgTypeError(env, ExpectedMessage(env, "an array or a function", "plans", plans));
  }
  const css::PlanResolver resolve = [&](size_t index, std::string_view href) -> const css::Plan* {
    if (resolver.IsEmpty()) return index < listed.size() ? listed[index] : nullptr;
    Napi::Value v = resolver.Call({Napi::String::New(env, href.data(), href.size()),
                                   Napi::Number::New(env, static_cast<double>(index))});
    if (!v.IsExternal()) return nullptr;
    return v.As<Napi::External<PlanHandle>>().Data()->get();
  };
  const uint32_t flags = Arg(info, 2).IsUndefined() ? 6 : Uint32Arg(info, 2, "flags");
  css::InlineOptions options;
  options.compress = (flags & 1) != 0;
  options.noscript_fallback = (flags & 2) != 0;
  options.inline_fonts = (flags & 4) != 0;
  options.beasties_0_4 = (flags & 8) != 0;
  options.media_script = (flags & 16) != 0;
  options.leave_inlined_prerendered = (flags & 32) != 0;
  options.leave_inlined = (flags & 64) != 0;
  css::InlineResult result = css::Inline(ViewOf(bytes), resolve, options);
  if (result.status != css::Status::kDone) {
    return Skipped(env, result.reason, result.status == css::Status::kOverBound);
  }
  if (buffer_in) {
    return Napi::Buffer<char>::Copy(env, result.html.data(), result.html.size());
  }
  // A page in ASCII (most are: markup and CSS) is handed to V8 as Latin-1, a plain copy into
  // a one-byte string, instead of through its UTF-8 decoder.
  const uint8_t* out = reinterpret_cast<const uint8_t*>(result.html.data());
  if (ssr_native::IsAscii(out, result.html.size())) {
    napi_value value = nullptr;
    if (napi_create_string_latin1(env, result.html.data(), result.html.size(), &value) != napi_ok) {
      throw OwnError(env, "CRITICAL_CSS_STRING", "cannot make the page's string");
    }
    return Napi::Value(env, value);
  }
  return Napi::String::New(env, result.html.data(), result.html.size());
}

}  // namespace

void InitCriticalCss(Napi::Env env, Napi::Object exports) {
  exports.Set("criticalCssCompile", Napi::Function::New(env, Compile, "criticalCssCompile"));
  exports.Set("criticalCssCompileAsync",
              Napi::Function::New(env, CompileAsync, "criticalCssCompileAsync"));
  exports.Set("criticalCssLinks", Napi::Function::New(env, Links, "criticalCssLinks"));
  exports.Set("criticalCssInline", Napi::Function::New(env, Inline, "criticalCssInline"));
  // the loader scripts' texts, for the build-time command that rewrites them around the engine
  Napi::Object scripts = Napi::Object::New(env);
  const std::string_view csp = css::CspLoaderScript();
  const std::string_view media = css::MediaLoaderScript();
  scripts.Set("csp", Napi::String::New(env, csp.data(), csp.size()));
  scripts.Set("media", Napi::String::New(env, media.data(), media.size()));
  exports.Set("criticalCssLoaderScripts", scripts);
}

}  // namespace ssr_native_addon
