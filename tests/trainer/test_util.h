// Helpers shared by the trainer tests: temporary directories and files.
#ifndef HPO_TESTS_TRAINER_TEST_UTIL_H_
#define HPO_TESTS_TRAINER_TEST_UTIL_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "trainer/panel.h"
#include "trainer/runtime_settings.h"

namespace hpo::trainer::testing {

// A fresh directory under the system temp dir, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `text` to path()/name and returns the full path.
  std::string write(const std::string& name, const std::string& text) const;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string read_file(const std::string& path);

// The environment lookup of `vars` as they are at each call (a test changes
// them between calls): they must outlive the lookup.
EnvLookup env_lookup(const std::map<std::string, std::string>& vars);

// A trainer report's lines of one type ("epoch", "series", "final"), in order.
std::vector<std::string> report_lines(const std::string& report, const std::string& type);

// The report's (last) series line of `split` ("valid", "test"); "" without one.
std::string series_line(const std::string& report, const std::string& split);

// Removes `path` and everything under it. Not std::filesystem::remove_all:
// the libtorch.so of torch 2.x wheels (2.11) exports its own copy of it, which
// the dynamic linker binds our calls to, and which crashes (a call through a
// null pointer).
void remove_tree(const std::string& path);

// Writes `text` to a temporary file named `name`, calls `load` on its path
// and returns the UsageError message with the path prefix cut off (or "no
// error"). Fails the test if the message does not start with the path.
std::string usage_error(const std::string& name, const std::string& text,
                        const std::function<void(const std::string&)>& load);

// A synthetic panel of `tickers` x `days` without missing rows.
Panel full_synthetic_panel(int tickers, int days, uint64_t seed = 7);

// Removes ticker `t`'s rows on days [from, to): every price and the volume NaN.
void blank_rows(Panel* panel, size_t t, size_t from, size_t to);

}  // namespace hpo::trainer::testing

#endif  // HPO_TESTS_TRAINER_TEST_UTIL_H_
