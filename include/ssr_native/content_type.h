// Content-Type (RFC 9110 media type) parsing with exactly the grammar of the content-type 1.0.5
// npm package, which Express, body-parser, type-is and Koa use:
//
//   header    = OWS media-type OWS *( ";" *SP token *SP "=" *SP ( token / quoted ) *SP )
//   media-type = token "/" token
//
// where OWS is JavaScript's String.prototype.trim() whitespace (it trims the part before the
// first ";"), the parameter part allows only SP (0x20) around its pieces, and a quoted string
// holds %x0B / %x20-21 / %x23-5B / %x5D-7E / %x80-FF or a backslash followed by %x0B / %x20-FF.
// (The package writes %x0B where RFC 9110 says HTAB; we follow the package, not the RFC.)
//
// Errors are values. Input is a sequence of UTF-16 code units (what a JavaScript string is) or
// of Latin-1 bytes (code units 0x00-0xFF); results are offsets into the input, so the caller
// decides how to materialise strings.
#ifndef SSR_NATIVE_CONTENT_TYPE_H_
#define SSR_NATIVE_CONTENT_TYPE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ssr_native {

/// Why a Content-Type header was rejected; the JS edge maps these to content-type's TypeErrors.
enum class ContentTypeError : int {
  kNone = 0,
  kInvalidMediaType = 1,        ///< "invalid media type"
  kInvalidParameterFormat = 2,  ///< "invalid parameter format"
};

/// The message content-type 1.0.5 throws (as a TypeError) for `error`; "" for kNone.
const char* ContentTypeErrorMessage(ContentTypeError error);

/// One `name=value` parameter, as offsets into the header.
struct MediaTypeParameterSpan {
  uint32_t name_begin = 0;
  uint32_t name_end = 0;
  /// The value without its quotes when it was a quoted string.
  uint32_t value_begin = 0;
  uint32_t value_end = 0;
  /// The value was a quoted string containing at least one quoted-pair (backslash escape).
  bool has_escapes = false;
  /// The name has an A-Z letter (so lower-casing it changes it).
  bool name_has_upper = false;
};

/// The media type ("type/subtype" after trimming), as offsets into the header.
struct MediaTypeSpan {
  uint32_t begin = 0;
  uint32_t end = 0;
  /// It has an A-Z letter (so lower-casing it changes it).
  bool has_upper = false;
};

/// Receives each parameter in header order, as soon as it has been checked. When the scan later
/// fails, the parameters already reported are to be discarded.
class MediaTypeParameterSink {
 public:
  virtual void OnParameter(const MediaTypeParameterSpan& parameter) = 0;

 protected:
  ~MediaTypeParameterSink() = default;
};

/// Checks a header and reports the media type's offsets (after trimming) and every parameter
/// (`sink` may be null). Offsets are 32-bit: a header of 2^32 or more code units (impossible for a
/// JavaScript string) is rejected as kInvalidMediaType.
ContentTypeError ScanMediaType(std::u16string_view header, MediaTypeSpan* type,
                               MediaTypeParameterSink* sink);
/// The same over Latin-1 bytes (each byte is one code unit 0x00-0xFF).
ContentTypeError ScanMediaType(std::string_view latin1_header, MediaTypeSpan* type,
                               MediaTypeParameterSink* sink);

/// A parsed Content-Type with content-type 1.0.5's semantics: type and parameter names
/// lower-cased, quoted values unquoted and unescaped, a repeated name keeps its first position
/// and takes the last value. Strings hold Latin-1 bytes.
struct MediaType {
  std::string type;
  std::vector<std::pair<std::string, std::string>> parameters;
};

/// Parses a Latin-1 header into `out` (left unspecified on error).
ContentTypeError ParseMediaType(std::string_view latin1_header, MediaType* out);

/// Removes quoted-pair backslashes from the inside of a quoted string (a value span with
/// has_escapes): every "\" followed by a character keeps just that character.
std::string UnescapeQuotedString(std::string_view latin1_inner);

}  // namespace ssr_native

#endif  // SSR_NATIVE_CONTENT_TYPE_H_
