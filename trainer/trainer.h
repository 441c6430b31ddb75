// The training loop: AdamW with warm-up and cosine decay, gradient
// accumulation and clipping, validation and a checkpoint every epoch, early
// stopping, and a graceful stop on SIGTERM.
#ifndef HPO_TRAINER_TRAINER_H_
#define HPO_TRAINER_TRAINER_H_

#include <functional>
#include <ostream>
#include <string>

#include "trainer/config.h"
#include "trainer/dataset.h"
#include "trainer/report.h"
#include "trainer/runtime_settings.h"

namespace hpo::trainer {

struct TrainOptions {
  std::string out_dir;  // checkpoint.pt goes here; empty = no checkpoints
  bool resume = false;  // continue from out_dir/checkpoint.pt if present
  std::string report_path;  // JSON lines; empty = none
  std::ostream* log = nullptr;  // human-readable progress; null = std::cerr
  // Called after every optimizer step with the step count (tests use it to
  // send SIGTERM at a known point).
  std::function<void(int64_t)> after_step;
  // Seconds spent before training, for the final line's time split: from
  // the process's start to main() (loading LibTorch), and building the data.
  double load_s = 0, data_s = 0;
  // Seconds waited after the data for start_cuda_early's work: counted in
  // cuda_init_s.
  double cuda_wait_s = 0;
};

struct TrainResult {
  int exit_code = 0;  // kExitOk, or kExitStopped after a SIGTERM checkpoint
  Metrics final_metrics;
};

// The learning rate at optimizer step `step` of `total`: linear warm-up over
// `warmup` steps, then cosine decay to 0.
double learning_rate(double base, int64_t step, int64_t warmup, int64_t total);

TrainResult train(const TrainerConfig& config, const RuntimeSettings& settings, const Dataset& data,
                  const TrainOptions& options);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_TRAINER_H_
