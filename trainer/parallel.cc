#include "trainer/parallel.h"

#include <algorithm>
#include <future>
#include <vector>

namespace hpo::trainer {

void parallel_ranges(size_t n, size_t threads, const std::function<void(size_t, size_t)>& fn) {
  const size_t parts = std::max<size_t>(1, std::min(threads, n));
  std::vector<std::future<void>> others;  // their destructors wait, also when fn throws here
  for (size_t k = 1; k < parts; ++k)
    others.push_back(std::async(std::launch::async, fn, n * k / parts, n * (k + 1) / parts));
  fn(0, n / parts);
  for (std::future<void>& f : others) f.get();
}

}  // namespace hpo::trainer
