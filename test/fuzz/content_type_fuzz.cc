// libFuzzer target for the Content-Type scanner (build: cmake -DSSR_NATIVE_FUZZ=ON with clang;
// run: node scripts/fuzz.js [seconds]). Besides crashes and sanitizer reports it checks:
//  - the Latin-1 and UTF-16 scans agree on every input;
//  - reported offsets lie inside the header, in order;
//  - a parsed header, written back with quoting and re-parsed, gives the same media type.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "ssr_native/content_type.h"

namespace {

using ssr_native::ContentTypeError;
using ssr_native::MediaType;
using ssr_native::MediaTypeParameterSpan;

struct Collect final : ssr_native::MediaTypeParameterSink {
  std::vector<MediaTypeParameterSpan> spans;
  void OnParameter(const MediaTypeParameterSpan& p) override { spans.push_back(p); }
};

void Check(bool ok) {
  if (!ok) abort();
}

bool IsToken(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    const bool token = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       std::string("!#$%&'*+.^_`|~-").find(c) != std::string::npos;
    if (!token) return false;
  }
  return true;
}

std::string Format(const MediaType& media) {
  std::string out = media.type;
  for (const auto& [name, value] : media.parameters) {
    out += "; " + name + "=";
    if (IsToken(value)) {
      out += value;
      continue;
    }
    out += '"';
    for (char c : value) {
      if (c == '"' || c == '\\' || c == '\x7F') out += '\\';  // DEL only as a quoted-pair
      out += c;
    }
    out += '"';
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string header(reinterpret_cast<const char*>(data), size);
  Collect latin1_spans;
  ssr_native::MediaTypeSpan type;
  const ContentTypeError error = ssr_native::ScanMediaType(header, &type, &latin1_spans);

  // The same bytes widened to UTF-16, and the bytes read as UTF-16 code units.
  std::u16string wide(header.begin(), header.end());
  for (char16_t& c : wide) c &= 0xFF;
  Collect wide_spans;
  ssr_native::MediaTypeSpan wide_type;
  Check(ssr_native::ScanMediaType(wide, &wide_type, &wide_spans) == error);
  std::u16string units(size / 2, u'\0');
  for (size_t i = 0; i < units.size(); ++i)
    units[i] = static_cast<char16_t>(data[2 * i] | data[2 * i + 1] << 8);
  ssr_native::MediaTypeSpan units_type;
  ssr_native::ScanMediaType(units, &units_type, nullptr);

  if (error != ContentTypeError::kNone) return 0;
  Check(type.begin < type.end && type.end <= size);
  Check(wide_type.begin == type.begin && wide_type.end == type.end &&
        wide_type.has_upper == type.has_upper);
  Check(latin1_spans.spans.size() == wide_spans.spans.size());
  uint32_t previous = type.end;
  for (const auto& p : latin1_spans.spans) {
    Check(previous <= p.name_begin && p.name_begin < p.name_end && p.name_end < p.value_begin &&
          p.value_begin <= p.value_end && p.value_end <= size);
    previous = p.value_end;
  }

  MediaType media;
  Check(ssr_native::ParseMediaType(header, &media) == ContentTypeError::kNone);
  const std::string written = Format(media);
  MediaType again;
  Check(ssr_native::ParseMediaType(written, &again) == ContentTypeError::kNone);
  Check(again.type == media.type && again.parameters == media.parameters);
  return 0;
}
