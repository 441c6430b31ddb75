#include "tests/trainer/test_util.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <doctest/doctest.h>

#include "trainer/error.h"

namespace hpo::trainer::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "hpo-trainer-test-XXXXXX").string();
  path_ = mkdtemp(tmpl.data());
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::write(const std::string& name, const std::string& text) const {
  std::string path = file(name);
  std::ofstream(path) << text;
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
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

}  // namespace hpo::trainer::testing
