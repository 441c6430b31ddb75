#include "hpo/gpu/gpu_profile.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"
#include "hpo/config/search_dirs.h"
#include "hpo/config/yaml_node.h"
#include "hpo/launch/program_path.h"
#include "samplers/param_value.h"

namespace hpo {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kProfileKeys = {"name",
                                               "description",
                                               "device",
                                               "match",
                                               "vram_gb",
                                               "max_parallel_trials",
                                               "memory_per_model_gb",
                                               "batch_size_choices",
                                               "batch_size_max",
                                               "memory_fraction",
                                               "hidden_size_max",
                                               "threads_per_trial",
                                               "effective_tflops",
                                               "max_train_samples"};

bool is_profile_name(const std::string& name) {
  return !name.empty() && name[0] != '.' && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

double positive_number(const YamlNode& node) {
  const double value = node.as_double();
  if (!(value > 0) || std::isinf(value)) node.fail("expected a number > 0, got " + node.describe());
  return value;
}

int64_t positive_int(const YamlNode& node, int64_t min = 1) {
  const int64_t value = node.as_int();
  if (value < min || value > 1'000'000'000) {
    node.fail("expected an integer >= " + std::to_string(min) + ", got " + node.describe());
  }
  return value;
}

// The checks that involve several keys, reported at the key that would
// have to change.
void check_consistency(const GpuProfile& p, const YamlMap& map) {
  if (p.cpu) {
    if (map.find("vram_gb")) map.find("vram_gb")->fail("a cpu profile has no vram_gb");
    return;
  }
  if (p.memory_per_model_gb > p.vram_gb) {
    map.require("memory_per_model_gb").fail("exceeds vram_gb (" + short_number(p.vram_gb) + ")");
  }
  const double total = p.memory_per_model_gb * p.max_parallel_trials;
  if (total > p.vram_gb * 1.0001) {
    map.require("max_parallel_trials")
        .fail(std::to_string(p.max_parallel_trials) + " trials x " +
              short_number(p.memory_per_model_gb) + " GB per model exceed vram_gb (" +
              short_number(p.vram_gb) + ")");
  }
  if (p.memory_fraction && *p.memory_fraction * p.max_parallel_trials > 1.0001) {
    map.require("memory_fraction")
        .fail("memory_fraction x max_parallel_trials exceeds 1 (" +
              std::to_string(p.max_parallel_trials) + " trials share one GPU)");
  }
}

void parse_batch_sizes(const YamlMap& map, GpuProfile& p) {
  if (auto choices = map.find("batch_size_choices")) {
    for (const YamlNode& item : choices->as_list())
      p.batch_size_choices.push_back(positive_int(item));
    if (p.batch_size_choices.empty()) choices->fail("expected at least one batch size");
    std::sort(p.batch_size_choices.begin(), p.batch_size_choices.end());
  }
  if (auto max = map.find("batch_size_max")) p.batch_size_max = positive_int(*max);
}

}  // namespace

std::optional<int64_t> GpuProfile::batch_ceiling() const {
  if (batch_size_max) return batch_size_max;
  if (!batch_size_choices.empty()) return batch_size_choices.back();
  return std::nullopt;
}

GpuProfile parse_gpu_profile(const std::string& yaml_text, const std::string& path) {
  const YamlMap map(parse_yaml_mapping(yaml_text, path), kProfileKeys);
  GpuProfile p;
  p.path = path;
  p.name = fs::path(path).stem().string();
  if (!is_profile_name(p.name)) {
    throw ConfigError(path +
                      ": the file name is not a profile name (use letters, digits, '_', '-', '.')");
  }
  if (auto name = map.find("name"); name && name->as_string() != p.name) {
    name->fail("must match the file name '" + p.name +
               "' (a profile is selected by its file name)");
  }
  if (auto description = map.find("description")) p.description = description->as_string();
  if (auto device = map.find("device")) {
    const std::string kind = device->as_string();
    if (kind != "gpu" && kind != "cpu")
      device->fail("expected gpu or cpu, got " + device->describe());
    p.cpu = kind == "cpu";
  }
  if (auto match = map.find("match")) {
    for (const YamlNode& item : match->as_list()) {
      p.match.push_back(item.as_string());
      if (p.match.back().empty()) item.fail("expected a non-empty name");
    }
  }
  if (p.cpu) {
    if (auto max = map.find("max_parallel_trials"))
      p.max_parallel_trials = static_cast<int>(positive_int(*max, 0));
    else
      p.max_parallel_trials = 0;
    if (auto mem = map.find("memory_per_model_gb")) p.memory_per_model_gb = positive_number(*mem);
  } else {
    p.vram_gb = positive_number(map.require("vram_gb"));
    p.max_parallel_trials = static_cast<int>(positive_int(map.require("max_parallel_trials")));
    p.memory_per_model_gb = positive_number(map.require("memory_per_model_gb"));
  }
  parse_batch_sizes(map, p);
  if (auto fraction = map.find("memory_fraction")) {
    p.memory_fraction = positive_number(*fraction);
    if (*p.memory_fraction > 1)
      fraction->fail("expected a fraction in (0, 1], got " + fraction->describe());
  }
  if (auto hidden = map.find("hidden_size_max")) p.hidden_size_max = positive_int(*hidden);
  if (auto threads = map.find("threads_per_trial"))
    p.threads_per_trial = static_cast<int>(positive_int(*threads));
  if (auto tflops = map.find("effective_tflops")) p.effective_tflops = positive_number(*tflops);
  if (auto samples = map.find("max_train_samples")) {
    const int64_t value = samples->as_int();
    if (value < 0) {
      samples->fail(
          "expected a number of training samples per epoch >= 0 (0 = every sample), got " +
          samples->describe());
    }
    p.max_train_samples = value;
  }
  check_consistency(p, map);
  return p;
}

GpuProfile load_gpu_profile(const std::string& path) {
  return parse_gpu_profile(read_text_file(path, "GPU profile"), path);
}

GpuProfileRegistry GpuProfileRegistry::load(const std::vector<std::string>& dirs) {
  GpuProfileRegistry registry;
  std::set<std::string> seen;
  for (const std::string& dir : dirs) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".yaml" && it->is_regular_file(ec)) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      if (!seen.insert(file.stem().string()).second) continue;  // hidden by an earlier directory
      registry.add(load_gpu_profile(file.string()));
    }
  }
  return registry;
}

void GpuProfileRegistry::add(GpuProfile profile) {
  for (GpuProfile& p : profiles_) {
    if (p.name == profile.name) {
      p = std::move(profile);
      return;
    }
  }
  profiles_.push_back(std::move(profile));
}

const GpuProfile* GpuProfileRegistry::find(const std::string& name) const {
  for (const GpuProfile& p : profiles_) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

GpuProfile GpuProfileRegistry::get(const std::string& name_or_path) const {
  const fs::path given(name_or_path);
  if (given.has_parent_path() || given.extension() == ".yaml" || given.extension() == ".yml") {
    return load_gpu_profile(name_or_path);
  }
  if (const GpuProfile* p = find(name_or_path)) return *p;
  const std::vector<std::string> available = names();
  throw ConfigError("unknown GPU profile '" + name_or_path + "'" +
                    did_you_mean(name_or_path, available) +
                    "; available: " + (available.empty() ? "none" : join_names(available)) +
                    " (or give a profile file's path)");
}

std::vector<std::string> GpuProfileRegistry::names() const {
  std::vector<std::string> names;
  for (const GpuProfile& p : profiles_) names.push_back(p.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> gpu_profile_search_dirs() {
  // A directory listed twice is harmless: its names are already seen.
  return search_dirs("HPO_GPU_PROFILE_PATH", "gpu_profiles", HPO_SOURCE_DATA_DIR, executable_dir());
}

}  // namespace hpo
