// UTF-16 to UTF-8 transcoding, each implementation on the kinds of page lib/etag.js hands it:
// English with a few typographic characters (ASCII steps) and CJK text between ASCII markup
// (mixed 1- and 3-byte steps). V8's own UTF-8 writer is the baseline in bench/http (micro/etag).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "ssr_native/cpu_features.h"
#include "ssr_native/utf16_utf8.h"

namespace {

using Transcoder = size_t (*)(const char16_t*, size_t, uint8_t*);

// 75 Ki units of markup; `cjk` turns each lowercase letter into a CJK ideograph, otherwise one
// em dash every 2,000 units stands in for a page's typographic characters.
std::u16string Page(bool cjk) {
  const std::u16string row = u"<li class=\"item\"><a href=\"/p/42\">Product name</a> 19.99</li>\n";
  std::u16string page;
  while (page.size() < 75 * 1024) page += row;
  page.resize(75 * 1024);
  for (size_t i = 0; i < page.size(); ++i) {
    if (cjk && page[i] >= u'a' && page[i] <= u'z')
      page[i] = static_cast<char16_t>(0x4E00 + page[i]);
    if (!cjk && i % 2000 == 1999) page[i] = 0x2014;
  }
  return page;
}

void BM_Utf16ToUtf8(benchmark::State& state, Transcoder transcode, bool cjk) {
  const std::u16string page = Page(cjk);
  std::vector<uint8_t> out(3 * page.size());
  for (auto _ : state) {
    benchmark::DoNotOptimize(transcode(page.data(), page.size(), out.data()));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * page.size() * 2));
}

void BM_Crc32OfUtf16AsUtf8(benchmark::State& state, bool cjk) {
  const std::u16string page = Page(cjk);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ssr_native::Crc32OfUtf16AsUtf8(0, page.data(), page.size()));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * page.size() * 2));
}

bool HasVbmi2() {
  const ssr_native::CpuFeatures& f = ssr_native::GetCpuFeatures();
  return f.avx512bw && f.avx512vl && f.avx512vbmi2;
}

using ssr_native::utf16_utf8_internal::Utf16ToUtf8Avx512;
using ssr_native::utf16_utf8_internal::Utf16ToUtf8Portable;

BENCHMARK_CAPTURE(BM_Utf16ToUtf8, portable_english, Utf16ToUtf8Portable, false);
BENCHMARK_CAPTURE(BM_Utf16ToUtf8, portable_cjk, Utf16ToUtf8Portable, true);
BENCHMARK_CAPTURE(BM_Utf16ToUtf8, avx512_english,
                  HasVbmi2() ? Utf16ToUtf8Avx512 : Utf16ToUtf8Portable, false);
BENCHMARK_CAPTURE(BM_Utf16ToUtf8, avx512_cjk, HasVbmi2() ? Utf16ToUtf8Avx512 : Utf16ToUtf8Portable,
                  true);
BENCHMARK_CAPTURE(BM_Crc32OfUtf16AsUtf8, english, false);
BENCHMARK_CAPTURE(BM_Crc32OfUtf16AsUtf8, cjk, true);

}  // namespace
