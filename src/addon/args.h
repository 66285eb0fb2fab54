// The argument readers every binding uses: each checks the JavaScript type and range of one
// argument or option and throws a TypeError (wrong type, code ERR_INVALID_ARG_TYPE) or RangeError
// (right type, value out of range, ERR_OUT_OF_RANGE) that names it, in lib/validate.js's wording:
// "<name> must be <what> (received <value>)".
// Reading an argument means calling one of these; a binding has no readers of its own.
//
// Two forms: node-addon-api readers that throw Napi::Error (for calls made a few times per
// request or fewer), and C Node-API readers for the per-call hot paths (no C++ wrapper objects),
// which leave the error pending and return false.
#ifndef SSR_NATIVE_SRC_ADDON_ARGS_H_
#define SSR_NATIVE_SRC_ADDON_ARGS_H_

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ssr_native_addon {

/// Largest integer a double holds exactly (Number.MAX_SAFE_INTEGER).
constexpr double kMaxSafeInteger = 9007199254740991.0;

/// A value as lib/validate.js's describe() shows it ("type number (-1)", "an instance of Map").
std::string Describe(napi_env env, napi_value received);

/// "<name> must be <expected> (received <value>)".
std::string ExpectedMessage(napi_env env, const char* expected, const std::string& name,
                            napi_value received);

/// A TypeError with code ERR_INVALID_ARG_TYPE; a RangeError with ERR_OUT_OF_RANGE; an Error of
/// ssr-native's own with code ERR_SSR_NATIVE_<what>.
Napi::Error ArgTypeError(napi_env env, const std::string& message);
Napi::Error ArgRangeError(napi_env env, const std::string& message);
Napi::Error OwnError(napi_env env, const char* what, const std::string& message);

/// The C Node-API form of a failed check: leaves a TypeError (or a RangeError) with
/// ExpectedMessage pending and returns false. For readers of their own kind (a typed array of a
/// given type, a string read in place), so their messages read as every other.
bool ThrowExpectedType(napi_env env, const char* expected, const std::string& name,
                       napi_value received);
bool ThrowExpectedRange(napi_env env, const char* expected, const std::string& name,
                        napi_value received);

// ---- node-addon-api: throw Napi::TypeError / Napi::RangeError ----

/// info[index], or undefined past the last argument.
Napi::Value Arg(const Napi::CallbackInfo& info, size_t index);

std::string StringArg(const Napi::CallbackInfo& info, size_t index, const char* name);
/// An integer from 0 to 2^32 - 1.
uint32_t Uint32Arg(const Napi::CallbackInfo& info, size_t index, const char* name);
/// An integer from 0 to Number.MAX_SAFE_INTEGER (ids, sizes).
uint64_t SafeUintArg(const Napi::CallbackInfo& info, size_t index, const char* name);
/// An integer from `min` to `max`.
int32_t Int32Arg(const Napi::CallbackInfo& info, size_t index, const char* name, int32_t min,
                 int32_t max);
/// A number from `min` to `max` (either may be infinite; never NaN), not necessarily an integer.
double NumberArg(const Napi::CallbackInfo& info, size_t index, const char* name, double min,
                 double max);
Napi::Function FunctionArg(const Napi::CallbackInfo& info, size_t index, const char* name);
Napi::Object ObjectArg(const Napi::CallbackInfo& info, size_t index, const char* name);
/// The data of an External (a native object a binding handed to JavaScript); `expected` names
/// its kind ("a zstd dictionary encoder"). Any External passes: the caller knows its type.
void* ExternalArg(const Napi::CallbackInfo& info, size_t index, const char* name,
                  const char* expected);

/// Options of an object: an absent (undefined) option gives `fallback`; anything else must be of
/// the right type and range. Errors name it "<object>.<key>".
uint32_t Uint32Option(const Napi::Object& options, const char* object, const char* key,
                      uint32_t fallback);
uint64_t SafeUintOption(const Napi::Object& options, const char* object, const char* key,
                        uint64_t fallback);
/// A number from `min` to `max` (either may be infinite; never NaN).
double NumberOption(const Napi::Object& options, const char* object, const char* key, double min,
                    double max, double fallback);
/// An integer from `min` to `max`.
int32_t Int32Option(const Napi::Object& options, const char* object, const char* key, int32_t min,
                    int32_t max, int32_t fallback);
bool BoolOption(const Napi::Object& options, const char* object, const char* key, bool fallback);
/// A string, or `fallback` when absent.
std::string StringOption(const Napi::Object& options, const char* object, const char* key,
                         const std::string& fallback);

// ---- C Node-API (hot paths): false with a TypeError / RangeError pending ----

/// argv[index] as an integer from 0 to 2^32 - 1; `fallback` when absent (index >= argc) or
/// undefined.
bool ReadUint32(napi_env env, size_t argc, const napi_value* argv, size_t index, const char* name,
                uint32_t fallback, uint32_t* out);
/// argv[index] as an integer from 0 to Number.MAX_SAFE_INTEGER; `fallback` when absent.
bool ReadSafeUint(napi_env env, size_t argc, const napi_value* argv, size_t index, const char* name,
                  uint64_t fallback, uint64_t* out);
/// argv[index] as a boolean; `fallback` when absent or undefined.
bool ReadBool(napi_env env, size_t argc, const napi_value* argv, size_t index, const char* name,
              bool fallback, bool* out);
/// argv[index] as an integer from `min` to `max`; `fallback` when absent or undefined.
bool ReadInt32(napi_env env, size_t argc, const napi_value* argv, size_t index, const char* name,
               int32_t min, int32_t max, int32_t fallback, int32_t* out);

}  // namespace ssr_native_addon

#endif  // SSR_NATIVE_SRC_ADDON_ARGS_H_
