#include "trainer/config.h"

#include <doctest/doctest.h>

#include <map>

#include "tests/trainer/test_util.h"
#include "trainer/device.h"
#include "trainer/error.h"
#include "trainer/runtime_settings.h"

namespace hpo::trainer {
namespace {

using testing::TempDir;

std::string error_of(const std::string& text) {
  return testing::usage_error("config.json", text,
                              [](const std::string& path) { load_config(path); });
}

TEST_CASE("config: JSON written by hpo") {
  TempDir dir;
  TrainerConfig c = load_config(dir.write(
      "config.json",
      R"({"batch_size": 1024, "hidden_size": 32, "grad_accum": 2, "lr": 0.0003, "dropout": 0.25,)"
      R"( "layers": 4, "model": "mlp", "epochs": 7, "data": null})"));
  CHECK(c.batch_size == 1024);
  CHECK(c.hidden_size == 32);
  CHECK(c.grad_accum == 2);
  CHECK(c.lr == doctest::Approx(3e-4));
  CHECK(c.dropout == doctest::Approx(0.25));
  CHECK(c.layers == 4);
  CHECK(c.model == "mlp");
  CHECK(c.epochs == 7);
  CHECK(c.data.empty());
  CHECK(c.kernel_size == 3);  // defaults for the rest
}

TEST_CASE("config: YAML exported configs") {
  TempDir dir;
  TrainerConfig c =
      load_config(dir.write("c.yaml", "lr: 1e-3\nlookback: 10\nseed: 5\ndata: /tmp/panel.csv\n"));
  CHECK(c.lr == doctest::Approx(1e-3));
  CHECK(c.lookback == 10);
  CHECK(c.seed == 5);
  CHECK(c.data == "/tmp/panel.csv");
}

TEST_CASE("config: unknown keys, wrong types and bad values name the file and key") {
  CHECK(error_of(R"({"batchsize": 512})") ==
        ": unknown key 'batchsize' (did you mean 'batch_size'?)");
  CHECK(error_of(R"({"colour": 1})") == ": unknown key 'colour'");
  CHECK(error_of(R"({"batch_size": "big"})") ==
        ": key 'batch_size': expected an integer, got 'big'");
  CHECK(error_of(R"({"batch_size": 1.5})") == ": key 'batch_size': expected an integer, got '1.5'");
  CHECK(error_of(R"({"lr": [1, 2]})") == ": key 'lr': expected a number");
  CHECK(error_of(R"({"model": "rnn"})") == ": key 'model': must be \"tcn\" or \"mlp\"");
  CHECK(error_of(R"({"dropout": 1.5})") == ": key 'dropout': must be in [0, 1)");
  CHECK(error_of(R"({"label_entry": "open"})") ==
        ": key 'label_entry': must be \"next_open\", \"next_close\" or \"close\"");
  CHECK(error_of(R"({"date_format": "%Y-%j"})") ==
        ": key 'date_format': '%j' is not supported (only %Y, %m, %b, %d and %%)");
  CHECK(error_of(R"({"date_format": "%m/%d"})") ==
        ": key 'date_format': needs a year (%Y), a month (%m or %b) and a day (%d)");
  CHECK(error_of(R"({"min_names": 1})") ==
        ": key 'min_names': must be >= 2 (a z-score needs two names)");
  CHECK(error_of("[1, 2]") == ": expected a flat object of key: value");
  CHECK(error_of("{\"lr\": ").find("invalid JSON/YAML") != std::string::npos);
}

TEST_CASE("runtime settings from the environment") {
  std::map<std::string, std::string> env = {{"NUM_WORKERS", "3"},
                                            {"PIN_MEMORY", "false"},
                                            {"AMP_DTYPE", "bfloat16"},
                                            {"OMP_NUM_THREADS", "2"}};
  const EnvLookup lookup = testing::env_lookup(env);
  RuntimeSettings s = read_runtime_settings(lookup);
  CHECK(s.num_workers == 3);
  CHECK_FALSE(s.pin_memory);
  CHECK(s.amp_dtype == "bf16");
  CHECK(s.omp_threads == 2);
  CHECK(s.tf32);  // default
  CHECK(s.fused_optimizer);  // default
  CHECK(s.cuda_graphs);  // default
  env["FUSED_OPTIMIZER"] = "0";
  CHECK_FALSE(read_runtime_settings(lookup).fused_optimizer);
  env["CUDA_GRAPHS"] = "off";
  CHECK_FALSE(read_runtime_settings(lookup).cuda_graphs);
  CHECK(s.device_features);  // default
  CHECK(s.cudnn_benchmark == CudnnBenchmark::kAuto);  // default
  env["CUDNN_BENCHMARK"] = "1";
  CHECK(read_runtime_settings(lookup).cudnn_benchmark == CudnnBenchmark::kOn);
  env["CUDNN_BENCHMARK"] = "off";
  CHECK(read_runtime_settings(lookup).cudnn_benchmark == CudnnBenchmark::kOff);
  env["CUDNN_BENCHMARK"] = "Auto";
  CHECK(read_runtime_settings(lookup).cudnn_benchmark == CudnnBenchmark::kAuto);
  env["CUDNN_BENCHMARK"] = "sometimes";
  CHECK_THROWS_AS(read_runtime_settings(lookup), UsageError);
  env.erase("CUDNN_BENCHMARK");
  CHECK_FALSE(cudnn_benchmark_pays(5 * 103));  // quick_sweep on an H100: 5 epochs at batch 4096
  CHECK(cudnn_benchmark_pays(100 * 1000));
  CHECK_FALSE(s.channels_last.has_value());  // default: auto, decided by the device
  env["CHANNELS_LAST"] = "1";
  CHECK(read_runtime_settings(lookup).channels_last == true);
  env["CHANNELS_LAST"] = "off";
  CHECK(read_runtime_settings(lookup).channels_last == false);
  env["CHANNELS_LAST"] = "AUTO";
  CHECK_FALSE(read_runtime_settings(lookup).channels_last.has_value());
  env["CHANNELS_LAST"] = "nhwc";
  CHECK_THROWS_WITH_AS(read_runtime_settings(lookup),
                       "environment: CHANNELS_LAST='nhwc' is not a boolean or auto (use 1/0, "
                       "true/false, auto)",
                       UsageError);
  env.erase("CHANNELS_LAST");
  CHECK_FALSE(s.series_scoring.has_value());  // default: auto, where sharing is less work
  env["SERIES_SCORING"] = "0";
  CHECK(read_runtime_settings(lookup).series_scoring == false);
  env["SERIES_SCORING"] = "yes";
  CHECK(read_runtime_settings(lookup).series_scoring == true);
  env["SERIES_SCORING"] = "shared";
  CHECK_THROWS_AS(read_runtime_settings(lookup), UsageError);
  env.erase("SERIES_SCORING");
  env["DEVICE_FEATURES"] = "0";
  CHECK_FALSE(read_runtime_settings(lookup).device_features);
  env["DEVICE_FEATURES"] = "gpu";
  CHECK_THROWS_AS(read_runtime_settings(lookup), UsageError);
  env.erase("DEVICE_FEATURES");
  CHECK(read_runtime_settings(lookup).device.empty());  // no slot: the config decides
  env["HPO_DEVICE"] = "CUDA";
  CHECK(read_runtime_settings(lookup).device == "cuda");
  env["HPO_DEVICE"] = "gpu";
  CHECK_THROWS_WITH_AS(read_runtime_settings(lookup),
                       "environment: HPO_DEVICE='gpu' must be auto, cpu or cuda", UsageError);
  env.erase("HPO_DEVICE");
  CHECK(read_runtime_settings(lookup).gpu_memory_fraction == 0);  // no cap unless hpo sets one
  env["HPO_GPU_MEMORY_FRACTION"] = "0.19";
  CHECK(read_runtime_settings(lookup).gpu_memory_fraction == 0.19);
  for (const char* bad : {"1.5", "0", "-0.2", "a fifth", "0.2x"}) {
    env["HPO_GPU_MEMORY_FRACTION"] = bad;
    CHECK_THROWS_WITH_AS(read_runtime_settings(lookup),
                         ("environment: HPO_GPU_MEMORY_FRACTION='" + std::string(bad) +
                          "' must be a number in (0, 1]")
                             .c_str(),
                         UsageError);
  }
  env.erase("HPO_GPU_MEMORY_FRACTION");
  env["TF32"] = "maybe";
  CHECK_THROWS_WITH_AS(read_runtime_settings(lookup),
                       "environment: TF32='maybe' is not a boolean (use 1/0, true/false)",
                       UsageError);
}

}  // namespace
}  // namespace hpo::trainer

namespace hpo::trainer {
namespace {

TEST_CASE("config: --help documents every key") {
  const std::string help = config_help();
  for (const std::string& key : config_keys()) {
    CAPTURE(key);
    CHECK(help.find("  " + key + " ") != std::string::npos);
  }
}

}  // namespace
}  // namespace hpo::trainer
