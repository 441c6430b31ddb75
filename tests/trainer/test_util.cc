#include "tests/trainer/test_util.h"

#include <doctest/doctest.h>
#include <ftw.h>
#include <stdio.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "trainer/error.h"
#include "trainer/synthetic.h"

namespace hpo::trainer::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "hpo-trainer-test-XXXXXX").string();
  path_ = mkdtemp(tmpl.data());
}

void remove_tree(const std::string& path) {
  // Children first, links not followed; errors ignored (best effort).
  auto remove_one = [](const char* p, const struct stat*, int, struct FTW*) {
    ::remove(p);
    return 0;  // go on
  };
  nftw(path.c_str(), remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

TempDir::~TempDir() { remove_tree(path_); }

std::string TempDir::write(const std::string& name, const std::string& text) const {
  std::string path = file(name);
  std::ofstream(path) << text;
  return path;
}

EnvLookup env_lookup(const std::map<std::string, std::string>& vars) {
  return [&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> report_lines(const std::string& report, const std::string& type) {
  std::istringstream in(report);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (line.find("\"type\":\"" + type + "\"") != std::string::npos) out.push_back(line);
  return out;
}

std::string series_line(const std::string& report, const std::string& split) {
  std::string found;
  for (const std::string& line : report_lines(report, "series"))
    if (line.find("\"split\":\"" + split + "\"") != std::string::npos) found = line;
  return found;
}

std::string usage_error(const std::string& name, const std::string& text,
                        const std::function<void(const std::string&)>& load) {
  TempDir dir;
  std::string path = dir.write(name, text);
  try {
    load(path);
  } catch (const UsageError& e) {
    std::string msg = e.what();
    CHECK(msg.rfind(path, 0) == 0);  // every error starts with the file
    return msg.substr(path.size());
  }
  return "no error";
}

Panel full_synthetic_panel(int tickers, int days, uint64_t seed) {
  SyntheticSpec spec;
  spec.tickers = tickers;
  spec.days = days;
  spec.seed = seed;
  spec.missing_rate = 0;
  return make_synthetic_panel(spec).panel;
}

void blank_rows(Panel* panel, size_t t, size_t from, size_t to) {
  for (size_t d = from; d < to; ++d)
    for (auto* field : {&panel->open, &panel->high, &panel->low, &panel->close, &panel->volume})
      (*field)[panel->index(t, d)] = NAN;
}

}  // namespace hpo::trainer::testing
