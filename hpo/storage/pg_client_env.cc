#include "hpo/storage/pg_client_env.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

namespace hpo {

namespace {

struct Word {
  std::string raw;  // as written, escapes and all
  std::string text;  // as the server reads it
};

// Splits as the server does (pg_split_opts): at unescaped blanks.
std::vector<Word> split_words(const std::string& options) {
  std::vector<Word> words;
  size_t i = 0;
  while (i < options.size()) {
    while (i < options.size() && std::isspace(static_cast<unsigned char>(options[i]))) ++i;
    if (i == options.size()) break;
    Word w;
    while (i < options.size() && !std::isspace(static_cast<unsigned char>(options[i]))) {
      if (options[i] == '\\' && i + 1 < options.size()) {
        w.raw += options[i++];
      }
      w.raw += options[i];
      w.text += options[i++];
    }
    words.push_back(std::move(w));
  }
  return words;
}

// Whether "name=value" sets the time zone: names are read without case,
// with '-' as '_' (as the server reads them).
bool sets_time_zone(const std::string& setting) {
  std::string name = setting.substr(0, setting.find('='));
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
    return c == '-' ? '_' : static_cast<char>(std::tolower(c));
  });
  return name == "timezone";
}

}  // namespace

std::string options_without_time_zone(const std::string& options) {
  const std::vector<Word> words = split_words(options);
  std::string kept;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i].text;
    if (w == "-c" && i + 1 < words.size() && sets_time_zone(words[i + 1].text)) {
      ++i;
      continue;
    }
    if (w.compare(0, 2, "-c") == 0 && w.size() > 2 && sets_time_zone(w.substr(2))) continue;
    if (w.compare(0, 2, "--") == 0 && sets_time_zone(w.substr(2))) continue;
    kept += (kept.empty() ? "" : " ") + words[i].raw;
  }
  return kept;
}

void ignore_client_time_zone() {
  if (std::getenv("PGTZ")) unsetenv("PGTZ");
  const char* options = std::getenv("PGOPTIONS");
  if (!options) return;
  const std::string kept = options_without_time_zone(options);
  if (kept == options) return;
  if (kept.empty())
    unsetenv("PGOPTIONS");
  else
    setenv("PGOPTIONS", kept.c_str(), 1);
}

}  // namespace hpo
