#include "args.h"

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
    napi_throw_range_error(env, nullptr, message.c_str());
  } else {
    napi_throw_type_error(env, nullptr, message.c_str());
  }
  return false;
}

// Throws (node-addon-api form).
[[noreturn]] void Throw(napi_env env, Check check, const std::string& expected,
                        const std::string& name, napi_value received) {
  const std::string message = ExpectedMessage(env, expected.c_str(), name, received);
  if (check == Check::kOutOfRange) throw Napi::RangeError::New(env, message);
  throw Napi::TypeError::New(env, message);
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

std::string ExpectedMessage(napi_env env, const char* expected, const std::string& name,
                            napi_value received) {
  std::string description = "undefined";
  napi_valuetype type = napi_undefined;
  if (received != nullptr && napi_typeof(env, received, &type) == napi_ok) {
    switch (type) {
      case napi_undefined:
        description = "undefined";
        break;
      case napi_null:
        description = "null";
        break;
      case napi_boolean: {
        bool flag = false;
        napi_get_value_bool(env, received, &flag);
        description = flag ? "true" : "false";
        break;
      }
      case napi_number: {
        double number = 0;
        napi_get_value_double(env, received, &number);
        char text[40];
        std::snprintf(text, sizeof(text), "%.17g", number);
        description = std::string("number ") + text;
        break;
      }
      case napi_string: {
        size_t length = 0;
        napi_get_value_string_utf8(env, received, nullptr, 0, &length);
        description = length <= 32 ? "string of length " + std::to_string(length) : "a string";
        break;
      }
      case napi_symbol:
        description = "a symbol";
        break;
      case napi_object:
        description = "an object";
        break;
      case napi_function:
        description = "a function";
        break;
      case napi_external:
        description = "an external";
        break;
      case napi_bigint:
        description = "a bigint";
        break;
      default:  // a type newer headers add
        description = "a value of another type";
        break;
    }
  }
  return std::string("Expected ") + expected + " for " + name + " but received " + description;
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
