// The native Content-Type scanner on typical request headers: ns per scan, Latin-1 and UTF-16
// input (the addon reads JavaScript strings as UTF-16), and a full parse into std::strings.
#include <benchmark/benchmark.h>

#include <string>

#include "ssr_native/content_type.h"

namespace {

const char* const kHeaders[] = {
    "text/html",
    "application/json; charset=utf-8",
    "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW",
    "Text/Plain; Charset=\"ISO-8859-1\"; format=flowed; delsp=\"y\\\"es\"",
};

struct CountParameters final : ssr_native::MediaTypeParameterSink {
  int count = 0;
  void OnParameter(const ssr_native::MediaTypeParameterSpan&) override { ++count; }
};

void BM_ScanLatin1(benchmark::State& state) {
  const std::string header = kHeaders[state.range(0)];
  for (auto _ : state) {
    ssr_native::MediaTypeSpan type;
    CountParameters sink;
    benchmark::DoNotOptimize(ssr_native::ScanMediaType(header, &type, &sink));
    benchmark::DoNotOptimize(sink.count);
  }
  state.SetLabel(header.substr(0, 32));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * header.size()));
}

void BM_ScanUtf16(benchmark::State& state) {
  const std::string narrow = kHeaders[state.range(0)];
  const std::u16string header(narrow.begin(), narrow.end());
  for (auto _ : state) {
    ssr_native::MediaTypeSpan type;
    CountParameters sink;
    benchmark::DoNotOptimize(ssr_native::ScanMediaType(header, &type, &sink));
    benchmark::DoNotOptimize(sink.count);
  }
  state.SetLabel(narrow.substr(0, 32));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * narrow.size()));
}

void BM_ParseToStrings(benchmark::State& state) {
  const std::string header = kHeaders[state.range(0)];
  ssr_native::MediaType media;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ssr_native::ParseMediaType(header, &media));
    benchmark::DoNotOptimize(media.parameters.data());
  }
  state.SetLabel(header.substr(0, 32));
}

}  // namespace

BENCHMARK(BM_ScanLatin1)->DenseRange(0, 3);
BENCHMARK(BM_ScanUtf16)->DenseRange(0, 3);
BENCHMARK(BM_ParseToStrings)->DenseRange(0, 3);
