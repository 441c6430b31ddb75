#include "hpo/gpu/gpu_profile.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hpo/config/config_error.h"
#include "hpo/gpu/profile_select.h"
#include "tests/unit/temp_dir.h"

namespace hpo {
namespace {

namespace fs = std::filesystem;

// The shipped profiles, found from the source tree (an absolute path;
// __FILE__ may be relative, as under ccache's base_dir).
std::string shipped_dir() { return (fs::path(HPO_SOURCE_DIR) / "gpu_profiles").string(); }

const char kValid[] = R"(description: test GPU
match: [test gpu]
vram_gb: 24
max_parallel_trials: 2
memory_per_model_gb: 6
batch_size_choices: [768, 512]
memory_fraction: 0.45
hidden_size_max: 256
)";

std::string profile_error(const std::string& text,
                          const std::string& path = "gpu_profiles/t.yaml") {
  try {
    parse_gpu_profile(text, path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

GpuDevice device(const std::string& name, int64_t mib) {
  GpuDevice d;
  d.name = name;
  d.memory_total_mib = mib;
  return d;
}

TEST_CASE("a profile file parses into its values, named after the file") {
  const GpuProfile p = parse_gpu_profile(kValid, "gpu_profiles/my_gpu.yaml");
  CHECK(p.name == "my_gpu");
  CHECK(p.description == "test GPU");
  CHECK_FALSE(p.cpu);
  CHECK(p.vram_gb == 24);
  CHECK(p.max_parallel_trials == 2);
  CHECK(p.memory_per_model_gb == 6);
  CHECK(p.batch_size_choices == std::vector<int64_t>{512, 768});  // sorted
  CHECK(p.batch_ceiling() == 768);
  CHECK(p.memory_fraction == doctest::Approx(0.45));
  CHECK(p.hidden_size_max == 256);
  CHECK_FALSE(p.threads_per_trial);
}

TEST_CASE("batch_size_max is the ceiling when given") {
  const GpuProfile p = parse_gpu_profile(std::string(kValid) + "batch_size_max: 1000\n", "p.yaml");
  CHECK(p.batch_ceiling() == 1000);
}

TEST_CASE("profile errors name the file, the line and the key") {
  CHECK(profile_error(std::string(kValid) + "vram_gbb: 3\n") ==
        "gpu_profiles/t.yaml:9: unknown key 'vram_gbb' (did you mean 'vram_gb'?)");
  CHECK(profile_error("match: [x]\nmax_parallel_trials: 1\nmemory_per_model_gb: 1\n") ==
        "gpu_profiles/t.yaml:1: missing required key 'vram_gb'");
  CHECK(profile_error("vram_gb: -4\nmax_parallel_trials: 1\nmemory_per_model_gb: 1\n") ==
        "gpu_profiles/t.yaml:1: vram_gb: expected a number > 0, got '-4'");
  CHECK(profile_error("vram_gb: 16\nmax_parallel_trials: 0\nmemory_per_model_gb: 1\n") ==
        "gpu_profiles/t.yaml:2: max_parallel_trials: expected an integer >= 1, got '0'");
  CHECK(profile_error(
            "vram_gb: 16\nmax_parallel_trials: 1\nmemory_per_model_gb: 1\nbatch_size_choices: "
            "[64, x]\n") ==
        "gpu_profiles/t.yaml:4: batch_size_choices[1]: expected an integer, got 'x'");
  CHECK(profile_error("device: tpu\n") ==
        "gpu_profiles/t.yaml:1: device: expected gpu or cpu, got 'tpu'");
}

TEST_CASE("a profile that cannot hold its own trials is rejected") {
  CHECK(profile_error("vram_gb: 16\nmax_parallel_trials: 1\nmemory_per_model_gb: 20\n") ==
        "gpu_profiles/t.yaml:3: memory_per_model_gb: exceeds vram_gb (16)");
  CHECK(
      profile_error("vram_gb: 16\nmax_parallel_trials: 3\nmemory_per_model_gb: 6\n") ==
      "gpu_profiles/t.yaml:2: max_parallel_trials: 3 trials x 6 GB per model exceed vram_gb (16)");
  CHECK(profile_error(
            "vram_gb: 16\nmax_parallel_trials: 2\nmemory_per_model_gb: 6\nmemory_fraction: 0.6\n")
            .find("t.yaml:4: memory_fraction: memory_fraction x max_parallel_trials exceeds 1") !=
        std::string::npos);
  CHECK(
      profile_error(
          "vram_gb: 16\nmax_parallel_trials: 1\nmemory_per_model_gb: 6\nmemory_fraction: 1.5\n") ==
      "gpu_profiles/t.yaml:4: memory_fraction: expected a fraction in (0, 1], got '1.5'");
}

TEST_CASE("a cpu profile needs no GPU keys and takes none") {
  const GpuProfile p = parse_gpu_profile("device: cpu\nthreads_per_trial: 4\n", "cpu.yaml");
  CHECK(p.cpu);
  CHECK(p.max_parallel_trials == 0);
  CHECK(p.threads_per_trial == 4);
  CHECK(profile_error("device: cpu\nvram_gb: 8\n") ==
        "gpu_profiles/t.yaml:2: vram_gb: a cpu profile has no vram_gb");
}

TEST_CASE("a name key must agree with the file name") {
  CHECK(profile_error(std::string(kValid) + "name: other\n") ==
        "gpu_profiles/t.yaml:9: name: must match the file name 't' (a profile is selected by its "
        "file name)");
}

TEST_CASE("every shipped profile loads") {
  const GpuProfileRegistry r = GpuProfileRegistry::load({shipped_dir()});
  CHECK(r.names() == std::vector<std::string>{"a100_40gb", "a100_80gb", "cpu", "h100", "h200",
                                              "mi300x", "rtx5080", "rtx_4090", "rtx_5090"});
  const GpuProfile p = r.get("rtx_4090");
  CHECK(p.vram_gb == 24);
  CHECK(p.max_parallel_trials == 2);
  CHECK(p.memory_per_model_gb == 6);
  CHECK(p.batch_ceiling() == 768);
  CHECK(r.get("a100_80gb").max_parallel_trials == 3);
  CHECK(r.get("h200").vram_gb == 141);
  CHECK(r.get("mi300x").vram_gb == 192);
  CHECK(r.get("cpu").cpu);
  // GPUs train on every sample; the CPU keeps the trainer's subset.
  for (const GpuProfile& shipped : r.profiles()) {
    INFO(shipped.name);
    CHECK(shipped.max_train_samples == (shipped.cpu ? std::nullopt : std::optional<int64_t>(0)));
  }
}

TEST_CASE("max_train_samples is a count of samples, 0 for every one") {
  CHECK_FALSE(parse_gpu_profile(kValid, "p.yaml").max_train_samples);
  CHECK(parse_gpu_profile(std::string(kValid) + "max_train_samples: 0\n", "p.yaml")
            .max_train_samples == 0);
  CHECK(parse_gpu_profile(std::string(kValid) + "max_train_samples: 65536\n", "p.yaml")
            .max_train_samples == 65536);
  CHECK(profile_error(std::string(kValid) + "max_train_samples: -1\n") ==
        "gpu_profiles/t.yaml:9: max_train_samples: expected a number of training samples per "
        "epoch >= 0 (0 = every sample), got '-1'");
  CHECK(profile_error(std::string(kValid) + "max_train_samples: all\n")
            .rfind("gpu_profiles/t.yaml:9: max_train_samples: expected an integer", 0) == 0);
}

TEST_CASE("an unknown profile name lists the available ones") {
  const GpuProfileRegistry r = GpuProfileRegistry::load({shipped_dir()});
  try {
    r.get("h10");
    FAIL("expected an error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "unknown GPU profile 'h10' (did you mean 'h100'?); available: a100_40gb, a100_80gb, cpu, "
          "h100, h200, "
          "mi300x, rtx5080, rtx_4090, rtx_5090 (or give a profile file's path)");
  }
}

TEST_CASE("a user's directory comes first and a profile file works by path") {
  TempDir dir{"hpo_gpu_profile_test"};
  dir.write("mine/h100.yaml", "vram_gb: 80\nmax_parallel_trials: 4\nmemory_per_model_gb: 10\n");
  const std::string own = dir.write(
      "elsewhere/l40s.yaml", "vram_gb: 48\nmax_parallel_trials: 2\nmemory_per_model_gb: 20\n");
  const GpuProfileRegistry r =
      GpuProfileRegistry::load({dir.path() + "/mine", dir.path() + "/missing", shipped_dir()});
  CHECK(r.get("h100").max_parallel_trials == 4);
  CHECK(r.get("rtx_4090").max_parallel_trials == 2);
  const GpuProfile l40s = r.get(own);
  CHECK(l40s.name == "l40s");
  CHECK(l40s.vram_gb == 48);
}

TEST_CASE("a broken profile file is an error, not skipped") {
  TempDir dir{"hpo_gpu_profile_test"};
  dir.write("p/bad.yaml", "vram_gb: [1]\n");
  CHECK_THROWS_WITH_AS(GpuProfileRegistry::load({dir.path() + "/p"}),
                       doctest::Contains("bad.yaml:1: vram_gb: expected a number, got a list"),
                       ConfigError);
}

TEST_CASE("the detected GPU picks its profile by name, then by memory") {
  const GpuProfileRegistry r = GpuProfileRegistry::load({shipped_dir()});
  auto pick = [&](const std::string& name, int64_t mib) {
    return select_profile(r, "", "", {device(name, mib)}).profile.name;
  };
  CHECK(pick("NVIDIA H100 80GB HBM3", 81559) == "h100");
  CHECK(pick("NVIDIA H100 PCIe", 81559) == "h100");
  CHECK(pick("NVIDIA A100-SXM4-40GB", 40960) == "a100_40gb");
  CHECK(pick("NVIDIA A100 80GB PCIe", 81920) == "a100_80gb");
  CHECK(pick("NVIDIA GeForce RTX 4090", 24564) == "rtx_4090");
  CHECK(pick("NVIDIA GeForce RTX 5090", 32607) == "rtx_5090");
  CHECK(pick("NVIDIA GeForce RTX 5080", 16303) == "rtx5080");
  CHECK(pick("NVIDIA H200", 143771) == "h200");
  // No name match: the largest profile the memory holds.
  CHECK(pick("NVIDIA L40S", 46068) == "a100_40gb");
  // Nothing fits: one trial per GPU, built from its memory.
  const ProfileChoice t4 = select_profile(r, "", "", {device("Tesla T4", 15360)});
  CHECK(t4.profile.name == "generic");
  CHECK(t4.profile.max_parallel_trials == 1);
  CHECK(t4.profile.vram_gb == 15);
  CHECK(t4.source == ProfileSource::kDetected);
}

TEST_CASE("the flag wins over GPU_PROFILE, which wins over detection; no GPU means cpu") {
  const GpuProfileRegistry r = GpuProfileRegistry::load({shipped_dir()});
  const std::vector<GpuDevice> h100 = {device("NVIDIA H100 80GB HBM3", 81559)};
  ProfileChoice c = select_profile(r, "rtx_4090", "a100_80gb", h100);
  CHECK(c.profile.name == "rtx_4090");
  CHECK(c.source == ProfileSource::kFlag);
  CHECK(c.reason == "--gpu-profile rtx_4090");
  c = select_profile(r, "", "a100_80gb", h100);
  CHECK(c.profile.name == "a100_80gb");
  CHECK(c.source == ProfileSource::kEnv);
  CHECK(c.reason == "GPU_PROFILE=a100_80gb");
  c = select_profile(r, "", "", h100);
  CHECK(c.profile.name == "h100");
  CHECK(c.reason == "NVIDIA H100 80GB HBM3, 79.65 GiB");
  c = select_profile(r, "", "", {});
  CHECK(c.profile.name == "cpu");
  CHECK(c.source == ProfileSource::kDefault);
  CHECK(select_profile(GpuProfileRegistry(), "", "", {}).profile.cpu);  // built in when no cpu.yaml
  CHECK_THROWS_AS(select_profile(r, "", "nope", h100), ConfigError);
}

}  // namespace
}  // namespace hpo
