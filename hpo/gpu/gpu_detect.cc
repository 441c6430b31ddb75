#include "hpo/gpu/gpu_detect.h"

#include <sched.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "hpo/gpu/command_output.h"
#include "hpo/launch/program_path.h"
#include "hpo/text/ascii.h"

namespace hpo {

const char* const kGpuQueryFields = "index,name,memory.total,memory.used,utilization.gpu,uuid";

namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, sep);) fields.push_back(trim_blanks(field));
  if (!line.empty() && line.back() == sep) fields.push_back("");
  return fields;
}

bool parse_int(const std::string& text, int64_t* value) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *value = v;
  return true;
}

bool not_available(const std::string& text) { return !text.empty() && text.front() == '['; }

std::vector<std::string> nvidia_smi_query(const std::string& tool, const std::string& fields) {
  return {tool, "--query-gpu=" + fields, "--format=csv,noheader,nounits"};
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Which of `ids` start with `entry`: CUDA takes any prefix of a UUID that
// names one device. UUIDs are hex, so case does not matter.
std::vector<size_t> prefix_matches(const std::vector<std::string>& ids, const std::string& entry) {
  std::vector<size_t> found;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (starts_with(ascii_lower(ids[i]), ascii_lower(entry))) found.push_back(i);
  }
  return found;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text.empty() ? "none" : text;
}

const GpuDevice* gpu_with_index(const std::vector<GpuDevice>& devices, int64_t index) {
  for (const GpuDevice& d : devices) {
    if (d.index == index) return &d;
  }
  return nullptr;
}

// "1g.10gb" (also "1g.10gb+me") -> 10 GiB in MiB; 0 if it does not say.
int64_t slice_mib(const std::string& profile) {
  const size_t dot = profile.find('.');
  int64_t gb = 0;
  if (dot == std::string::npos) return 0;
  const std::string size = profile.substr(dot + 1, profile.find("gb", dot) - dot - 1);
  return parse_int(size, &gb) && gb > 0 ? gb * 1024 : 0;
}

// A MIG instance as a device: its GPU's index, the slice's name and memory.
GpuDevice mig_device(const GpuDevice& gpu, const std::string& entry, const std::string& uuid,
                     const std::string& slice, int64_t mib) {
  GpuDevice d;
  d.index = gpu.index;
  d.uuid = uuid;
  d.name = "MIG " + slice + " on GPU " + std::to_string(gpu.index);
  d.memory_total_mib = mib;
  d.mig_id = entry;
  return d;
}

struct Lookup {
  std::optional<GpuDevice> device;
  std::string problem;  // why there is none
  std::string note;  // a caveat about the device found
};

Lookup find_gpu(const std::vector<GpuDevice>& devices, const std::string& entry) {
  int64_t index = 0;
  if (parse_int(entry, &index)) {
    if (const GpuDevice* d = gpu_with_index(devices, index)) return {*d, "", ""};
    std::vector<std::string> known;
    for (const GpuDevice& d : devices) known.push_back(std::to_string(d.index));
    // -1 is the usual way to hide every GPU: no warning for it.
    if (index < 0) return {std::nullopt, "", ""};
    return {std::nullopt,
            "no GPU with index " + entry + " (nvidia-smi lists " + joined(known) + ")", ""};
  }
  if (!starts_with(entry, "GPU-")) {
    return {std::nullopt, "'" + entry + "' is not a GPU index, GPU-<uuid> or MIG-<uuid>", ""};
  }
  std::vector<std::string> uuids;
  for (const GpuDevice& d : devices) uuids.push_back(d.uuid);
  const std::vector<size_t> found = prefix_matches(uuids, entry);
  if (found.size() == 1) return {devices[found.front()], "", ""};
  return {std::nullopt,
          (found.empty() ? "no GPU '" + entry + "'"
                         : "'" + entry + "' is the start of several GPUs' UUIDs") +
              " (nvidia-smi lists " + joined(uuids) + ")",
          ""};
}

Lookup find_mig(const std::vector<GpuDevice>& devices, const std::vector<MigInstance>& migs,
                const std::string& entry) {
  std::vector<std::string> uuids;
  for (const MigInstance& m : migs) uuids.push_back(m.uuid);
  const std::vector<size_t> found = prefix_matches(uuids, entry);
  if (found.size() == 1) {
    const MigInstance& m = migs[found.front()];
    if (const GpuDevice* gpu = gpu_with_index(devices, m.gpu)) {
      const int64_t mib = slice_mib(m.profile);
      return {mig_device(*gpu, entry, m.uuid, m.profile, mib > 0 ? mib : gpu->memory_total_mib), "",
              ""};
    }
  }
  // The older form names its GPU: MIG-GPU-<uuid>/<gi>/<ci>.
  const size_t slash = entry.find('/');
  if (starts_with(entry, "MIG-GPU-") && slash != std::string::npos) {
    const Lookup gpu = find_gpu(devices, entry.substr(4, slash - 4));
    if (!gpu.device)
      return {std::nullopt, "no GPU for MIG instance '" + entry + "': " + gpu.problem, ""};
    return {
        mig_device(*gpu.device, entry, entry, entry.substr(slash + 1),
                   gpu.device->memory_total_mib),
        "",
        "'" + entry +
            "' is not listed by nvidia-smi -L, so its memory is unknown: planned as all of GPU " +
            std::to_string(gpu.device->index) + "'s"};
  }
  return {std::nullopt,
          "no MIG instance '" + entry + "' (nvidia-smi -L lists " + joined(uuids) + ")", ""};
}

}  // namespace

std::vector<GpuDevice> parse_gpu_query(const std::string& text) {
  std::vector<GpuDevice> devices;
  std::istringstream in(text);
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (trim_blanks(line).empty()) continue;
    const std::vector<std::string> f = split(line, ',');
    auto fail = [&](const std::string& what) -> GpuQueryError {
      return GpuQueryError("nvidia-smi output line " + std::to_string(line_number) + ": " + what +
                           ": '" + trim_blanks(line) + "'");
    };
    if (f.size() != 6) throw fail("expected 6 fields (" + std::string(kGpuQueryFields) + ")");
    GpuDevice d;
    int64_t number = 0;
    if (!parse_int(f[0], &number) || number < 0) throw fail("bad GPU index");
    d.index = static_cast<int>(number);
    d.name = f[1];
    if (!parse_int(f[2], &d.memory_total_mib) || d.memory_total_mib < 0)
      throw fail("bad memory.total");
    if (!not_available(f[3])) {
      if (!parse_int(f[3], &number)) throw fail("bad memory.used");
      d.memory_used_mib = number;
    }
    if (!not_available(f[4])) {
      if (!parse_int(f[4], &number)) throw fail("bad utilization.gpu");
      d.utilization_pct = static_cast<double>(number);
    }
    if (!not_available(f[5])) d.uuid = f[5];
    devices.push_back(d);
  }
  return devices;
}

std::vector<MigInstance> parse_mig_list(const std::string& text) {
  std::vector<MigInstance> migs;
  std::istringstream in(text);
  int64_t gpu = -1;
  for (std::string line; std::getline(in, line);) {
    const std::string t = trim_blanks(line);
    int64_t index = 0;
    if (starts_with(t, "GPU ") && parse_int(t.substr(4, t.find(':') - 4), &index)) gpu = index;
    const size_t id = t.find("(UUID: MIG-");
    if (!starts_with(t, "MIG ") || id == std::string::npos || gpu < 0) continue;
    const size_t start = id + 7;
    migs.push_back({static_cast<int>(gpu), t.substr(4, t.find(' ', 4) - 4),
                    t.substr(start, t.find(')', start) - start)});
  }
  return migs;
}

VisibleDevices filter_visible(const std::vector<GpuDevice>& devices,
                              const std::vector<MigInstance>& migs, const std::string& visible) {
  VisibleDevices kept;
  for (const std::string& entry : split(visible, ',')) {
    const Lookup found =
        starts_with(entry, "MIG-") ? find_mig(devices, migs, entry) : find_gpu(devices, entry);
    if (!found.note.empty()) kept.warnings.push_back("CUDA_VISIBLE_DEVICES entry " + found.note);
    if (!found.device) {
      if (!found.problem.empty()) {
        kept.warnings.push_back("CUDA_VISIBLE_DEVICES=" + visible + ": " + found.problem +
                                "; CUDA ignores it and every entry after it");
      }
      break;
    }
    kept.devices.push_back(*found.device);
  }
  return kept;
}

GpuDetection detect_gpus(double timeout_s) {
  GpuDetection detection;
  detection.tool = resolve_program("nvidia-smi");
  if (detection.tool.empty()) return detection;
  const CommandOutput output =
      run_command(nvidia_smi_query(detection.tool, kGpuQueryFields), timeout_s);
  if (!output.ok()) {
    detection.problem = "nvidia-smi failed: " + output.problem();
    return detection;
  }
  try {
    detection.devices = parse_gpu_query(output.out);
  } catch (const GpuQueryError& e) {
    detection.problem = e.what();
    return detection;
  }
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    const size_t before = detection.devices.size();
    std::vector<MigInstance> migs;
    if (std::string(visible).find("MIG-") != std::string::npos) {
      const CommandOutput list = run_command({detection.tool, "-L"}, timeout_s);
      if (list.ok()) migs = parse_mig_list(list.out);
    }
    VisibleDevices kept = filter_visible(detection.devices, migs, visible);
    detection.devices = std::move(kept.devices);
    detection.warnings = std::move(kept.warnings);
    detection.visible_note = "CUDA_VISIBLE_DEVICES=" + std::string(visible) + ": using " +
                             std::to_string(detection.devices.size()) + " device(s) of " +
                             std::to_string(before) + " GPU(s)";
  }
  return detection;
}

std::vector<GpuDevice> query_gpus(double timeout_s) {
  const std::string tool = resolve_program("nvidia-smi");
  if (tool.empty()) return {};
  const CommandOutput output = run_command(nvidia_smi_query(tool, kGpuQueryFields), timeout_s);
  if (!output.ok()) return {};
  try {
    return parse_gpu_query(output.out);
  } catch (const GpuQueryError&) {
    return {};
  }
}

std::string driver_version(double timeout_s) {
  const std::string tool = resolve_program("nvidia-smi");
  if (tool.empty()) return "";
  const CommandOutput output = run_command(nvidia_smi_query(tool, "driver_version"), timeout_s);
  if (!output.ok()) return "";
  return trim_blanks(output.out.substr(0, output.out.find('\n')));
}

int available_cpu_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace hpo
