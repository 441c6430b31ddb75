#include "hpo/gpu/utilization_sampler.h"

namespace hpo {

UtilizationSampler::UtilizationSampler(Query query, std::chrono::milliseconds period)
    : query_(std::move(query)), period_(period) {
  if (period_.count() > 0) thread_ = std::thread([this] { loop(); });
}

UtilizationSampler::~UtilizationSampler() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int UtilizationSampler::start(int gpu) {
  std::lock_guard<std::mutex> lock(mu_);
  const int id = next_id_++;
  open_[id].gpu = gpu;
  cv_.notify_all();  // the loop sleeps while nothing is open
  return id;
}

UtilizationStats UtilizationSampler::stop(int id) {
  std::lock_guard<std::mutex> lock(mu_);
  UtilizationStats stats;
  const auto it = open_.find(id);
  if (it == open_.end()) return stats;
  const Sums& s = it->second;
  stats.gpu = s.gpu;
  stats.samples = s.samples;
  if (s.util_samples > 0) stats.mean_util_pct = s.util / s.util_samples;
  if (s.mem_samples > 0) stats.mean_mem_mib = s.mem / s.mem_samples;
  open_.erase(it);
  return stats;
}

void UtilizationSampler::sample_now() {
  // nvidia-smi takes tens of milliseconds: query without the lock, so that
  // start() and stop() never wait for it.
  const std::vector<GpuDevice> devices = query_();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, s] : open_) {
    for (const GpuDevice& d : devices) {
      if (d.index != s.gpu) continue;
      ++s.samples;
      if (d.utilization_pct) s.util += *d.utilization_pct, ++s.util_samples;
      if (d.memory_used_mib) s.mem += static_cast<double>(*d.memory_used_mib), ++s.mem_samples;
    }
  }
}

void UtilizationSampler::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!done_) {
    cv_.wait(lock, [this] { return done_ || !open_.empty(); });
    if (done_) return;
    if (cv_.wait_for(lock, period_, [this] { return done_; })) return;
    if (open_.empty()) continue;
    lock.unlock();
    sample_now();
    lock.lock();
  }
}

}  // namespace hpo
