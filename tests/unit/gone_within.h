// For tests that start processes: whether one has ended.
#ifndef HPO_TESTS_UNIT_GONE_WITHIN_H_
#define HPO_TESTS_UNIT_GONE_WITHIN_H_

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace hpo {

// Whether `pid` ends within `seconds`. A zombie counts as gone: it holds
// nothing but its pid, until its parent (or init) reaps it.
inline bool gone_within(int pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string all;
    std::getline(stat, all);
    if (!stat || all.find(") Z") != std::string::npos) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace hpo

#endif  // HPO_TESTS_UNIT_GONE_WITHIN_H_
