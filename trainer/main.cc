// hpo-trainer: trains a return-prediction model for one hpo trial and reports
// through the trainer protocol. See kHelpFooter (and --help) for the contract.
#include <fmt/format.h>
#include <time.h>
#include <torch/cuda.h>
#include <torch/version.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <utility>

#include "trainer/config.h"
#include "trainer/dataset.h"
#include "trainer/device.h"
#include "trainer/error.h"
#include "trainer/graph_step.h"
#include "trainer/heap.h"
#include "trainer/runtime_settings.h"
#include "trainer/serve.h"
#include "trainer/stop.h"
#include "trainer/synthetic.h"
#include "trainer/trainer.h"

namespace hpo::trainer {
namespace {

const char* kHelpFooter = R"(
Trainer protocol (how hpo runs this program):
  hpo-trainer --config CONFIG --out TRIAL_DIR [--resume]
  CONFIG is a flat JSON or YAML object (see keys below); HPO_CONFIG is used
  when --config is absent. An unknown key or a wrong type exits 2 naming the
  file and the key.
  Reports: JSON lines appended to $HPO_REPORT_FILE (else --report FILE, else
  none), flushed per line:
    {"type": "epoch", "step": E, "metrics": {"val_rank_ic", "val_ic",
      "val_sharpe", "val_sharpe_net", "val_turnover", "val_rank_icir",
      "val_loss", "train_loss", "samples_per_s", "epoch_time_s",
      "data_wait_frac", "peak_mem_mb", "train_set_samples", "lr", and on
      CUDA "peak_gpu_mem_mb"}}
    {"type": "series", "split": "valid" | "test", "dates", "returns",
      "rank_ic"} (daily; see Validation below)
    {"type": "final", "metrics": {"val_rank_ic" (best epoch, the objective),
      "val_sharpe", "val_sharpe_net", "val_turnover", "val_ic",
      "val_rank_icir", "val_loss", the same with test_, "best_epoch",
      "samples_per_s", "data_wait_frac", "peak_mem_mb", the time split in
      seconds "load_s" (process start to main: loading LibTorch; in serve
      mode after the first trial, the request's arrival to the trial's
      start), "data_s", "train_s", "valid_s", "test_s" and on CUDA "cuda_init_s", with cross-validation
      "cv_folds" and "fold_K_val_rank_ic", "fold_K_val_sharpe_net", and on
      the synthetic panel "oracle_val_rank_ic", "oracle_val_sharpe",
      "oracle_val_sharpe_net", "oracle_test_rank_ic", "oracle_test_sharpe_net"}}
  TRIAL_DIR/checkpoint.pt is written (atomically) after every epoch; --resume
  or HPO_RESUME=1 (hpo sets it for a trial it runs again) continues from it,
  if it was written for the same config (else the run starts fresh).
  Exit codes: 0 done (final line written); 2 bad usage, config or data;
  75 stopped by SIGTERM (or SIGINT) after finishing the current optimizer step
  and writing a checkpoint -- rerun with --resume; anything else: a crash.
  Serve mode (HPO_SERVE=1; hpo sets it for trainer: {serve: true}): one
  process runs trial after trial, each a JSON line on stdin ({"argv", "env",
  "stdout", "stderr"}) answered by {"exit": N} on stdout, keeping LibTorch
  and the last panel's features loaded (docs/trainer-protocol.md).

Environment (the study's env settings): NUM_WORKERS (batch-builder threads,
default 1), PREFETCH_FACTOR (2), PIN_MEMORY (1), PIN_MEMORY_DEVICE,
PERSISTENT_WORKERS (1), CUDNN_BENCHMARK (auto: on when the run trains at
least 9,000 batches, which pays for cuDNN's algorithm search; 1 or 0), TF32 (1), AMP_DTYPE (bf16|fp16|off,
CUDA only; default bf16), FUSED_OPTIMIZER (1: on CUDA with torch >= 2.1, one
fused AdamW kernel and multi-tensor gradient clipping), CUDA_GRAPHS (1: on
CUDA with torch >= 2.4, each full training step is replayed as one CUDA
graph), DEVICE_FEATURES (1: on CUDA, the features are copied to the GPU once
where they take at most a quarter of its free memory, and each batch is
gathered there from its indices), CHANNELS_LAST (auto: on; the TCN's
convolutions in channels-last layout, the same function, faster on the CPU
and on CUDA; 0: 3-D convolutions), SERIES_SCORING (auto: on the CPU, the
TCN's scored windows of a name share the steps they have in common where
that is less work; 1 or 0),
OMP_NUM_THREADS (intra-op threads),
HPO_GPU_MEMORY_FRACTION (hpo sets a GPU profile's memory_fraction: CUDA's
caching allocator keeps to that share of the GPU). Each is logged at start-up as
applied. glibc's malloc serves blocks under 32 MiB from its heap and keeps
freed memory for reuse, sparing the kernel's page faults every step, unless
MALLOC_*_ variables or GLIBC_TUNABLES tune it.
HPO_DEVICE (auto|cpu|cuda; hpo sets it per slot) decides where the
config's device auto trains; a GPU slot this build cannot use fails with a
line holding "no_cuda:" (exit 2). HPO_CACHE_DIR (hpo sets it to the runs
directory's .cache) keeps the panel's features, built once per data file and
trainer binary, for every trial to read back: one trial builds an entry while
the others wait for it, and entries unused for 7 days are removed.

  hpo-trainer --capabilities
prints what this build can do as one JSON object: "torch" (LibTorch's
version), "cuda_built" (linked against a CUDA LibTorch), "cuda_devices" (GPUs
it sees now), "cuda_graphs" (can replay steps as CUDA graphs). hpo doctor
reads it.

Data: `data` names a CSV with columns date,ticker,open,high,low,close,volume
(ISO dates). Without it the built-in synthetic panel is generated in memory.
  hpo-trainer --make-data FILE [--tickers 500] [--days 1500] [--seed 7]
              [--signal-strength easy|realistic|noise|NUMBER]
writes that panel as CSV and prints the oracle's RankIC, gross and net
Sharpe and turnover on the validation and test windows. Presets:
easy (0.12, the default: oracle RankIC ~0.10, Sharpe ~33), realistic (0.035:
RankIC ~0.03, net Sharpe ~2-3 at 10 bps, like a good equity signal), noise
(0: nothing to learn).
Examples:
  hpo-trainer --make-data panel.csv --signal-strength realistic
  hpo-trainer --make-data noise.csv --signal-strength noise --tickers 200

Validation: cv_scheme walk_forward | purged_kfold (or cv: {scheme, folds,
embargo_days}) trains one model per fold; the objective is the mean over
folds, each fold reported as it ends (epoch line, step = fold), and before
the final line two series lines give the daily net long-short return and
RankIC of the validation days and the test window:
  {"type": "series", "split": "valid"|"test", "dates": [...],
   "returns": [...], "rank_ic": [...]}
Costs: val_sharpe_net / test_sharpe_net subtract cost_bps (default 10) per
unit of daily turnover (val_turnover, test_turnover). See
docs/hpo-trainer-validation.md.
Features: trainer/FEATURES.md.
)";

// Seconds from this process's start (by the kernel's clock) to now: before
// main() that is mostly loading LibTorch's shared libraries. 0 if unknown.
double seconds_since_process_start() {
  std::ifstream stat("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Field 22, starttime in clock ticks after boot, counted after the
  // command name's closing parenthesis (the name may hold spaces).
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  struct timespec now = {};
  if (field.empty() || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return 0;
  const double started = std::stod(field) / double(sysconf(_SC_CLK_TCK));
  return std::max(0.0, double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - started);
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

int make_data(const std::string& path, const SyntheticSpec& spec, TrainerConfig config) {
  config.max_valid_samples = 0;  // every validation day: the portfolio's turnover is daily
  SyntheticPanel synthetic = make_synthetic_panel(spec);
  write_panel_csv(synthetic.panel, path);
  Dataset d = make_dataset(synthetic.panel, config);
  d.oracle = std::move(synthetic.planted_score);
  const Scores val = oracle_scores(d, d.valid, config.cost_bps),
               test = oracle_scores(d, d.test, config.cost_bps);
  std::cout << fmt::format("wrote {} ({} tickers x {} days, seed {}, signal {})\n", path,
                           spec.tickers, spec.days, spec.seed, spec.signal);
  std::cout << fmt::format(
      "oracle (true expected return, horizon {}, cost {} bps): val_rank_ic {:.4f} val_sharpe "
      "{:.2f} val_sharpe_net {:.2f} val_turnover {:.2f} test_rank_ic {:.4f} test_sharpe {:.2f} "
      "test_sharpe_net {:.2f} test_turnover {:.2f}\n",
      config.horizon, config.cost_bps, val.rank_ic, val.sharpe, val.sharpe_net, val.turnover,
      test.rank_ic, test.sharpe, test.sharpe_net, test.turnover);
  return kExitOk;
}

// Writes the normalized features, targets and training samples as raw
// little-endian arrays, so tools/bench/trainer/peer.py trains on exactly
// the data hpo-trainer sees.
int export_features(const std::string& dir, const TrainerConfig& config) {
  Dataset d = load_dataset(config, "", &std::cerr);
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const void* data, size_t bytes) {
    std::ofstream out(std::filesystem::path(dir) / name, std::ios::binary);
    out.write(static_cast<const char*>(data), std::streamsize(bytes));
    if (!out) throw UsageError(fmt::format("{}/{}: write failed", dir, name));
  };
  const FeatureSet& fs = d.features;
  write("features.f32", fs.values.data(), fs.values.size() * sizeof(float));
  write("target.f32", fs.target.data(), fs.target.size() * sizeof(float));
  write("train.u32", d.train.data(), d.train.size() * sizeof(Sample));
  write("label.f32", fs.label.data(), fs.label.size() * sizeof(float));
  write("daily_return.f32", fs.daily_return.data(), fs.daily_return.size() * sizeof(float));
  nlohmann::json meta = {{"tickers", fs.num_tickers},       {"days", fs.num_days},
                         {"features", fs.num_features},     {"lookback", config.lookback},
                         {"train_samples", d.train.size()}, {"dates", d.dates},
                         {"ticker_names", d.tickers}};
  std::ofstream(std::filesystem::path(dir) / "meta.json") << meta.dump(2) << "\n";
  std::cout << fmt::format("exported {} train samples of {} features to {}\n", d.train.size(),
                           fs.num_features, dir);
  if (const std::string summary = data_summary_line(d, config); !summary.empty())
    std::cout << "data: " << summary << "\n";
  return kExitOk;
}

// The environment's settings. One hpo sets for every trial and this trainer
// refuses fails each trial alike: the "bad_env:" marker tells hpo to stop
// the sweep (docs/trainer-protocol.md).
RuntimeSettings settings_or_bad_env(const EnvLookup& environment) {
  try {
    return read_runtime_settings(environment);
  } catch (const UsageError& e) {
    throw UsageError(std::string("bad_env: ") + e.what());
  }
}

// What this build and machine can do, for hpo doctor and GPU set-ups.
int print_capabilities() {
#ifdef HPO_TORCH_CUDA
  const bool cuda_built = true;
#else
  const bool cuda_built = false;
#endif
  const nlohmann::json caps = {{"torch", TORCH_VERSION},
                               {"cuda_built", cuda_built},
                               {"cuda_devices", cuda_built ? torch::cuda::device_count() : 0},
                               {"cuda_graphs", GraphStep::available()}};
  std::cout << caps.dump() << "\n";
  return kExitOk;
}

// One trial (or --make-data, --capabilities, ...) with argv as the command
// line; a fresh CLI11 app each time, so a server's trials share no options.
int run(int argc, char** argv, std::optional<std::chrono::steady_clock::time_point> arrived) {
  CLI::App app{"hpo-trainer: a LibTorch trainer for stock-return models (TCN or MLP)"};
  app.footer(std::string(kHelpFooter) + "\n" + config_help());
  std::string config_path, out_dir, report_path, make_data_path, export_dir;
  bool resume = false, capabilities = false;
  SyntheticSpec spec;
  std::string signal_strength;
  app.add_option("--config", config_path, "Trial config (JSON or YAML); default $HPO_CONFIG");
  app.add_option("--out", out_dir, "Trial directory for checkpoint.pt; default $HPO_TRIAL_DIR");
  app.add_flag(
      "--resume", resume,
      "Continue from OUT/checkpoint.pt if it exists and has the same config (also: HPO_RESUME=1)");
  app.add_option("--report", report_path, "Report file when $HPO_REPORT_FILE is unset");
  app.add_option("--make-data", make_data_path,
                 "Write the synthetic panel to this CSV and print the oracle's scores");
  app.add_option("--tickers", spec.tickers, "--make-data: tickers")->check(CLI::Range(5, 100000));
  app.add_option("--days", spec.days, "--make-data: days")->check(CLI::Range(100, 100000));
  app.add_option("--seed", spec.seed, "--make-data: seed");
  app.add_option("--signal-strength,--signal", signal_strength,
                 "--make-data: planted signal, easy | realistic | noise | a number (default: the "
                 "config's, easy)");
  app.add_flag("--capabilities", capabilities,
               "Print what this build can do (CUDA, CUDA graphs) as JSON and exit");
  app.add_option("--export-features", export_dir,
                 "Benchmark aid: write the config's features as raw arrays to DIR");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  if (capabilities) return print_capabilities();
  if (config_path.empty()) config_path = env_or("HPO_CONFIG", "");
  if (out_dir.empty()) out_dir = env_or("HPO_TRIAL_DIR", "");
  TrainerConfig config = config_path.empty() ? TrainerConfig{} : load_config(config_path);
  if (!signal_strength.empty()) config.signal_strength = signal_strength;
  if (!make_data_path.empty()) {
    const std::optional<double> signal = signal_named(config.signal_strength);
    if (!signal)
      throw UsageError(fmt::format(
          "--signal-strength: expected easy, realistic, noise or a number >= 0, got '{}'",
          config.signal_strength));
    spec.signal = *signal;
    return make_data(make_data_path, spec, config);
  }
  if (!export_dir.empty()) return export_features(export_dir, config);

  const EnvLookup environment = [](const char* name) { return std::getenv(name); };
  const RuntimeSettings settings = settings_or_bad_env(environment);
  TrainOptions options;
  options.out_dir = out_dir;
  // hpo sets HPO_RESUME=1 when it runs a trial again after its first run died
  // or was interrupted; the shipped studies do not pass --resume.
  options.resume = resume || env_or("HPO_RESUME", "") == "1";
  options.report_path = env_or("HPO_REPORT_FILE", report_path);
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec || !std::filesystem::is_directory(out_dir))
      throw UsageError(fmt::format("--out {}: cannot create the trial directory: {}", out_dir,
                                   ec ? ec.message() : "a file is in its place"));
  }
  std::cerr << fmt::format("hpo-trainer: trial {} of study {}, config {}\n",
                           env_or("HPO_TRIAL_NUMBER", "-"), env_or("HPO_STUDY_NAME", "-"),
                           config_path.empty() ? "(defaults)" : config_path);
  install_stop_handler();
  // Before the data: its arrays and every step's activations come from the
  // heap (heap.h says why).
  std::cerr << "setting malloc -> " << keep_freed_memory(environment) << "\n";
  options.load_s =
      arrived ? std::chrono::duration<double>(std::chrono::steady_clock::now() - *arrived).count()
              : seconds_since_process_start();
  // Where the trial trains is known now: on CUDA its context starts beside the data's load.
  refuse_cuda_this_build_lacks(settings, config.device);
  const std::future<void> cuda_started = start_cuda_early(settings, config.device);
  const auto data_start = std::chrono::steady_clock::now();
  // hpo points every trial at one cache (its runs directory's), so the panel
  // and features are built once per data file, not once per trial.
  Dataset data = load_dataset(config, env_or("HPO_CACHE_DIR", ""), &std::cerr);
  try {
    require_scoreable(data, config);
  } catch (const UsageError&) {
    give_back(std::move(data));  // the panel stays a server's for its next trial
    throw;
  }
  const auto data_end = std::chrono::steady_clock::now();
  options.data_s = std::chrono::duration<double>(data_end - data_start).count();
  if (cuda_started.valid()) {
    cuda_started.wait();
    options.cuda_wait_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - data_end).count();
  }
  const int code = train(config, settings, data, options).exit_code;
  give_back(std::move(data));  // to a server's next trial (panel_memo.h)
  return code;
}

// run() with its exceptions turned into exit codes and messages.
int run_guarded(int argc, char** argv,
                std::optional<std::chrono::steady_clock::time_point> arrived) {
  try {
    return run(argc, argv, arrived);
  } catch (const UsageError& e) {
    std::cerr << "hpo-trainer: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const Diverged& e) {
    std::cerr << "hpo-trainer: diverged: " << e.what() << "\n";
    return kExitDiverged;
  } catch (const std::exception& e) {
    std::cerr << "hpo-trainer: crashed: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace
}  // namespace hpo::trainer

int main(int argc, char** argv) {
  if (hpo::trainer::env_or("HPO_SERVE", "") == "1") {
    try {
      return hpo::trainer::serve(hpo::trainer::run_guarded);
    } catch (const std::exception& e) {  // only the server's own set-up throws
      std::cerr << "hpo-trainer serve: " << e.what() << "\n";
      return 1;
    }
  }
  return hpo::trainer::run_guarded(argc, argv, std::nullopt);
}
