#include "trainer/batcher.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace hpo::trainer {

void fill_batch(const FeatureSet& fs, int lookback, const Sample* samples, size_t count, float* x,
                float* y) {
  const size_t nf = fs.num_features, lb = size_t(lookback);
  for (size_t b = 0; b < count; ++b) {
    const Sample& s = samples[b];
    // The window is days [day - lookback + 1, day], contiguous in the store.
    const float* src = fs.row(s.ticker, s.day + 1 - lb);
    float* dst = x + b * nf * lb;
    for (size_t l = 0; l < lb; ++l)
      for (size_t f = 0; f < nf; ++f) dst[f * lb + l] = src[l * nf + f];
    y[b] = fs.target[fs.cell(s.ticker, s.day)];
  }
}

void fill_indices(const FeatureSet& fs, int lookback, const Sample* samples, size_t count,
                  int64_t* rows, int64_t* cells) {
  for (size_t b = 0; b < count; ++b) {
    const Sample& s = samples[b];
    rows[b] = int64_t(fs.cell(s.ticker, s.day + 1 - size_t(lookback)));
    cells[b] = int64_t(fs.cell(s.ticker, s.day));
  }
}

Batcher::Batcher(const FeatureSet& fs, int lookback, const BatcherOptions& options)
    : fs_(fs),
      lookback_(lookback),
      options_(options),
      depth_(size_t(std::max(1, options.workers * options.prefetch_factor))) {
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
}

Batcher::~Batcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void Batcher::start(std::vector<Sample> samples, size_t batch_size, size_t first) {
  auto pass = std::make_shared<Pass>();
  pass->batch_size = std::max<size_t>(1, batch_size);
  pass->num_batches = (samples.size() + pass->batch_size - 1) / pass->batch_size;
  pass->samples = std::move(samples);
  {
    std::lock_guard<std::mutex> lock(mu_);
    pass_ = std::move(pass);
    ++generation_;
    ready_.clear();
    next_claim_ = next_take_ = std::min(first, pass_->num_batches);
  }
  work_cv_.notify_all();
}

Batch Batcher::build(const Pass& pass, size_t k) const {
  const size_t begin = k * pass.batch_size;
  const size_t count = std::min(pass.batch_size, pass.samples.size() - begin);
  auto options = torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(options_.pin_memory);
  Batch batch;
  batch.index = k;
  batch.size = count;
  const Sample* samples = pass.samples.data() + begin;
  if (options_.indices) {
    const auto int64 = options.dtype(torch::kInt64);
    batch.rows = torch::empty({int64_t(count)}, int64);
    batch.cells = torch::empty({int64_t(count)}, int64);
    fill_indices(fs_, lookback_, samples, count, batch.rows.data_ptr<int64_t>(),
                 batch.cells.data_ptr<int64_t>());
    return batch;
  }
  batch.x = torch::empty({int64_t(count), int64_t(fs_.num_features), int64_t(lookback_)}, options);
  batch.y = torch::empty({int64_t(count)}, options);
  fill_batch(fs_, lookback_, samples, count, batch.x.data_ptr<float>(), batch.y.data_ptr<float>());
  return batch;
}

bool Batcher::claimable() const {
  return pass_ && next_claim_ < pass_->num_batches && next_claim_ < next_take_ + depth_;
}

void Batcher::work() {
  // Helper threads follow OMP_NUM_THREADS too (the setting is per thread).
  if (options_.threads > 0) at::set_num_threads(options_.threads);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [this] { return shutdown_ || claimable(); });
    if (shutdown_) return;
    const size_t k = next_claim_++;
    const uint64_t generation = generation_;
    std::shared_ptr<const Pass> pass = pass_;
    lock.unlock();
    Batch batch;
    try {
      batch = build(*pass, k);
    } catch (...) {  // an exception must not end the process from this thread
      batch.index = k;
      batch.error = std::current_exception();
    }
    lock.lock();
    if (generation == generation_) {
      ready_.emplace(k, std::move(batch));
      ready_cv_.notify_all();
    }
  }
}

std::optional<Batch> Batcher::next() {
  const auto t0 = std::chrono::steady_clock::now();
  auto waited = [&] {
    wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::unique_lock<std::mutex> lock(mu_);
  if (!pass_ || next_take_ >= pass_->num_batches) return std::nullopt;
  const size_t k = next_take_++;
  if (workers_.empty()) {  // no workers: build here, all of it counts as waiting
    std::shared_ptr<const Pass> pass = pass_;
    lock.unlock();
    Batch batch = build(*pass, k);
    waited();
    return batch;
  }
  ready_cv_.wait(lock, [&] { return ready_.count(k) > 0; });
  Batch batch = std::move(ready_.at(k));
  ready_.erase(k);
  lock.unlock();
  work_cv_.notify_all();  // a slot is free
  waited();
  if (batch.error) std::rethrow_exception(batch.error);
  return batch;
}

}  // namespace hpo::trainer
