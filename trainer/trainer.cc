#include "trainer/trainer.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "trainer/batcher.h"
#include "trainer/checkpoint.h"
#include "trainer/device.h"
#include "trainer/device_features.h"
#include "trainer/error.h"
#include "trainer/graph_step.h"
#include "trainer/models.h"
#include "trainer/stop.h"
#include "trainer/tcn_scorer.h"

namespace hpo::trainer {

namespace {

namespace F = torch::nn::functional;

using Clock = std::chrono::steady_clock;

// The fewest rows an evaluation forward has (see Loop::evaluate): here
// LibTorch's CPU kernels gave a sample the same score in any batch of 31
// rows or more, and another one in batches of 2 to 13.
constexpr int64_t kMinEvalRows = 64;

// The rows of every evaluation forward for a pass of `samples` in batches
// of `batch` (see Loop::evaluate).
int64_t eval_rows(int64_t batch, size_t samples) {
  return std::max<int64_t>(kMinEvalRows, std::min<int64_t>(batch, int64_t(samples)));
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The validation scores kept for the best epoch, in LoopState::best_val order.
std::vector<double> pack(const Scores& s) {
  return {s.rank_ic, s.ic, s.sharpe, s.rank_icir, s.loss};
}

void add_scores(Metrics* m, const std::string& prefix, const std::vector<double>& packed) {
  static const char* kNames[] = {"rank_ic", "ic", "sharpe", "rank_icir", "loss"};
  for (size_t i = 0; i < packed.size() && i < 5; ++i) (*m)[prefix + kNames[i]] = packed[i];
}

// What one Loop trains on and how it reports: the single split (epoch
// lines, checkpoints) or one cross-validation fold (neither: the fold's
// result is reported when it finishes).
struct LoopData {
  const std::vector<Sample>& train;
  const std::vector<Sample>& valid;
  std::string name;  // "" for the single split, else "fold K"
  ReportWriter* epoch_report;  // null: no epoch lines
  bool checkpoints;
};

// Where a run's time went, for the final line's time split: the caller's
// load_s and data_s, the loops' training and validation (and the best epoch's
// validation scored again where it was not kept), the test window, and on CUDA the device's
// start-up.
struct TimeSplit {
  double train_s = 0, valid_s = 0, test_s = 0;
  std::optional<double> cuda_init_s;

  void add_to(Metrics* m, const TrainOptions& options) const {
    (*m)["load_s"] = options.load_s;
    (*m)["data_s"] = options.data_s;
    (*m)["train_s"] = train_s;
    (*m)["valid_s"] = valid_s;
    (*m)["test_s"] = test_s;
    if (cuda_init_s) (*m)["cuda_init_s"] = *cuda_init_s + options.cuda_wait_s;
  }
};

// What a checkpoint records: the config, and the data's fingerprint, so that
// a checkpoint is resumed only on the data it was trained on. The data is
// hashed only where checkpoints are written (not for folds, nor without
// --out): it costs a pass over every feature.
std::string checkpoint_text(const TrainerConfig& config, const Dataset& data, bool checkpoints) {
  std::string text = config_text(config);
  if (checkpoints) text += fmt::format("data_content={:016x}\n", data_fingerprint(data));
  return text;
}

// Trains one model on one train/valid pair, keeping its best epoch.
class Loop {
 public:
  Loop(const TrainerConfig& config, const RuntimeSettings& settings, const Dataset& data,
       const LoopData& what, const TrainOptions& options)
      : config_(config),
        config_text_(checkpoint_text(config, data, what.checkpoints && !options.out_dir.empty())),
        settings_(settings),
        data_(data),
        what_(what),
        options_(options),
        log_(options.log ? *options.log : std::cerr) {}

  // Runs the epochs; false when a stop was requested (after the checkpoint).
  bool fit() {
    setup();
    while (state_.epoch < config_.epochs && state_.bad_epochs < config_.patience && !diverged_) {
      if (!run_epoch()) return false;
    }
    if (diverged_ && state_.best_weights.empty()) {
      throw Diverged(fmt::format(
          "{}epoch {}: the loss is not finite (lr {:g}, grad_clip {:g}); no "
          "epoch had finite scores to report",
          what_.name.empty() ? "" : what_.name + " ", state_.epoch, config_.lr, config_.grad_clip));
    }
    restore_best();
    return true;
  }

  const LoopState& state() const { return state_; }

  // The best epoch's scores on `samples`. Where they are the samples that
  // picked the epoch, its validation already scored them with the same
  // weights (restore_best puts them back), so the scores are kept rather than
  // computed again; a resumed run whose best epoch came before the resume
  // scores them anew.
  Scores best_scores(const std::vector<Sample>& samples) {
    if (best_scores_ && &samples == &what_.valid) return *best_scores_;
    return evaluate(samples);
  }

  // Predicts `samples` in order, in inference mode, and scores them.
  Scores evaluate(const std::vector<Sample>& samples) {
    torch::InferenceMode inference;  // no autograd bookkeeping at all, unlike NoGradGuard
    model_->eval();
    // Every forward of the pass has the same number of rows: the first
    // batch's, and at least kMinEvalRows. LibTorch picks its kernels by the
    // batch's size, and those for a few samples sum in another order, so a
    // sample's score would depend on where the batches happened to end
    // (tests/trainer/train_test.cc). Short batches are padded with windows
    // whose predictions are dropped; on CUDA that also spares cuDNN a shape
    // seen once.
    const int64_t rows = eval_rows(eval_batch_size(), samples.size());
    Tcn* tcn = dynamic_cast<Tcn*>(model_.get());
    const std::vector<float> pred = tcn && device_.tcn_scorer ? predict_tcn(*tcn, samples, rows)
                                                              : predict_windows(samples, rows);
    model_->train();
    return score_samples(data_.features, samples, pred, config_.cost_bps, data_.skipped_days);
  }

  // The model's forward on batches of whole windows.
  std::vector<float> predict_windows(const std::vector<Sample>& samples, int64_t rows) {
    Batcher& b = batcher();
    b.start(samples, eval_batch_size());
    std::vector<float> pred;
    pred.reserve(samples.size());
    while (std::optional<Batch> batch = b.next()) {
      auto [x, y] = to_device(*batch);
      const int64_t n = x.size(0);
      if (n < rows) x = F::pad(x, F::PadFuncOptions({0, 0, 0, 0, 0, rows - n}));
      torch::Tensor out;
      {
        AutocastScope autocast(device_.amp, device_.amp_dtype);
        out = model_->forward(x).narrow(0, 0, n);
      }
      out = out.to(torch::kFloat32).to(torch::kCPU).contiguous();
      pred.insert(pred.end(), out.data_ptr<float>(), out.data_ptr<float>() + out.numel());
    }
    return pred;
  }

  // The TCN's predictions through TcnScorer, its windows of a name sharing
  // their series' steps as SERIES_SCORING says: by default where that is
  // less work. Shared, the series runs as many of the lower blocks as costs
  // least: all it can for windows every day (the test window), fewer for
  // sparser ones (validation, every fifth day). The choice is logged the
  // first time for each set of samples (validation, test).
  std::vector<float> predict_tcn(Tcn& tcn, const std::vector<Sample>& samples, int64_t rows) {
    TcnScorer alone(tcn, data_.features, config_.lookback, 0);
    if (device_.series_scoring == false) return alone.predict(samples, rows);
    std::unique_ptr<TcnScorer> shared;
    double shared_work = 0;
    for (int64_t blocks = 1; blocks <= int64_t(tcn.blocks().size()); ++blocks) {
      auto scorer = std::make_unique<TcnScorer>(tcn, data_.features, config_.lookback, blocks);
      if (scorer->series_blocks() < blocks) break;  // no more to share
      const double work = scorer->work(samples);
      if (shared && work >= shared_work) continue;
      shared = std::move(scorer);
      shared_work = work;
    }
    const double alone_work = alone.work(samples);
    // A tenth: room for the series' pass and the copies of its steps into
    // each window's rows. Measured, the shared passes took 0.9 to 0.95 of
    // the unshared one's time where their work was 0.82 to 0.9 of it.
    const bool share = shared && device_.series_scoring.value_or(shared_work < 0.9 * alone_work);
    if (series_logged_.insert(&samples).second)
      log_ << fmt::format(
          "scoring {} windows {}: {:.3g} G multiply-adds shared, {:.3g} G window by window\n",
          samples.size(),
          share ? fmt::format("sharing each name's series through block {}",
                              shared->series_blocks() - 1)
                : "window by window",
          shared ? shared_work / 1e9 : alone_work / 1e9, alone_work / 1e9);
    if (!share) return alone.predict(samples, rows);
    // Shared, a window's own steps can be few, and oneDNN's matrix products
    // ran 1.4 times as fast on 2,048 windows' steps as on 512.
    return shared->predict(
        samples, config_.eval_batch_size > 0 ? rows : shared->batch_rows(samples, rows, 2048));
  }

  // Where this loop's time went (see TimeSplit).
  void add_times(TimeSplit* t) const {
    t->train_s += total_train_seconds_;
    t->valid_s += valid_seconds_;
    if (device_.cuda) t->cuda_init_s = t->cuda_init_s.value_or(0) + cuda_init_seconds_;
  }

  // Throughput over the whole run, for the final line.
  void add_throughput(Metrics* m) const {
    (*m)["samples_per_s"] = total_trained_ / std::max(total_train_seconds_, 1e-9);
    (*m)["data_wait_frac"] = total_wait_seconds_ / std::max(total_train_seconds_, 1e-9);
    (*m)["peak_mem_mb"] = peak_memory_mb(device_);
  }

 private:
  std::string checkpoint_path() const {
    if (!what_.checkpoints || options_.out_dir.empty()) return "";
    return (std::filesystem::path(options_.out_dir) / "checkpoint.pt").string();
  }

  void setup() {
    const auto setup_start = Clock::now();
    device_ = apply_runtime_settings(settings_, config_.device, log_);
    torch::manual_seed(config_.seed);
    model_ = make_model(int64_t(data_.features.num_features), config_);
    model_->use_channels_last(device_.channels_last);
    const std::string path = checkpoint_path();
    const bool resuming = options_.resume && resumable(path);
    if (resuming) {
      state_ = load_checkpoint(path, *model_, device_.cuda);
      log_ << fmt::format("resumed from {}: epoch {}, batch {}, step {}\n", path, state_.epoch,
                          state_.batch, state_.step);
    }
    model_->to(device_.device);
    if (device_.cuda) {
      synchronize(device_);
      cuda_init_seconds_ = seconds_since(setup_start);  // the context and first copies
    }
    params_ = model_->parameters();
    optimizer_ = std::make_unique<torch::optim::AdamW>(
        params_, torch::optim::AdamWOptions(config_.lr).weight_decay(config_.weight_decay));
    if (resuming) load_optimizer(path, *optimizer_, device_.device);
    place_features();
    if (device_.cuda_graphs) make_graph();

    BatcherOptions bo;
    bo.workers = settings_.num_workers;
    bo.prefetch_factor = settings_.prefetch_factor;
    bo.pin_memory = device_.pin_memory;
    bo.threads = settings_.omp_threads;
    bo.indices = store_ != nullptr;
    batcher_options_ = bo;
    batcher_ = std::make_unique<Batcher>(data_.features, config_.lookback, bo);

    train_per_epoch_ = what_.train.size();
    if (config_.max_train_samples > 0)
      train_per_epoch_ = std::min<size_t>(train_per_epoch_, config_.max_train_samples);
    batches_per_epoch_ = int64_t((train_per_epoch_ + config_.batch_size - 1) / config_.batch_size);
    steps_per_epoch_ = (batches_per_epoch_ + config_.grad_accum - 1) / config_.grad_accum;
    total_steps_ = steps_per_epoch_ * config_.epochs;
    warmup_steps_ = int64_t(std::llround(config_.warmup_epochs * double(steps_per_epoch_)));
    if (device_.cudnn_benchmark_auto) {
      const int64_t planned = batches_per_epoch_ * config_.epochs;
      const bool pays = cudnn_benchmark_pays(planned);
      at::globalContext().setBenchmarkCuDNN(pays);
      log_ << fmt::format(
          "CUDNN_BENCHMARK=auto -> {}: {} training batches planned, it pays from {}\n",
          pays ? "on" : "off", planned, kCudnnBenchmarkPaysFrom);
    }
    if (what_.name.empty())
      log_ << fmt::format(
          "data: {}; {} features; train {} samples (days {}..{}), valid {} ({}..{}), test {} "
          "({}..{})\n",
          data_.source, data_.features.num_features, data_.train.size(), data_.splits.train.begin,
          data_.splits.train.end - 1, data_.valid.size(), data_.splits.valid.begin,
          data_.splits.valid.end - 1, data_.test.size(), data_.splits.test.begin,
          data_.splits.test.end - 1);
    if (what_.name.empty()) warn_short_blocks();
    if (const std::string summary = data_summary_line(data_, config_); !summary.empty())
      log_ << "data: " << summary << "\n";
    else
      log_ << fmt::format("{}: train {} samples, valid {}\n", what_.name, what_.train.size(),
                          what_.valid.size());
    log_ << fmt::format(
        "model: {} with {} parameters; {} samples and {} optimizer steps per epoch\n",
        config_.model, count_parameters(), train_per_epoch_, steps_per_epoch_);
  }

  // A validation or test block of a few days scores a handful of returns:
  // a Sharpe or an ICIR from them is noise, however it ranks the trial.
  void warn_short_blocks() const {
    constexpr size_t kFewDays = 20;  // about a month of trading days
    const std::pair<const char*, DayRange> blocks[] = {{"validation", data_.splits.valid},
                                                       {"test", data_.splits.test}};
    for (const auto& [name, range] : blocks) {
      if (range.size() >= kFewDays) continue;
      log_ << fmt::format(
          "warning: the {} block is {} day(s) long: its Sharpe and rank ICIR rest on too few days "
          "to mean much (raise valid_frac, or lower train_frac)\n",
          name, range.size());
    }
  }

  // Whether the checkpoint at `path` can be continued: it exists and was
  // written for this very config. One of another config (an OOM retry halves
  // the batch) belongs to a different run; the log says why it starts over.
  bool resumable(const std::string& path) const {
    if (path.empty() || !std::filesystem::exists(path)) {
      log_ << "no checkpoint to resume from: starting fresh\n";
      return false;
    }
    std::string recorded;
    try {
      recorded = checkpoint_config(path);
    } catch (const std::exception& e) {
      // Torn by a crash mid-write, or not a checkpoint: a retry must not
      // fail on it forever. LibTorch's message carries a backtrace: its first
      // line is the reason.
      const std::string what = e.what();
      log_ << fmt::format("not resuming: {} is not a readable checkpoint ({}); starting fresh\n",
                          path, what.substr(0, what.find('\n')));
      return false;
    }
    if (recorded == config_text_) return true;
    const std::string changed = config_text_diff(recorded, config_text_);
    const std::string why = recorded.empty() ? "records no config"
                            : changed.empty()
                                ? "was written for other data (the data changed since)"
                                : "was written for another config (" + changed + ")";
    log_ << fmt::format("not resuming: {} {}; starting fresh\n", path, why);
    return false;
  }

  int64_t count_parameters() const {
    int64_t n = 0;
    for (const auto& p : params_) n += p.numel();
    return n;
  }

  // The configured evaluation batch, or by default 512 on the CPU, where a
  // larger one is slower (a 4096-sample batch's activations are tens of MB:
  // each batch page-faults fresh memory and misses the cache; docs/benchmarks.md
  // "Trial start"), and 4096 on CUDA, where larger batches keep the GPU busy.
  // The batch does not change the predictions (tests/trainer/train_test.cc).
  int eval_batch_size() const {
    if (config_.eval_batch_size > 0) return config_.eval_batch_size;
    return device_.cuda ? 4096 : 512;
  }

  // A fresh pass over the batcher; without persistent workers, fresh threads.
  Batcher& batcher() {
    if (!settings_.persistent_workers)
      batcher_ = std::make_unique<Batcher>(data_.features, config_.lookback, batcher_options_);
    return *batcher_;
  }

  // On CUDA, a copy of the features on the device where it fits, so that
  // batches are gathered there (device_features.h).
  void place_features() {
    if (!device_.cuda) return;  // the host's batch builders are as fast there
    const double mib = double(DeviceFeatures::bytes(data_.features)) / (1 << 20);
    std::string how;
    if (!settings_.device_features) {
      how = "off (windows built on host threads and copied)";
    } else if (!device_features_fit(data_.features, device_.device)) {
      how = fmt::format("off: {:.0f} MiB is more than a quarter of the free device memory", mib);
    } else {
      store_ = std::make_unique<DeviceFeatures>(data_.features, config_.lookback, device_.device);
      how = fmt::format("features on the device ({:.0f} MiB), each batch gathered there", mib);
    }
    log_ << "setting DEVICE_FEATURES=" << (settings_.device_features ? "1" : "0") << " -> " << how
         << "\n";
  }

  // The step as graph_step.h runs it: gradients accumulate in place, and the
  // update reads its learning rate and step count from the device.
  void make_graph() {
    const int64_t steps_so_far = prepare_adamw_state(*optimizer_);
    device_step_ =
        torch::full({}, double(steps_so_far),
                    torch::TensorOptions().dtype(torch::kFloat32).device(device_.device));
    StepBody body;
    body.micro = [this](const torch::Tensor& x, const torch::Tensor& y) {
      if (!store_) return train_batch(x, y);
      const DeviceBatch b = gathered(x, y);  // inside the graph: x, y are store indices
      return train_batch(b.first, b.second);
    };
    body.update = [this](const torch::Tensor& lr) {
      if (config_.grad_clip > 0) clip_grad_norm(params_, config_.grad_clip, /*multi_tensor=*/true);
      adamw_step_in_place(*optimizer_, lr, device_step_);
    };
    graph_ = std::make_unique<GraphStep>(std::move(body), device_.device, log_);
  }

  // This epoch's training samples: a shuffle that depends only on the seed
  // and the epoch, so a resumed epoch sees the same order.
  std::vector<Sample> epoch_samples(int64_t epoch) const {
    std::vector<Sample> samples = what_.train;
    std::mt19937_64 rng(config_.seed * 1000003ULL + uint64_t(epoch));
    std::shuffle(samples.begin(), samples.end(), rng);
    samples.resize(train_per_epoch_);
    return samples;
  }

  using DeviceBatch = std::pair<torch::Tensor, torch::Tensor>;  // x, y on the training device

  // A batch's windows and targets from their store indices (on the device).
  DeviceBatch gathered(const torch::Tensor& rows, const torch::Tensor& cells) const {
    return {store_->windows(rows), store_->targets(cells)};
  }

  // What a batch sends to the device: its windows and targets, or with the
  // features there, their indices.
  DeviceBatch host_part(const Batch& b) const {
    return store_ ? DeviceBatch{b.rows, b.cells} : DeviceBatch{b.x, b.y};
  }

  DeviceBatch to_device(const Batch& b) const {
    const DeviceBatch in = host_part(b);
    if (!device_.cuda) return in;
    // From pinned memory these copies are asynchronous.
    const DeviceBatch copied{in.first.to(device_.device, /*non_blocking=*/true),
                             in.second.to(device_.device, /*non_blocking=*/true)};
    return store_ ? gathered(copied.first, copied.second) : copied;
  }

  // One epoch: train, validate, report, checkpoint. Returns false when a stop
  // was requested (after writing the checkpoint).
  bool run_epoch() {
    const auto epoch_start = Clock::now();
    PassStats pass;
    if (!train_pass(&pass)) return false;
    const auto valid_start = Clock::now();
    const Scores val = evaluate(what_.valid);
    valid_seconds_ += seconds_since(valid_start);
    // A non-finite loss means the weights are no longer numbers: ranking
    // their predictions would score noise as a result (a rank IC from NaNs),
    // so the epoch is not reported either (hpo would store it in the curve).
    // Training stops, and the best finite epoch, if any, stands.
    const double train_loss =
        state_.epoch_loss_sum / double(std::max<int64_t>(1, state_.epoch_loss_count));
    if (!std::isfinite(train_loss) || !std::isfinite(val.loss)) {
      diverged_ = true;
      log_ << fmt::format("{}epoch {}: diverged (train_loss {:.4g}, val_loss {:.4g}); stopping{}\n",
                          what_.name.empty() ? "" : what_.name + " ", state_.epoch, train_loss,
                          val.loss,
                          state_.best_weights.empty() ? "" : ": the best finite epoch stands");
      return true;
    }
    report_epoch(val, pass, seconds_since(epoch_start));
    update_best(val);
    ++state_.epoch;
    state_.batch = 0;
    state_.epoch_loss_sum = 0;
    state_.epoch_loss_count = 0;
    save();
    if (stop_requested()) {
      log_ << fmt::format("stop requested: checkpoint after epoch {}, exiting {}\n",
                          state_.epoch - 1, kExitStopped);
      return false;
    }
    return true;
  }

  struct PassStats {
    int64_t trained = 0;
    double seconds = 0, wait_seconds = 0;
  };

  // The training batches of the current epoch, from state_.batch on. Returns
  // false when a stop was requested mid-epoch (after writing the checkpoint).
  bool train_pass(PassStats* stats) {
    model_->train();
    Batcher& b = batcher();
    b.start(epoch_samples(state_.epoch), config_.batch_size, state_.batch);
    b.reset_wait();
    std::optional<GraphStep::Pass> graph_pass;  // a graph copies each batch itself
    if (graph_) graph_pass.emplace(*graph_);
    torch::Tensor loss_sum =
        graph_ ? graph_->loss_sum()
               : torch::zeros({},
                              torch::TensorOptions().dtype(torch::kFloat64).device(device_.device));
    int64_t batches = 0;
    const auto start = Clock::now();
    // Double buffer: batch k+1's copy is queued before batch k's compute.
    std::optional<Batch> current = b.next();
    std::optional<DeviceBatch> on_device;
    if (current && !graph_) on_device = to_device(*current);
    while (current) {
      std::optional<Batch> following = b.next();
      std::optional<DeviceBatch> following_on_device;
      if (following && !graph_) following_on_device = to_device(*following);

      const int64_t done = int64_t(current->index) + 1;
      const bool step_now = done % config_.grad_accum == 0 || done == batches_per_epoch_;
      const OneOffShape tail(current->size != size_t(config_.batch_size));
      if (graph_) {
        const DeviceBatch in = host_part(*current);
        graph_->train(in.first, in.second, step_now, step_now ? set_lr() : 0.0);
      } else {
        loss_sum += train_batch(on_device->first, on_device->second);
      }
      stats->trained += int64_t(current->size);
      ++batches;
      if (step_now) {
        if (graph_) {
          count_adamw_step(*optimizer_);
          ++state_.step;
        } else {
          optimizer_step();
        }
        if (options_.after_step) options_.after_step(state_.step);
        if (stop_requested() && done < batches_per_epoch_) {
          state_.batch = done;
          add_epoch_loss(loss_sum, batches);
          save();
          log_ << fmt::format(
              "stop requested: checkpoint at epoch {} batch {} (step {}), exiting {}\n",
              state_.epoch, done, state_.step, kExitStopped);
          return false;
        }
      }
      current = std::move(following);
      on_device = std::move(following_on_device);
    }
    synchronize(device_);
    stats->seconds = seconds_since(start);
    stats->wait_seconds = b.wait_seconds();
    add_epoch_loss(loss_sum, batches);
    return true;
  }

  // Forward and backward of one batch; returns its loss (on the device, so
  // nothing waits for the GPU here).
  torch::Tensor train_batch(const torch::Tensor& x, const torch::Tensor& y) {
    torch::Tensor loss;
    {
      AutocastScope autocast(device_.amp, device_.amp_dtype);
      loss = torch::mse_loss(model_->forward(x).to(torch::kFloat32), y);
    }
    (loss / double(config_.grad_accum)).backward();
    return loss.detach().to(torch::kFloat64);
  }

  void report_epoch(const Scores& val, const PassStats& pass, double epoch_seconds) {
    const double train_loss =
        state_.epoch_loss_sum / double(std::max<int64_t>(1, state_.epoch_loss_count));
    const double seconds = std::max(pass.seconds, 1e-9);
    Metrics m;
    add_scores(&m, "val_", pack(val));
    m["train_loss"] = train_loss;
    m["samples_per_s"] = double(pass.trained) / seconds;
    m["data_wait_frac"] = pass.wait_seconds / seconds;
    m["epoch_time_s"] = epoch_seconds;
    m["peak_mem_mb"] = peak_memory_mb(device_);
    if (device_.cuda) m["peak_gpu_mem_mb"] = peak_gpu_memory_mb(device_);
    m["train_set_samples"] = double(what_.train.size());  // for time estimates (hpo gpu calibrate)
    m["lr"] = optimizer_lr();
    m["val_sharpe_net"] = val.sharpe_net;
    m["val_turnover"] = val.turnover;
    if (what_.epoch_report) what_.epoch_report->epoch(int(state_.epoch), m);
    total_trained_ += double(pass.trained);
    total_train_seconds_ += pass.seconds;
    total_wait_seconds_ += pass.wait_seconds;
    log_ << fmt::format(
        "{}epoch {}: train_loss {:.4f} val_loss {:.4f} val_rank_ic {:.4f} val_ic {:.4f} val_sharpe "
        "{:.2f} | {:.0f} "
        "samples/s, data wait {:.1f}%, {:.1f}s\n",
        what_.name.empty() ? "" : what_.name + " ", state_.epoch, train_loss, val.loss, val.rank_ic,
        val.ic, val.sharpe, m["samples_per_s"], 100 * m["data_wait_frac"], epoch_seconds);
  }

  // Early stopping bookkeeping; the best epoch's weights are kept on the CPU.
  void update_best(const Scores& val) {
    if (!(val.rank_ic > state_.best_val_rank_ic)) {
      ++state_.bad_epochs;
      return;
    }
    state_.best_val_rank_ic = val.rank_ic;
    state_.best_epoch = state_.epoch;
    state_.best_val = pack(val);
    best_scores_ = val;
    state_.best_weights.clear();
    for (const torch::Tensor& t : model_state(*model_))
      state_.best_weights.push_back(t.detach().to(torch::kCPU).clone());
    state_.bad_epochs = 0;
  }

  void add_epoch_loss(const torch::Tensor& loss_sum, int64_t batches) {
    state_.epoch_loss_sum += loss_sum.item<double>();
    state_.epoch_loss_count += batches;
  }

  // The schedule's learning rate for the next step, set as the optimizer's.
  double set_lr() {
    const double lr = learning_rate(config_.lr, state_.step, warmup_steps_, total_steps_);
    for (auto& group : optimizer_->param_groups())
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
    return lr;
  }

  void optimizer_step() {
    set_lr();
    if (config_.grad_clip > 0) clip_grad_norm(params_, config_.grad_clip, device_.fused_optimizer);
    if (device_.fused_optimizer)
      fused_adamw_step(*optimizer_, device_);
    else
      optimizer_->step();
    optimizer_->zero_grad();
    ++state_.step;
  }

  double optimizer_lr() {
    return static_cast<torch::optim::AdamWOptions&>(optimizer_->param_groups().front().options())
        .lr();
  }

  void save() {
    if (!checkpoint_path().empty())
      save_checkpoint(checkpoint_path(), *model_, *optimizer_, state_, config_text_, device_.cuda);
  }

  // Puts the best epoch's weights back into the model.
  void restore_best() {
    if (state_.best_weights.empty()) return;
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> current = model_state(*model_);
    for (size_t i = 0; i < current.size(); ++i) current[i].copy_(state_.best_weights[i]);
  }

  bool diverged_ = false;  // an epoch's loss was not finite: no more epochs
  const TrainerConfig config_;  // a copy: each fold has its own seed
  const std::string config_text_;  // what checkpoints record
  const RuntimeSettings& settings_;
  const Dataset& data_;
  const LoopData what_;
  const TrainOptions& options_;
  std::ostream& log_;

  DeviceSetup device_;
  std::shared_ptr<ReturnModel> model_;
  std::vector<torch::Tensor> params_;
  std::unique_ptr<torch::optim::AdamW> optimizer_;
  std::unique_ptr<DeviceFeatures> store_;  // features on the CUDA device: null where not
  std::unique_ptr<GraphStep> graph_;  // CUDA graphs: null where off or unavailable
  torch::Tensor device_step_;  // AdamW's step count on the device, for graph_
  BatcherOptions batcher_options_;
  std::unique_ptr<Batcher> batcher_;
  std::set<const std::vector<Sample>*> series_logged_;  // see predict_tcn
  LoopState state_;
  std::optional<Scores> best_scores_;  // the best epoch's, when it ran in this process

  size_t train_per_epoch_ = 0;
  int64_t batches_per_epoch_ = 0, steps_per_epoch_ = 0, total_steps_ = 0, warmup_steps_ = 0;
  double total_trained_ = 0, total_train_seconds_ = 0, total_wait_seconds_ = 0;
  double valid_seconds_ = 0, cuda_init_seconds_ = 0;
};

// The portfolio scores that are not in pack(): net Sharpe and turnover.
void add_costs(Metrics* m, const std::string& prefix, const Scores& s) {
  (*m)[prefix + "sharpe_net"] = s.sharpe_net;
  (*m)[prefix + "turnover"] = s.turnover;
}

Metrics all_scores(const std::string& prefix, const Scores& s) {
  Metrics m;
  add_scores(&m, prefix, pack(s));
  add_costs(&m, prefix, s);
  return m;
}

// The synthetic panel's oracle on the single split's validation and on test.
void add_oracle(Metrics* m, const Dataset& data, double cost_bps) {
  if (data.oracle.empty()) return;
  const Scores val = oracle_scores(data, data.valid, cost_bps),
               test = oracle_scores(data, data.test, cost_bps);
  (*m)["oracle_val_rank_ic"] = val.rank_ic;
  (*m)["oracle_val_sharpe"] = val.sharpe;
  (*m)["oracle_val_sharpe_net"] = val.sharpe_net;
  (*m)["oracle_test_rank_ic"] = test.rank_ic;
  (*m)["oracle_test_sharpe_net"] = test.sharpe_net;
}

// The series line of `split` from the daily scores of one or more windows
// (cross-validation: the folds' validation blocks, which are disjoint and in
// date order).
void write_series(ReportWriter* report, const Dataset& data, const std::string& split,
                  const std::vector<Scores>& windows) {
  std::vector<std::string> dates;
  std::vector<double> returns, rank_ic;
  std::vector<std::string> skipped;
  for (const Scores& w : windows) {
    for (size_t k = 0; k < w.daily_days.size(); ++k) {
      dates.push_back(data.dates[w.daily_days[k]]);
      if (k < w.daily_skipped.size() && w.daily_skipped[k]) skipped.push_back(dates.back());
    }
    returns.insert(returns.end(), w.daily_net.begin(), w.daily_net.end());
    rank_ic.insert(rank_ic.end(), w.daily_rank_ic.begin(), w.daily_rank_ic.end());
  }
  report->series(split, dates, returns, rank_ic, skipped);
}

void log_final(std::ostream& log, const Metrics& m) {
  log << fmt::format(
      "time: load {:.2f}s, data {:.2f}s, train {:.2f}s, valid {:.2f}s, test {:.2f}s{}\n",
      m.at("load_s"), m.at("data_s"), m.at("train_s"), m.at("valid_s"), m.at("test_s"),
      m.count("cuda_init_s") ? fmt::format(", CUDA start-up {:.2f}s", m.at("cuda_init_s")) : "");
  log << fmt::format(
      "final: best epoch {} val_rank_ic {:.4f} val_sharpe_net {:.2f}; test rank_ic {:.4f} ic "
      "{:.4f} sharpe {:.2f} "
      "sharpe_net {:.2f} turnover {:.2f}\n",
      m.at("best_epoch"), m.at("val_rank_ic"), m.at("val_sharpe_net"), m.at("test_rank_ic"),
      m.at("test_ic"), m.at("test_sharpe"), m.at("test_sharpe_net"), m.at("test_turnover"));
}

// Today's single train/valid split: the best epoch's model is the trial's.
TrainResult train_single(const TrainerConfig& config, const RuntimeSettings& settings,
                         const Dataset& data, const TrainOptions& options, ReportWriter* report) {
  const bool apart = !data.select.empty();  // epoch_select_frac: picked on other days
  Loop loop(config, settings, data,
            {data.train, apart ? data.select : data.valid, "", report, true}, options);
  if (!loop.fit()) return {kExitStopped, {}};
  TimeSplit times;
  auto start = Clock::now();
  const Scores valid = loop.best_scores(data.valid);  // for its daily series
  times.valid_s = seconds_since(start);
  start = Clock::now();
  const Scores test = loop.evaluate(data.test);
  times.test_s = seconds_since(start);
  loop.add_times(&times);
  Metrics m;
  add_scores(&m, "val_", apart ? pack(valid) : loop.state().best_val);
  add_costs(&m, "val_", valid);
  add_scores(&m, "test_", pack(test));
  add_costs(&m, "test_", test);
  m["best_epoch"] = double(loop.state().best_epoch);
  m["epochs_run"] = double(loop.state().epoch);
  m["test_long_short"] = test.long_short;
  loop.add_throughput(&m);
  times.add_to(&m, options);
  add_oracle(&m, data, config.cost_bps);
  write_series(report, data, "valid", {valid});
  write_series(report, data, "test", {test});
  report->final(m);
  log_final(options.log ? *options.log : std::cerr, m);
  return {kExitOk, m};
}

// Cross-validation: one model per fold, each seeded seed + k so that a fold's
// result depends on its own data only. Each fold's end is reported as an
// epoch line with step k and the running mean over folds 0..k; the final
// val_* metrics are the means over folds, and test_* are those of the last
// fold's model (trained on the latest data) on the test window.
TrainResult train_folds(const TrainerConfig& config, const RuntimeSettings& settings,
                        const Dataset& data, const TrainOptions& options, ReportWriter* report) {
  std::vector<Scores> folds;
  Metrics mean, m;
  std::unique_ptr<Loop> loop;
  TimeSplit times;
  for (size_t k = 0; k < data.folds.size(); ++k) {
    TrainerConfig fold_config = config;
    fold_config.seed = config.seed + k;
    const FoldData& f = data.folds[k];
    loop = std::make_unique<Loop>(fold_config, settings, data,
                                  LoopData{f.train, f.select.empty() ? f.valid : f.select,
                                           fmt::format("fold {}", k), nullptr, false},
                                  options);
    if (!loop->fit()) return {kExitStopped, {}};
    const auto valid_start = Clock::now();
    folds.push_back(loop->best_scores(f.valid));
    times.valid_s += seconds_since(valid_start);
    loop->add_times(&times);
    mean.clear();
    for (const Scores& fold : folds)
      for (const auto& [name, value] : all_scores("val_", fold))
        mean[name] += value / double(folds.size());
    Metrics line = mean;
    line["fold_val_rank_ic"] = folds.back().rank_ic;
    line["fold_val_sharpe_net"] = folds.back().sharpe_net;
    line["fold_best_epoch"] = double(loop->state().best_epoch);
    report->epoch(int(k), line);
    m[fmt::format("fold_{}_val_rank_ic", k)] = folds.back().rank_ic;
    m[fmt::format("fold_{}_val_sharpe_net", k)] = folds.back().sharpe_net;
  }
  const auto test_start = Clock::now();
  const Scores test = loop->evaluate(data.test);
  times.test_s = seconds_since(test_start);
  for (const auto& [name, value] : mean) m[name] = value;
  for (const auto& [name, value] : all_scores("test_", test)) m[name] = value;
  m["cv_folds"] = double(folds.size());
  m["best_epoch"] = double(loop->state().best_epoch);
  m["epochs_run"] = double(loop->state().epoch);
  m["test_long_short"] = test.long_short;
  loop->add_throughput(&m);
  times.add_to(&m, options);
  add_oracle(&m, data, config.cost_bps);
  write_series(report, data, "valid", folds);
  write_series(report, data, "test", {test});
  report->final(m);
  log_final(options.log ? *options.log : std::cerr, m);
  return {kExitOk, m};
}

}  // namespace

double learning_rate(double base, int64_t step, int64_t warmup, int64_t total) {
  if (step < warmup) return base * double(step + 1) / double(warmup);
  const double span = double(std::max<int64_t>(1, total - warmup));
  const double progress = std::clamp(double(step - warmup) / span, 0.0, 1.0);
  return base * 0.5 * (1.0 + std::cos(M_PI * progress));
}

TrainResult train(const TrainerConfig& config, const RuntimeSettings& settings, const Dataset& data,
                  const TrainOptions& options) {
  ReportWriter report(options.report_path);
  if (data.folds.empty()) return train_single(config, settings, data, options, &report);
  return train_folds(config, settings, data, options, &report);
}

}  // namespace hpo::trainer
