#include <torch/torch.h>

#include <csignal>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/trainer/test_util.h"
#include "tests/trainer/tiny_config.h"
#include "trainer/error.h"
#include "trainer/stop.h"
#include "trainer/trainer.h"

// After the torch headers: glog (pulled in by LibTorch) defines its own CHECK.
#include <doctest/doctest.h>

namespace hpo::trainer {
namespace {

using testing::TempDir;
using testing::tiny_config;

RuntimeSettings settings() {
  RuntimeSettings s;
  s.num_workers = 2;
  return s;
}

struct Run {
  TrainResult result;
  std::string report, log;
};

Run run(const TrainerConfig& config, const Dataset& data, const std::string& out, bool resume,
        std::function<void(int64_t)> after_step = nullptr, RuntimeSettings s = settings()) {
  TempDir scratch;
  std::ostringstream log;
  TrainOptions options;
  options.out_dir = out;
  options.resume = resume;
  options.report_path = scratch.file("report.jsonl");
  options.log = &log;
  options.after_step = std::move(after_step);
  Run r{train(config, s, data, options), "", ""};
  r.report = testing::read_file(options.report_path);
  r.log = log.str();
  return r;
}

void check_same_final(const Metrics& a, const Metrics& b) {
  for (const char* key : {"val_rank_ic", "val_sharpe", "val_loss", "test_rank_ic", "test_ic",
                          "test_sharpe", "test_loss", "best_epoch"}) {
    const std::string name = key;  // captured as text, not as a pointer
    CAPTURE(name);
    REQUIRE(a.count(key));
    CHECK(a.at(key) == b.at(key));  // bitwise: training on CPU is deterministic
  }
}

TEST_CASE("train: reports every epoch and a final line with finite objective values") {
  TrainerConfig config = tiny_config();
  Dataset data = load_dataset(config);
  TempDir out;
  Run r = run(config, data, out.path(), false);
  CHECK(r.result.exit_code == kExitOk);
  CHECK(std::filesystem::exists(out.file("checkpoint.pt")));
  std::istringstream lines(r.report);
  std::string line, last;
  int epochs = 0;
  while (std::getline(lines, line)) {
    if (line.find("\"type\":\"epoch\"") != std::string::npos) ++epochs;
    last = line;
  }
  CHECK(epochs == 3);
  CHECK(last.find("\"type\":\"final\"") != std::string::npos);
  for (const char* key :
       {"val_rank_ic", "val_sharpe", "test_rank_ic", "test_ic", "test_sharpe", "test_rank_icir",
        "test_loss", "best_epoch", "samples_per_s", "oracle_val_rank_ic"}) {
    CAPTURE(key);
    REQUIRE(r.result.final_metrics.count(key));
    CHECK(std::isfinite(r.result.final_metrics.at(key)));
  }
  CHECK(r.report.find("\"data_wait_frac\"") != std::string::npos);
  CHECK(r.report.find("\"peak_mem_mb\"") != std::string::npos);
}

TEST_CASE(
    "train: SIGTERM mid-epoch leaves a checkpoint, and resuming gives the uninterrupted result") {
  TrainerConfig config = tiny_config();
  config.device = "cpu";  // bitwise equality holds on CPU; cuDNN's kernels are not deterministic
  Dataset data = load_dataset(config);
  TempDir straight_dir, stopped_dir;
  Run straight = run(config, data, straight_dir.path(), false);
  REQUIRE(straight.result.exit_code == kExitOk);

  for (int64_t stop_at :
       {int64_t(5), int64_t(4)}) {  // step 5: mid-epoch 1; step 4: the end of epoch 0
    CAPTURE(stop_at);
    testing::remove_tree(stopped_dir.path());
    std::filesystem::create_directories(stopped_dir.path());
    clear_stop();
    install_stop_handler();
    Run stopped = run(config, data, stopped_dir.path(), false, [stop_at](int64_t step) {
      if (step == stop_at) std::raise(SIGTERM);
    });
    CHECK(stopped.result.exit_code == kExitStopped);
    CHECK(std::filesystem::exists(stopped_dir.file("checkpoint.pt")));
    CHECK_FALSE(std::filesystem::exists(stopped_dir.file("checkpoint.pt.tmp")));
    CHECK(stopped.report.find("\"final\"") == std::string::npos);
    clear_stop();
    Run resumed = run(config, data, stopped_dir.path(), true);
    CHECK(resumed.result.exit_code == kExitOk);
    check_same_final(straight.result.final_metrics, resumed.result.final_metrics);
  }
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);
}

TEST_CASE("train: resuming a finished run only re-reports the final line") {
  TrainerConfig config = tiny_config();
  config.epochs = 2;
  Dataset data = load_dataset(config);
  TempDir out;
  Run first = run(config, data, out.path(), false);
  Run again = run(config, data, out.path(), true);
  CHECK(again.result.exit_code == kExitOk);
  CHECK(again.report.find("\"epoch\"") == std::string::npos);
  check_same_final(first.result.final_metrics, again.result.final_metrics);
}

TEST_CASE("train: the best epoch's kept validation scores equal scoring its weights again") {
  // A resumed finished run has no kept scores: it scores the restored best
  // weights. A best epoch before the last one checks that the kept scores are
  // the best epoch's, not the last's.
  TrainerConfig config = tiny_config();
  config.device = "cpu";
  config.epochs = 4;
  config.lr = 3e-2;  // a noisy run, whose last epoch is not always its best
  Dataset data = load_dataset(config);
  TempDir out;
  Run kept;
  for (config.seed = 0; config.seed < 20; ++config.seed) {
    testing::remove_tree(out.path());
    std::filesystem::create_directories(out.path());
    kept = run(config, data, out.path(), false);
    REQUIRE(kept.result.exit_code == kExitOk);
    const Metrics& m = kept.result.final_metrics;
    if (m.at("best_epoch") < m.at("epochs_run") - 1) break;
  }
  const Metrics& m = kept.result.final_metrics;
  REQUIRE(m.at("best_epoch") < m.at("epochs_run") - 1);
  Run scored = run(config, data, out.path(), true);
  REQUIRE(scored.result.exit_code == kExitOk);
  check_same_final(m, scored.result.final_metrics);
  for (const char* key : {"val_sharpe_net", "val_turnover"}) {
    CAPTURE(key);
    CHECK(m.at(key) == scored.result.final_metrics.at(key));
  }
  const std::string series = testing::series_line(kept.report, "valid");
  CHECK_FALSE(series.empty());
  CHECK(series == testing::series_line(scored.report, "valid"));
}

TEST_CASE("train: on the CPU the TCN's windows share their series, with each window's scores") {
  TrainerConfig config = tiny_config();
  config.device = "cpu";
  config.epochs = 1;
  config.layers =
      3;  // the default TCN's depth and window: 13 of a window's 29 hidden steps its own
  config.lookback = 20;
  Dataset data = load_dataset(config);
  TempDir shared_dir, alone_dir;
  RuntimeSettings s = settings();
  const Run shared = run(config, data, shared_dir.path(), false, nullptr, s);
  // Every day of every name in both windows: sharing is less work.
  CHECK(shared.log.find(std::to_string(data.test.size()) + " windows sharing each name's series") !=
        std::string::npos);
  CHECK(shared.log.find(std::to_string(data.valid.size()) +
                        " windows sharing each name's series") != std::string::npos);
  s.series_scoring = false;
  const Run alone = run(config, data, alone_dir.path(), false, nullptr, s);
  CHECK(alone.log.find("windows sharing") == std::string::npos);
  // The same predictions to float rounding (tcn_scorer_test.cc): the same
  // scores but for rounding, and the same epoch.
  for (const char* key : {"val_rank_ic", "val_loss", "test_rank_ic", "test_ic", "test_loss"}) {
    const std::string name = key;
    CAPTURE(name);
    CHECK(shared.result.final_metrics.at(key) ==
          doctest::Approx(alone.result.final_metrics.at(key)).epsilon(1e-4));
  }
  CHECK(shared.result.final_metrics.at("best_epoch") ==
        alone.result.final_metrics.at("best_epoch"));
}

TEST_CASE("train: the evaluation batch does not change the scores") {
  for (const std::string model : {"tcn", "mlp"}) {
    CAPTURE(model);
    TrainerConfig config = tiny_config();
    config.device = "cpu";
    config.model = model;
    config.epochs = 1;
    config.synthetic_days = 400;  // a test window of a few 512-sample batches
    Dataset data = load_dataset(config);
    TempDir whole_dir;
    config.eval_batch_size = int(data.test.size());  // the whole window in one batch
    Run whole = run(config, data, whole_dir.path(), false);
    REQUIRE(data.test.size() > 2 * 512);
    REQUIRE(data.valid.size() > 16);
    // The default (512 samples on the CPU), and batches that leave a last
    // batch of a few samples in the test window or in the validation one:
    // LibTorch's kernels for a few samples sum in another order.
    for (int batch : {0, int(data.test.size()) - 3, int(data.valid.size()) - 2,
                      int(data.valid.size() / 2) - 1}) {
      CAPTURE(batch);
      TempDir dir;
      config.eval_batch_size = batch;
      Run batched = run(config, data, dir.path(), false);
      check_same_final(whole.result.final_metrics, batched.result.final_metrics);
      CHECK(testing::series_line(whole.report, "test") ==
            testing::series_line(batched.report, "test"));
    }
  }
}

TEST_CASE(
    "train: a checkpoint of another config is not resumed; the run starts fresh and says why") {
  // What an OOM retry does: half the batch, twice the accumulation.
  TrainerConfig first = tiny_config();
  first.device = "cpu";
  first.epochs = 2;
  TrainerConfig halved = first;
  halved.epochs = 3;
  halved.batch_size /= 2;
  halved.grad_accum *= 2;
  Dataset data = load_dataset(first);
  TempDir out, fresh_dir;
  REQUIRE(run(first, data, out.path(), false).result.exit_code == kExitOk);
  Run retried = run(halved, data, out.path(), true);
  CHECK(retried.result.exit_code == kExitOk);
  CHECK(retried.log.find("resumed from") == std::string::npos);
  CHECK(retried.log.find(
            "written for another config (batch_size 64 -> 32, grad_accum 2 -> 4, epochs 2 -> 3)") !=
        std::string::npos);
  Run fresh = run(halved, data, fresh_dir.path(), false);
  check_same_final(fresh.result.final_metrics, retried.result.final_metrics);
}

TEST_CASE("train: the MLP baseline and early stopping") {
  TrainerConfig config = tiny_config();
  config.model = "mlp";
  config.epochs = 6;
  config.patience = 1;
  config.lr = 1e-6;  // too small to improve: stops after the second epoch most likely
  Dataset data = load_dataset(config);
  Run r = run(config, data, "", false);
  CHECK(r.result.exit_code == kExitOk);
  CHECK(r.result.final_metrics.at("epochs_run") < 6);
}

TEST_CASE("train: warm-up then cosine decay") {
  CHECK(learning_rate(1.0, 0, 4, 104) == doctest::Approx(0.25));
  CHECK(learning_rate(1.0, 3, 4, 104) == doctest::Approx(1.0));
  CHECK(learning_rate(1.0, 4, 4, 104) == doctest::Approx(1.0));
  CHECK(learning_rate(1.0, 54, 4, 104) == doctest::Approx(0.5));
  CHECK(learning_rate(1.0, 104, 4, 104) == doctest::Approx(0.0));
  CHECK(learning_rate(2.0, 0, 0, 10) == doctest::Approx(2.0));
}

// A CPU machine has no device store to compare: doctest reports the case as
// skipped there, not as passed with no check.
TEST_CASE("train: on CUDA, batches gathered on the device train as host-built ones" *
          doctest::skip(!torch::cuda::is_available())) {
  TrainerConfig config = tiny_config();
  config.device = "cuda";
  const Dataset data = load_dataset(config);
  // Deterministic kernels in fp32, step by step, so that only where the
  // windows were built differs between the two runs.
  at::globalContext().setDeterministicCuDNN(true);
  std::vector<Run> runs;
  for (bool on_device : {false, true}) {
    TempDir out;
    RuntimeSettings s = settings();
    s.cudnn_benchmark = CudnnBenchmark::kOff;
    s.tf32 = false;
    s.amp_dtype = "off";
    s.cuda_graphs = false;
    s.device_features = on_device;
    runs.push_back(run(config, data, out.path(), false, nullptr, s));
    REQUIRE(runs.back().result.exit_code == kExitOk);
  }
  at::globalContext().setDeterministicCuDNN(false);
  CHECK(runs[1].log.find("DEVICE_FEATURES=1 -> features on the device") != std::string::npos);
  CHECK(runs[0].log.find("DEVICE_FEATURES=0 -> off") != std::string::npos);
  for (const char* key : {"val_loss", "val_rank_ic", "test_loss", "test_rank_ic"}) {
    CAPTURE(key);
    const Metrics &host = runs[0].result.final_metrics, &device = runs[1].result.final_metrics;
    CHECK(device.at(key) == doctest::Approx(host.at(key)).epsilon(1e-5));
  }
}

}  // namespace
}  // namespace hpo::trainer
