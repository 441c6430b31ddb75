// Where hpo-trainer trains: hpo's slot (HPO_DEVICE) decides for the config's
// `auto`, and a GPU slot never falls back to the CPU unnoticed.
#include "trainer/device.h"

#include <torch/torch.h>

#include <future>
#include <sstream>
#include <string>

#include "trainer/error.h"

// After the torch headers: glog (pulled in by LibTorch) defines its own CHECK.
#include <doctest/doctest.h>

namespace hpo::trainer {
namespace {

TEST_CASE("device: the slot's HPO_DEVICE decides where auto trains") {
  RuntimeSettings s;
  std::ostringstream log;
  s.device = "cpu";
  CHECK_FALSE(apply_runtime_settings(s, "auto", log).cuda);
  CHECK(log.str().find("setting device=auto with HPO_DEVICE=cpu -> cpu") != std::string::npos);

  s.device = "cuda";
  CHECK_FALSE(apply_runtime_settings(s, "cpu", log).cuda);  // the config's own choice stands
  if (torch::cuda::is_available()) {
    CHECK(apply_runtime_settings(s, "auto", log).cuda);
    return;
  }
  // A GPU slot on a build or machine without CUDA: a clear no_cuda error,
  // which hpo turns into a stop of the run, never a silent CPU run.
  std::string error;
  try {
    apply_runtime_settings(s, "auto", log);
  } catch (const UsageError& e) {
    error = e.what();
  }
  CHECK(error.rfind("no_cuda: HPO_DEVICE=cuda (hpo's GPU slot), but ", 0) == 0);
  s.device = "";
  error.clear();
  try {
    apply_runtime_settings(s, "cuda", log);
  } catch (const UsageError& e) {
    error = e.what();
  }
  CHECK(error.rfind("no_cuda: device=cuda, but ", 0) == 0);
}

TEST_CASE("device: CUDA starts early exactly for the trials that then train on it") {
  // start_cuda_early runs before the data loads, apply_runtime_settings after:
  // they must agree, or a CPU trial would start CUDA, or a GPU one not early.
  const bool has_cuda = torch::cuda::is_available();
  for (const char* slot : {"", "auto", "cpu", "cuda"}) {
    for (const char* device : {"auto", "cpu", "cuda"}) {
      CAPTURE(slot);
      CAPTURE(device);
      RuntimeSettings s;
      s.device = slot;
      const bool early = wants_cuda(s, device);
      // The config's cuda, or its auto on hpo's GPU slot; a config's cpu stands.
      const std::string d = device, on = slot;
      CHECK(early == (d == "cuda" || (d == "auto" && on == "cuda")));
      std::future<void> started = start_cuda_early(s, device);
      CHECK(started.valid() == early);
      if (started.valid()) CHECK_NOTHROW(started.get());  // without CUDA too
      std::ostringstream log;
      bool trains_on_cuda = true;  // a no_cuda error: it asked for CUDA
      try {
        trains_on_cuda = apply_runtime_settings(s, device, log).cuda;
      } catch (const UsageError&) {
        CHECK_FALSE(has_cuda);
      }
      // `auto` without a slot also trains on CUDA when there is one, known
      // only once CUDA is up: that start is not early.
      const bool auto_without_slot = d == "auto" && (on.empty() || on == "auto");
      CHECK(trains_on_cuda == (early || (auto_without_slot && has_cuda)));
    }
  }
}

TEST_CASE("device: the slot's GPU memory share caps CUDA's allocator, and is logged") {
  RuntimeSettings s;
  s.gpu_memory_fraction = 0.19;
  std::ostringstream log;
  const bool cuda = apply_runtime_settings(s, "auto", log).cuda;
  const std::string text = log.str();
  if (!cuda) {
    CHECK(text.find("setting HPO_GPU_MEMORY_FRACTION=0.19 -> ignored on CPU") != std::string::npos);
    return;
  }
  CHECK(text.find("capped at that share of cuda:0's memory") != std::string::npos);
}

TEST_CASE("device: the TCN runs channels-last unless CHANNELS_LAST=0, on either device") {
  // Measured faster on the CPU and on CUDA alike (device.h); on CUDA with the
  // tests' build on a GPU machine, the CPU otherwise.
  const std::string device = torch::cuda::is_available() ? "cuda" : "cpu";
  RuntimeSettings s;
  std::ostringstream log;
  const DeviceSetup on = apply_runtime_settings(s, device, log);
  CHECK(on.channels_last);
  CHECK(log.str().find("setting CHANNELS_LAST=auto -> TCN activations channels-last") !=
        std::string::npos);
  s.channels_last = false;
  const DeviceSetup off = apply_runtime_settings(s, device, log);
  CHECK_FALSE(off.channels_last);
  CHECK_FALSE(off.tcn_scorer);  // the CPU's scorer needs channels-last
  CHECK(log.str().find("setting CHANNELS_LAST=off -> TCN activations [batch, channels, time]") !=
        std::string::npos);
}

}  // namespace
}  // namespace hpo::trainer
