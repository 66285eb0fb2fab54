#include "args.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ssr_native_addon {
namespace {

enum class Check { kOk, kWrongType, kOutOfRange };

bool IsUndefined(napi_env env, napi_value value) {
  napi_valuetype type = napi_undefined;
  return napi_typeof(env, value, &type) != napi_ok || type == napi_undefined;
}

// An integer from `min` to `max` (both exact doubles).
Check ReadInteger(napi_env env, napi_value value, double min, double max, double* out) {
  if (napi_get_value_double(env, value, out) != napi_ok) return Check::kWrongType;
  if (!(*out >= min && *out <= max) || std::floor(*out) != *out) return Check::kOutOfRange;
  return Check::kOk;
}

std::string IntegerRange(double min, double max) {
  char text[96];
  std::snprintf(text, sizeof(text), "an integer from %.0f to %.0f", min, max);
  return text;
}

// Leaves the error pending (C Node-API form).
bool Fail(napi_env env, Check check, const std::string& expected, const std::string& name,
          napi_value received) {
  const std::string message = ExpectedMessage(env, expected.c_str(), name, received);
  if (check == Check::kOutOfRange) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", message.c_str());
  } else {
    napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message.c_str());
  }
  return false;
}

// Throws (node-addon-api form).
[[noreturn]] void Throw(napi_env env, Check check, const std::string& expected,
                        const std::string& name, napi_value received) {
  const std::string message = ExpectedMessage(env, expected.c_str(), name, received);
  if (check == Check::kOutOfRange) throw ArgRangeError(env, message);
  throw ArgTypeError(env, message);
}

double IntegerOf(napi_env env, napi_value value, const std::string& name, double min, double max) {
  double number = 0;
  const Check check = ReadInteger(env, value, min, max, &number);
  if (check != Check::kOk) Throw(env, check, IntegerRange(min, max), name, value);
  return number;
}

// "a number from <min> to <max>", or "a number other than NaN" when both are infinite.
std::string NumberRange(double min, double max) {
  if (std::isinf(min) && std::isinf(max)) return "a number other than NaN";
  char text[96];
  std::snprintf(text, sizeof(text), "a number from %.15g to %.15g", min, max);
  return text;
}

double NumberOf(napi_env env, napi_value value, const std::string& name, double min, double max) {
  double number = 0;
  if (napi_get_value_double(env, value, &number) != napi_ok) {
    Throw(env, Check::kWrongType, "a number", name, value);
  }
  if (!(number >= min && number <= max)) {
    Throw(env, Check::kOutOfRange, NumberRange(min, max), name, value);
  }
  return number;
}

std::string OptionName(const char* object, const char* key) {
  return std::string(object) + "." + key;
}

}  // namespace

namespace {

// A string's text as lib/validate.js shows it: quoted, cut to 25 characters and "..." past 28.
std::string QuotedString(napi_env env, napi_value value) {
  size_t length = 0;
  napi_get_value_string_utf16(env, value, nullptr, 0, &length);
  char text[128];
  size_t copied = 0;
  napi_get_value_string_utf8(env, value, text, sizeof(text), &copied);
  std::string shown(text, copied);
  if (length > 28) {
    size_t cut = 0;  // 25 UTF-16 units of ASCII text; fewer bytes never split a character below
    for (size_t units = 0; cut < shown.size() && units < 25; ++units) {
      const unsigned char c = static_cast<unsigned char>(shown[cut]);
      cut += c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    }
    shown = shown.substr(0, std::min(cut, shown.size())) + "...";
  }
  std::string quoted = "\"";
  for (const char c : shown) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// An object's constructor name, or "" when it has none (a null prototype, a getter that throws).
std::string ConstructorName(napi_env env, napi_value object) {
  napi_value constructor = nullptr;
  napi_value name = nullptr;
  napi_valuetype type = napi_undefined;
  if (napi_get_named_property(env, object, "constructor", &constructor) != napi_ok ||
      napi_typeof(env, constructor, &type) != napi_ok || type != napi_function ||
      napi_get_named_property(env, constructor, "name", &name) != napi_ok ||
      napi_typeof(env, name, &type) != napi_ok || type != napi_string) {
    bool pending = false;
    if (napi_is_exception_pending(env, &pending) == napi_ok && pending) {
      napi_value ignored = nullptr;
      napi_get_and_clear_last_exception(env, &ignored);
    }
    return "";
  }
  char text[64];
  size_t copied = 0;
  napi_get_value_string_utf8(env, name, text, sizeof(text), &copied);
  return std::string(text, copied);
}

}  // namespace

std::string Describe(napi_env env, napi_value received) {
  napi_valuetype type = napi_undefined;
  if (received == nullptr || napi_typeof(env, received, &type) != napi_ok) return "undefined";
  switch (type) {
    case napi_undefined:
      return "undefined";
    case napi_null:
      return "null";
    case napi_boolean: {
      bool flag = false;
      napi_get_value_bool(env, received, &flag);
      return flag ? "type boolean (true)" : "type boolean (false)";
    }
    case napi_number: {
      double number = 0;
      napi_get_value_double(env, received, &number);
      char text[40];
      std::snprintf(text, sizeof(text), "%.17g", number);
      return std::string("type number (") + text + ")";
    }
    case napi_string:
      return "type string (" + QuotedString(env, received) + ")";
    case napi_symbol:
      return "type symbol";
    case napi_object: {
      const std::string name = ConstructorName(env, received);
      return name.empty() ? "an object" : "an instance of " + name;
    }
    case napi_function:
      return "a function";
    case napi_external:
      return "an external";
    case napi_bigint:
      return "type bigint";
    default:  // a type newer headers add
      return "a value of another type";
  }
}

std::string ExpectedMessage(napi_env env, const char* expected, const std::string& name,
                            napi_value received) {
  return name + " must be " + expected + " (received " + Describe(env, received) + ")";
}

Napi::Error ArgTypeError(napi_env env, const std::string& message) {
  Napi::Error error = Napi::TypeError::New(env, message);
  error.Set("code", Napi::String::New(env, "ERR_INVALID_ARG_TYPE"));
  return error;
}

Napi::Error ArgRangeError(napi_env env, const std::string& message) {
  Napi::Error error = Napi::RangeError::New(env, message);
  error.Set("code", Napi::String::New(env, "ERR_OUT_OF_RANGE"));
  return error;
}

Napi::Error OwnError(napi_env env, const char* what, const std::string& message) {
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, std::string("ERR_SSR_NATIVE_") + what));
  return error;
}

bool ThrowExpectedType(napi_env env, const char* expected, const std::string& name,
                       napi_value received) {
  return Fail(env, Check::kWrongType, expected, name, received);
}

bool ThrowExpectedRange(napi_env env, const char* expected, const std::string& name,
                        napi_value received) {
  return Fail(env, Check::kOutOfRange, expected, name, received);
}

Napi::Value Arg(const Napi::CallbackInfo& info, size_t index) {
  return index < info.Length() ? info[index] : info.Env().Undefined();
}

std::string StringArg(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = Arg(info, index);
  if (!value.IsString()) Throw(info.Env(), Check::kWrongType, "a string", name, value);
  return value.As<Napi::String>().Utf8Value();
}

uint32_t Uint32Arg(const Napi::CallbackInfo& info, size_t index, const char* name) {
  return static_cast<uint32_t>(IntegerOf(info.Env(), Arg(info, index), name, 0, 4294967295.0));
}

uint64_t SafeUintArg(const Napi::CallbackInfo& info, size_t index, const char* name) {
  return static_cast<uint64_t>(IntegerOf(info.Env(), Arg(info, index), name, 0, kMaxSafeInteger));
}

int32_t Int32Arg(const Napi::CallbackInfo& info, size_t index, const char* name, int32_t min,
                 int32_t max) {
  return static_cast<int32_t>(IntegerOf(info.Env(), Arg(info, index), name, min, max));
}

double NumberArg(const Napi::CallbackInfo& info, size_t index, const char* name, double min,
                 double max) {
  return NumberOf(info.Env(), Arg(info, index), name, min, max);
}

Napi::Function FunctionArg(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = Arg(info, index);
  if (!value.IsFunction()) Throw(info.Env(), Check::kWrongType, "a function", name, value);
  return value.As<Napi::Function>();
}

Napi::Object ObjectArg(const Napi::CallbackInfo& info, size_t index, const char* name) {
  Napi::Value value = Arg(info, index);
  if (!value.IsObject()) Throw(info.Env(), Check::kWrongType, "an object", name, value);
  return value.As<Napi::Object>();
}

void* ExternalArg(const Napi::CallbackInfo& info, size_t index, const char* name,
                  const char* expected) {
  Napi::Value value = Arg(info, index);
  void* data = nullptr;
  if (napi_get_value_external(info.Env(), value, &data) != napi_ok) {
    Throw(info.Env(), Check::kWrongType, expected, name, value);
  }
  return data;
}

uint32_t Uint32Option(const Napi::Object& options, const char* object, const char* key,
                      uint32_t fallback) {
  Napi::Value value = options.Get(key);
  if (value.IsUndefined()) return fallback;
  return static_cast<uint32_t>(
      IntegerOf(options.Env(), value, OptionName(object, key), 0, 4294967295.0));
}

uint64_t SafeUintOption(const Napi::Object& options, const char* object, const char* key,
                        uint64_t fallback) {
  Napi::Value value = options.Get(key);
  if (value.IsUndefined()) return fallback;
  return static_cast<uint64_t>(
      IntegerOf(options.Env(), value, OptionName(object, key), 0, kMaxSafeInteger));
}

double NumberOption(const Napi::Object& options, const char* object, const char* key, double min,
                    double max, double fallback) {
  Napi::Value value = options.Get(key);
  if (value.IsUndefined()) return fallback;
  return NumberOf(options.Env(), value, OptionName(object, key), min, max);
}

int32_t Int32Option(const Napi::Object& options, const char* object, const char* key, int32_t min,
                    int32_t max, int32_t fallback) {
  Napi::Value value = options.Get(key);
  if (value.IsUndefined()) return fallback;
  return static_cast<int32_t>(IntegerOf(options.Env(), value, OptionName(object, key), min, max));
}

bool BoolOption(const Napi::Object& options, const char* object, const char* key, bool fallback) {
  Napi::Value value = options.Get(key);
  if (value.IsUndefined()) return fallback;
  if (!value.IsBoolean()) {
    Throw(options.Env(), Check::kWrongType, "a boolean", OptionName(object, key), value);
  }
  return value.As<Napi::Boolean>().Value();
}

std::string StringOption(const Napi::Object& options, const char* object, const char* key,
                         const std::string& fallback) {
  Napi::Value value = options.Get(key);
  if (value.IsUndefined()) return fallback;
  if (!value.IsString()) {
    Throw(options.Env(), Check::kWrongType, "a string", OptionName(object, key), value);
  }
  return value.As<Napi::String>().Utf8Value();
}

bool ReadUint32(napi_env env, size_t argc, const napi_value* argv, size_t index, const char* name,
                uint32_t fallback, uint32_t* out) {
  if (index >= argc || IsUndefined(env, argv[index])) {
    *out = fallback;
    return true;
  }
  double number = 0;
  const Check check = ReadInteger(env, argv[index], 0, 4294967295.0, &number);
  if (check != Check::kOk)
    return Fail(env, check, IntegerRange(0, 4294967295.0), name, argv[index]);
  *out = static_cast<uint32_t>(number);
  return true;
}

bool ReadSafeUint(napi_env env, size_t argc, const napi_value* argv, size_t index, const char* name,
                  uint64_t fallback, uint64_t* out) {
  if (index >= argc || IsUndefined(env, argv[index])) {
    *out = fallback;
    return true;
  }
  double number = 0;
  const Check check = ReadInteger(env, argv[index], 0, kMaxSafeInteger, &number);
  if (check != Check::kOk) {
    return Fail(env, check, IntegerRange(0, kMaxSafeInteger), name, argv[index]);
  }
  *out = static_cast<uint64_t>(number);
  return true;
}

bool ReadBool(napi_env env, size_t argc, const napi_value* argv, size_t index, const char* name,
              bool fallback, bool* out) {
  if (index >= argc || IsUndefined(env, argv[index])) {
    *out = fallback;
    return true;
  }
  if (napi_get_value_bool(env, argv[index], out) != napi_ok) {
    return Fail(env, Check::kWrongType, "a boolean", name, argv[index]);
  }
  return true;
}

bool ReadInt32(napi_env env, size_t argc, const napi_value* argv, size_t index, const char* name,
               int32_t min, int32_t max, int32_t fallback, int32_t* out) {
  if (index >= argc || IsUndefined(env, argv[index])) {
    *out = fallback;
    return true;
  }
  double number = 0;
  const Check check = ReadInteger(env, argv[index], min, max, &number);
  if (check != Check::kOk) return Fail(env, check, IntegerRange(min, max), name, argv[index]);
  *out = static_cast<int32_t>(number);
  return true;
}

}  // namespace ssr_native_addon
