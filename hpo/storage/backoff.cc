#include "hpo/storage/backoff.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

namespace hpo {

void backoff(int attempt, int cap_ms) {
  thread_local std::mt19937 rng(std::random_device{}());
  const int limit_ms = std::min(cap_ms, 20 << std::min(attempt, 16));
  std::uniform_int_distribution<int> ms(limit_ms / 2, limit_ms);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms(rng)));
}

}  // namespace hpo
