#include "hpo/gpu/gpu_detect.h"

#include <sched.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "hpo/gpu/command_output.h"
#include "hpo/launch/process.h"

namespace hpo {

const char* const kGpuQueryFields = "index,name,memory.total,memory.used,utilization.gpu";

namespace {

std::string trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, sep);) fields.push_back(trim(field));
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

}  // namespace

std::vector<GpuDevice> parse_gpu_query(const std::string& text) {
  std::vector<GpuDevice> devices;
  std::istringstream in(text);
  int line_number = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (trim(line).empty()) continue;
    const std::vector<std::string> f = split(line, ',');
    auto fail = [&](const std::string& what) -> GpuQueryError {
      return GpuQueryError("nvidia-smi output line " + std::to_string(line_number) + ": " + what + ": '" +
                           trim(line) + "'");
    };
    if (f.size() != 5) throw fail("expected 5 fields (" + std::string(kGpuQueryFields) + ")");
    GpuDevice d;
    int64_t number = 0;
    if (!parse_int(f[0], &number) || number < 0) throw fail("bad GPU index");
    d.index = static_cast<int>(number);
    d.name = f[1];
    if (!parse_int(f[2], &d.memory_total_mib) || d.memory_total_mib < 0) throw fail("bad memory.total");
    if (!not_available(f[3])) {
      if (!parse_int(f[3], &number)) throw fail("bad memory.used");
      d.memory_used_mib = number;
    }
    if (!not_available(f[4])) {
      if (!parse_int(f[4], &number)) throw fail("bad utilization.gpu");
      d.utilization_pct = static_cast<double>(number);
    }
    devices.push_back(d);
  }
  return devices;
}

std::vector<GpuDevice> filter_visible(const std::vector<GpuDevice>& devices, const std::string& visible) {
  std::vector<GpuDevice> kept;
  for (const std::string& entry : split(visible, ',')) {
    int64_t index = 0;
    if (!parse_int(entry, &index) || index < 0) break;
    const GpuDevice* found = nullptr;
    for (const GpuDevice& d : devices) {
      if (d.index == index) found = &d;
    }
    if (!found) break;
    kept.push_back(*found);
  }
  return kept;
}

GpuDetection detect_gpus(double timeout_s) {
  GpuDetection detection;
  detection.tool = resolve_program("nvidia-smi");
  if (detection.tool.empty()) return detection;
  const CommandOutput output = run_command(nvidia_smi_query(detection.tool, kGpuQueryFields), timeout_s);
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
    detection.devices = filter_visible(detection.devices, visible);
    detection.visible_note = "CUDA_VISIBLE_DEVICES=" + std::string(visible) + ": using " +
                             std::to_string(detection.devices.size()) + " of " + std::to_string(before) +
                             " GPU(s)";
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
  return trim(output.out.substr(0, output.out.find('\n')));
}

int available_cpu_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace hpo
