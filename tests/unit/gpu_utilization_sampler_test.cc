#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "hpo/gpu/utilization_sampler.h"

namespace hpo {
namespace {

// Two GPUs whose readings rise by 10 points per query. A query may take a
// while, as nvidia-smi's does: calls() counts queries begun, not recorded.
class FakeGpus {
 public:
  explicit FakeGpus(std::chrono::milliseconds latency = {}) : latency_(latency) {}

  std::vector<GpuDevice> operator()() {
    const int n = calls_++;
    std::this_thread::sleep_for(latency_);
    std::vector<GpuDevice> out(2);
    for (int i = 0; i < 2; ++i) {
      out[i].index = i;
      out[i].utilization_pct = 10.0 * n + i;
      out[i].memory_used_mib = 1000 * (i + 1);
    }
    return out;
  }
  int calls() const { return calls_; }

 private:
  std::chrono::milliseconds latency_;
  std::atomic<int> calls_{0};
};

TEST_CASE("each measurement averages its GPU's readings while it is open") {
  FakeGpus fake;
  UtilizationSampler sampler([&] { return fake(); }, std::chrono::milliseconds(0));
  const int a = sampler.start(0);
  sampler.sample_now();  // util 0 / 1
  const int b = sampler.start(1);
  sampler.sample_now();  // util 10 / 11
  sampler.sample_now();  // util 20 / 21
  const UtilizationStats sa = sampler.stop(a);
  sampler.sample_now();  // util 30 / 31, b only
  const UtilizationStats sb = sampler.stop(b);
  CHECK(sa.gpu == 0);
  CHECK(sa.samples == 3);
  CHECK(sa.mean_util_pct == doctest::Approx(10.0));
  CHECK(sa.mean_mem_mib == doctest::Approx(1000.0));
  CHECK(sb.gpu == 1);
  CHECK(sb.samples == 3);
  CHECK(sb.mean_util_pct == doctest::Approx((11.0 + 21.0 + 31.0) / 3));
  CHECK(sb.mean_mem_mib == doctest::Approx(2000.0));
  CHECK(sampler.stop(a).samples == 0);  // already closed
}

TEST_CASE("a GPU missing from the readings, or [N/A] values, add nothing") {
  // Readings alternate: 80% and 3000 MiB, then [N/A] for both. Counted as 0,
  // an [N/A] would halve the means.
  int call = 0;
  UtilizationSampler sampler(
      [&] {
        GpuDevice d;
        d.index = 0;
        if (call++ % 2 == 0) {
          d.utilization_pct = 80.0;
          d.memory_used_mib = 3000;
        }
        return std::vector<GpuDevice>{d};
      },
      std::chrono::milliseconds(0));
  const int on_zero = sampler.start(0), on_five = sampler.start(5);
  for (int i = 0; i < 4; ++i) sampler.sample_now();
  const UtilizationStats zero = sampler.stop(on_zero), five = sampler.stop(on_five);
  CHECK(zero.samples == 4);
  CHECK(zero.mean_util_pct == doctest::Approx(80.0));
  CHECK(zero.mean_mem_mib == doctest::Approx(3000.0));
  CHECK(five.samples == 0);
  CHECK(five.mean_util_pct == 0);
}

TEST_CASE("the background thread samples only while a measurement is open") {
  FakeGpus fake(std::chrono::milliseconds(20));
  UtilizationSampler sampler([&] { return fake(); }, std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK(fake.calls() == 0);
  const int id = sampler.start(1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  // The loop queries one at a time, so a fourth query begun means three
  // readings are recorded.
  while (fake.calls() < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const UtilizationStats stats = sampler.stop(id);
  CHECK(stats.samples >= 3);
  CHECK(stats.mean_mem_mib == doctest::Approx(2000.0));
}

}  // namespace
}  // namespace hpo
