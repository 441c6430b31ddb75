// libFuzzer target for the study and search-space parsers. Any input must
// either parse or be rejected with a ConfigError: another exception, a
// crash, a hang or a sanitizer report is a bug.
//
// The first byte picks the parser (even: search space, odd: study file);
// the rest is the file's text.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "hpo/config/config_error.h"
#include "hpo/config/search_space_file.h"
#include "hpo/config/study_file.h"

namespace {

// A study file needs a real path (its search space is found beside it).
const std::string& study_path() {
  static const std::string path = "/tmp/hpo_fuzz_" + std::to_string(::getpid()) + "/study.yaml";
  static const bool made = [] {
    const std::string dir = path.substr(0, path.rfind('/'));
    ::mkdir(dir.c_str(), 0700);
    std::ofstream(dir + "/space.yaml") << "params:\n  x: {type: float, low: 0, high: 1}\n";
    return true;
  }();
  (void)made;
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      hpo::parse_search_space(text, "fuzz.yaml");
    } else {
      std::ofstream(study_path(), std::ios::trunc) << text;
      hpo::load_study_file(study_path());
    }
  } catch (const hpo::ConfigError&) {
    // the expected way to reject bad input
  }
  return 0;
}
