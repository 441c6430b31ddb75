#include "hpo/run/same_file.h"

#include <doctest/doctest.h>

#include <filesystem>

#include "tests/unit/temp_dir.h"

namespace fs = std::filesystem;

TEST_CASE("same_file: one file however its path is written, and never two files") {
  const hpo::TempDir dir;
  const fs::path root = dir.path();
  dir.write("study.yaml", "name: a\n");
  dir.write("other.yaml", "name: a\n");  // the same text, another file
  fs::create_directory(root / "sub");
  fs::create_symlink(root / "study.yaml", root / "sub" / "link.yaml");
  fs::create_hard_link(root / "study.yaml", root / "hard.yaml");
  const std::string study = (root / "study.yaml").string();

  CHECK(hpo::same_file(study, study));
  CHECK(hpo::same_file(study, (root / "sub" / ".." / "study.yaml").string()));
  CHECK(hpo::same_file(study, (root / "sub" / "link.yaml").string()));
  CHECK(hpo::same_file(study, (root / "hard.yaml").string()));
  CHECK_FALSE(hpo::same_file(study, (root / "other.yaml").string()));
  // Not there yet: the same path written two ways, or two paths.
  CHECK(hpo::same_file((root / "new.db").string(), (root / "sub" / ".." / "new.db").string()));
  CHECK_FALSE(hpo::same_file((root / "new.db").string(), (root / "new2.db").string()));
  CHECK_FALSE(hpo::same_file(study, (root / "missing.yaml").string()));
}
