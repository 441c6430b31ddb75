#include "trainer/parallel.h"

#include <doctest/doctest.h>

#include <mutex>
#include <ostream>  // doctest prints a std::thread::id
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace hpo::trainer {
namespace {

TEST_CASE("parallel_ranges: every index once, in at most `threads` ordered ranges") {
  for (size_t n : {0, 1, 5, 100, 1001}) {
    for (size_t threads : {0, 1, 2, 3, 8, 200}) {
      CAPTURE(n);
      CAPTURE(threads);
      std::vector<int> visits(n, 0);
      std::vector<std::pair<size_t, size_t>> ranges;
      std::mutex m;
      parallel_ranges(n, threads, [&](size_t first, size_t end) {
        for (size_t i = first; i < end; ++i) ++visits[i];  // each range owns its cells
        std::lock_guard<std::mutex> lock(m);
        ranges.emplace_back(first, end);
      });
      for (size_t i = 0; i < n; ++i) CHECK(visits[i] == 1);
      CHECK(ranges.size() <= std::max<size_t>(1, threads));
      for (const auto& [first, end] : ranges) CHECK(first <= end);
    }
  }
}

TEST_CASE("parallel_ranges: the ranges run on threads of their own, the first on the caller's") {
  const std::thread::id caller = std::this_thread::get_id();
  std::vector<std::thread::id> ids(4);
  parallel_ranges(4, 4, [&](size_t first, size_t) { ids[first] = std::this_thread::get_id(); });
  CHECK(ids[0] == caller);
  for (size_t k = 1; k < 4; ++k) {
    CHECK(ids[k] != caller);
    for (size_t j = 0; j < k; ++j) CHECK(ids[k] != ids[j]);
  }
}

TEST_CASE("parallel_ranges: a range's exception reaches the caller after every range ended") {
  for (size_t bad : {0, 2}) {
    CAPTURE(bad);
    std::vector<int> done(4, 0);
    CHECK_THROWS_WITH_AS(parallel_ranges(4, 4,
                                         [&](size_t first, size_t) {
                                           if (first == bad)
                                             throw std::runtime_error("range failed");
                                           done[first] = 1;
                                         }),
                         "range failed", std::runtime_error);
    for (size_t k = 0; k < 4; ++k) CHECK(done[k] == (k == bad ? 0 : 1));
  }
}

}  // namespace
}  // namespace hpo::trainer
