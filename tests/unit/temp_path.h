// A scratch file's path for tests that start processes: /tmp/TAG_PID_NAME,
// TAG naming the test file, so that files of one test binary never meet.
// Shared, not copied per test file: the ASan build compiles the tests as
// unity batches, where two files' copies would be one redefinition.
#ifndef HPO_TESTS_UNIT_TEMP_PATH_H_
#define HPO_TESTS_UNIT_TEMP_PATH_H_

#include <unistd.h>

#include <string>

namespace hpo {

inline std::string temp_path(const std::string& tag, const std::string& name) {
  return "/tmp/" + tag + "_" + std::to_string(::getpid()) + "_" + name;
}

}  // namespace hpo

#endif  // HPO_TESTS_UNIT_TEMP_PATH_H_
