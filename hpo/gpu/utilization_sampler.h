// GPU utilization during a run. A background thread asks nvidia-smi every
// `period` seconds (only while some trial is being measured) and adds each
// GPU's utilization and used memory to every measurement open on that GPU.
// The numbers are per GPU, not per process: trials sharing a GPU see the
// same values.
//
// The runner, per trial:
//   const int id = sampler.start(slot.gpu);   // when the trainer starts
//   ... the trial runs ...
//   const UtilizationStats s = sampler.stop(id);  // when it ends
//   if (s.samples > 0) store s.mean_util_pct, s.mean_mem_mib
#ifndef HPO_GPU_UTILIZATION_SAMPLER_H_
#define HPO_GPU_UTILIZATION_SAMPLER_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "hpo/gpu/gpu_device.h"

namespace hpo {

struct UtilizationStats {
  int gpu = -1;
  int samples = 0;  // 0: the trial ended before the first sample
  double mean_util_pct = 0;  // mean of utilization.gpu over the samples that had it
  double mean_mem_mib = 0;  // mean of memory.used over the samples that had it
};

class UtilizationSampler {
 public:
  using Query = std::function<std::vector<GpuDevice>()>;

  // `query` returns the devices with their current readings (query_gpus in
  // gpu_detect.h; a fake in tests). A zero period starts no thread: samples
  // are then taken only by sample_now(), which tests use.
  UtilizationSampler(Query query, std::chrono::milliseconds period);
  ~UtilizationSampler();  // stops and joins the thread
  UtilizationSampler(const UtilizationSampler&) = delete;
  UtilizationSampler& operator=(const UtilizationSampler&) = delete;

  // Opens a measurement of GPU `gpu` (nvidia-smi index); returns its id.
  int start(int gpu);
  // Closes measurement `id` and returns its means. An unknown id returns
  // empty stats.
  UtilizationStats stop(int id);

  // Queries once and adds the readings to every open measurement.
  void sample_now();

 private:
  struct Sums {
    int gpu = -1;
    int samples = 0, util_samples = 0, mem_samples = 0;
    double util = 0, mem = 0;
  };
  void loop();

  Query query_;
  std::chrono::milliseconds period_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  int next_id_ = 0;
  std::map<int, Sums> open_;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace hpo

#endif  // HPO_GPU_UTILIZATION_SAMPLER_H_
