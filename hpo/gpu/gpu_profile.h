// GPU profiles: what one kind of GPU can hold, and so how many trials it
// runs at once and how large a batch it takes. Shipped as gpu_profiles/*.yaml
// (one file per profile, named after it); users add their own files.
//
//   description: NVIDIA H100 80GB
//   device: gpu                    # gpu (default) or cpu
//   match: [h100]                  # nvidia-smi names it matches (case, ' ', '-', '_' ignored)
//   vram_gb: 80
//   max_parallel_trials: 3         # per GPU
//   memory_per_model_gb: 16        # what one trial may use
//   batch_size_choices: [2048, 4096]  # replace the space's batch sizes (space_fit.h)
//   batch_size_max: 4096           # optional; else the largest choice
//   memory_fraction: 0.3           # optional; passed as HPO_GPU_MEMORY_FRACTION
//   hidden_size_max: 1024          # optional
//   threads_per_trial: 2           # optional; CPU threads a trial wants
//   effective_tflops: 99           # optional; a rough sustained rate, for time estimates
//   max_train_samples: 0           # optional; samples per epoch, 0 = every sample
#ifndef HPO_GPU_GPU_PROFILE_H_
#define HPO_GPU_GPU_PROFILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hpo {

struct GpuProfile {
  std::string name;  // the file's stem: rtx_4090, h100, cpu
  std::string path;  // the file it came from
  std::string description;
  bool cpu = false;  // `device: cpu`: trials run on CPU cores only
  std::vector<std::string> match;
  double vram_gb = 0;  // per GPU; 0 for cpu
  int max_parallel_trials = 1;  // per GPU; for cpu an overall cap, 0 = none
  double memory_per_model_gb = 0;
  std::vector<int64_t> batch_size_choices;
  std::optional<int64_t> batch_size_max;
  std::optional<double> memory_fraction;
  std::optional<int64_t> hidden_size_max;
  std::optional<int> threads_per_trial;
  std::optional<double> effective_tflops;
  // Training samples per epoch, given to trials as the fixed value
  // max_train_samples unless the study sets one; 0 = every sample.
  std::optional<int64_t> max_train_samples;

  // The largest batch size the profile allows: batch_size_max, else the
  // largest of batch_size_choices, else none.
  std::optional<int64_t> batch_ceiling() const;
};

// Parses a profile file's text; `path` names it in messages and its stem is
// the profile's name. Throws ConfigError("file:line: key: what").
GpuProfile parse_gpu_profile(const std::string& yaml_text, const std::string& path);

// Reads and parses one profile file; throws ConfigError.
GpuProfile load_gpu_profile(const std::string& path);

// Every profile found in `dirs`, by name; a name found in an earlier
// directory hides the same name in later ones, so a user's ./gpu_profiles
// overrides the shipped files.
class GpuProfileRegistry {
 public:
  // Loads every *.yaml file of each existing directory. A broken file is an
  // error, not skipped: a profile that silently vanished would change plans.
  static GpuProfileRegistry load(const std::vector<std::string>& dirs);

  void add(GpuProfile profile);  // replaces a profile of the same name
  const GpuProfile* find(const std::string& name) const;
  // The named profile, or a profile file given by path (containing '/' or
  // ending in .yaml). Unknown names throw a ConfigError that lists the
  // available profiles, with a did-you-mean.
  GpuProfile get(const std::string& name_or_path) const;
  std::vector<std::string> names() const;  // sorted
  const std::vector<GpuProfile>& profiles() const { return profiles_; }

 private:
  std::vector<GpuProfile> profiles_;
};

// Where profile files are looked for, in order: each entry of
// $HPO_GPU_PROFILE_PATH, ./gpu_profiles, the source checkout hpo was built
// from, and <exe dir>/../share/hpo/gpu_profiles.
std::vector<std::string> gpu_profile_search_dirs();

}  // namespace hpo

#endif  // HPO_GPU_GPU_PROFILE_H_
