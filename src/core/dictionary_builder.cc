#include "ssr_native/dictionary_builder.h"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "ssr_native/zstd_dictionary.h"

namespace ssr_native {
namespace {

// The segments of a page: each ends after a '>' or a '\n' (the last one at the page's end).
template <typename Visit>
void ForEachSegment(std::string_view page, Visit visit) {
  size_t start = 0;
  for (size_t i = 0; i < page.size(); i++) {
    const char c = page[i];
    if (c == '>' || c == '\n') {
      visit(page.substr(start, i + 1 - start));
      start = i + 1;
    }
  }
  if (start < page.size()) visit(page.substr(start));
}

// Compressed size of `pages` with `dictionary` (0 if it cannot be used).
size_t Measure(const std::vector<std::string>& pages, const std::string& dictionary, int level) {
  if (dictionary.empty()) return 0;
  std::string error;
  auto encoder = ZstdDictionaryEncoder::Create(reinterpret_cast<const uint8_t*>(dictionary.data()),
                                               dictionary.size(), level, &error);
  if (!encoder) return 0;
  size_t total = 0;
  std::string out;
  for (const std::string& page : pages) {
    out.clear();
    if (!encoder->Compress(reinterpret_cast<const uint8_t*>(page.data()), page.size(), &out,
                           &error))
      return 0;
    total += out.size();
  }
  return total;
}

}  // namespace

std::string CommonPartsDictionary(const std::vector<std::string>& samples, size_t capacity) {
  std::unordered_map<std::string_view, size_t> pages_with;  // segment -> how many samples hold it
  for (const std::string& sample : samples) {
    std::unordered_set<std::string_view> seen;
    ForEachSegment(sample, [&](std::string_view segment) {
      if (seen.insert(segment).second) pages_with[segment]++;
    });
  }
  size_t needed = (samples.size() + 1) / 2;
  if (needed < 2) needed = 2;
  std::string dictionary;
  std::unordered_set<std::string_view> emitted;
  for (const std::string& sample : samples) {
    bool full = false;
    ForEachSegment(sample, [&](std::string_view segment) {
      if (full || pages_with[segment] < needed || !emitted.insert(segment).second) return;
      if (dictionary.size() + segment.size() > capacity) {
        full = true;
        return;
      }
      dictionary.append(segment);
    });
    if (full) break;
  }
  return dictionary;
}

DictionaryChoice ChooseDictionary(const std::vector<std::string>& samples, size_t capacity,
                                  int level, const std::string& current, double improvement) {
  DictionaryChoice choice;
  std::vector<std::string> training;
  std::vector<std::string> held_out;
  for (size_t i = 0; i < samples.size(); i++)
    (i % 4 == 3 ? held_out : training).push_back(samples[i]);
  if (held_out.empty() && !training.empty()) {
    held_out.push_back(training.back());
    if (training.size() > 1) training.pop_back();
  }
  std::string common = CommonPartsDictionary(training, capacity);
  std::string trained;
  std::string error;
  if (!TrainZstdDictionary(training, capacity, &trained, &error)) trained.clear();
  choice.common_bytes = Measure(held_out, common, level);
  choice.trained_bytes = Measure(held_out, trained, level);
  choice.current_bytes = Measure(held_out, current, level);
  size_t best = 0;
  if (choice.common_bytes != 0) {
    best = choice.common_bytes;
    choice.method = "common";
  }
  if (choice.trained_bytes != 0 && (best == 0 || choice.trained_bytes < best)) {
    best = choice.trained_bytes;
    choice.method = "trained";
  }
  if (best == 0) return choice;
  if (choice.current_bytes != 0 && static_cast<double>(best) > improvement * choice.current_bytes) {
    choice.method.clear();
    return choice;
  }
  choice.dictionary = choice.method == "trained" ? std::move(trained) : std::move(common);
  return choice;
}

}  // namespace ssr_native
