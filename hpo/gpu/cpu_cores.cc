#include "hpo/gpu/cpu_cores.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "hpo/config/config_error.h"
#include "hpo/gpu/gpu_detect.h"
#include "hpo/text/ascii.h"
#include "samplers/param_value.h"

namespace hpo {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool parse_count(const std::string& text, long long* value) {
  errno = 0;
  char* end = nullptr;
  *value = std::strtoll(text.c_str(), &end, 10);
  return !text.empty() && errno == 0 && *end == '\0';
}

[[noreturn]] void bad_file(const std::string& file, const std::string& expected,
                           const std::string& text) {
  throw ConfigError(file + ": expected " + expected + ", got '" + trim_blanks(text) + "'");
}

// The directories from `dir` up to `top`, innermost first: a quota on any
// ancestor limits this process too.
std::vector<fs::path> up_to(const fs::path& top, const std::string& relative) {
  std::vector<fs::path> dirs;
  fs::path rel = fs::path(relative).relative_path();
  for (; !rel.empty() && rel != rel.parent_path(); rel = rel.parent_path())
    dirs.push_back(top / rel);
  dirs.push_back(top);
  return dirs;
}

void keep_tightest(std::optional<CpuQuota>& best, std::optional<double> cpus,
                   const fs::path& file) {
  if (cpus && (!best || *cpus < best->cpus)) best = CpuQuota{*cpus, file.string()};
}

void read_v2(const fs::path& root, const std::string& path, std::optional<CpuQuota>& best) {
  for (const fs::path& dir : up_to(root, path)) {
    const fs::path file = dir / "cpu.max";
    if (const auto text = read_text(file))
      keep_tightest(best, parse_cpu_max(*text, file.string()), file);
  }
}

void read_v1(const fs::path& root, const std::string& path, std::optional<CpuQuota>& best) {
  for (const char* mount : {"cpu", "cpu,cpuacct", "cpuacct,cpu"}) {
    for (const fs::path& dir : up_to(root / mount, path)) {
      const auto quota = read_text(dir / "cpu.cfs_quota_us");
      const auto period = read_text(dir / "cpu.cfs_period_us");
      if (!quota || !period) continue;
      keep_tightest(best, parse_cfs_quota(*quota, *period, dir.string()), dir / "cpu.cfs_quota_us");
    }
  }
}

}  // namespace

std::optional<double> parse_cpu_max(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string quota, period, extra;
  in >> quota >> period >> extra;
  long long q = 0, p = 0;
  const bool limited = quota != "max";
  if ((limited && (!parse_count(quota, &q) || q <= 0)) || !parse_count(period, &p) || p <= 0 ||
      !extra.empty()) {
    bad_file(file, "'QUOTA PERIOD' or 'max PERIOD' (microseconds)", text);
  }
  if (!limited) return std::nullopt;
  return static_cast<double>(q) / static_cast<double>(p);
}

std::optional<double> parse_cfs_quota(const std::string& quota, const std::string& period,
                                      const std::string& dir) {
  long long q = 0, p = 0;
  if (!parse_count(trim_blanks(quota), &q) || (q <= 0 && q != -1)) {
    bad_file(dir + "/cpu.cfs_quota_us", "a quota in microseconds, or -1 for none", quota);
  }
  if (!parse_count(trim_blanks(period), &p) || p <= 0) {
    bad_file(dir + "/cpu.cfs_period_us", "a period in microseconds", period);
  }
  if (q == -1) return std::nullopt;
  return static_cast<double>(q) / static_cast<double>(p);
}

std::optional<CpuQuota> read_cpu_quota(const std::string& root, const std::string& self) {
  std::optional<CpuQuota> best;
  // A v1-only kernel lists no v2 line; the top's cpu.max then still counts.
  if (self.rfind("0::", 0) != 0 && self.find("\n0::") == std::string::npos)
    read_v2(root, "/", best);
  std::istringstream lines(self);
  // Lines are "ID:CONTROLLERS:PATH": "0::/a/b" for v2, "4:cpu,cpuacct:/a/b" for v1.
  for (std::string line; std::getline(lines, line);) {
    const size_t first = line.find(':');
    const size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
    const std::string path = line.substr(second + 1);
    if (controllers == ",,") read_v2(root, path, best);
    if (controllers.find(",cpu,") != std::string::npos) read_v1(root, path, best);
  }
  return best;
}

CpuCores cpu_cores(int affinity, const std::optional<CpuQuota>& quota) {
  CpuCores c;
  c.affinity = std::max(1, affinity);
  c.quota = quota;
  c.cores = c.affinity;
  // A quota of 1.5 CPUs lets two threads run most of the time: round up.
  if (quota)
    c.cores = std::max(1, std::min(c.cores, static_cast<int>(std::ceil(quota->cpus - 1e-9))));
  return c;
}

std::string CpuCores::explain() const {
  std::string text =
      std::to_string(cores) + " (affinity mask: " + std::to_string(affinity) + " CPU(s)";
  if (quota) text += "; cgroup quota: " + short_number(quota->cpus) + " CPU(s) in " + quota->source;
  return text + ")";
}

CpuCores detect_cpu_cores() {
  const char* root = std::getenv("HPO_CGROUP_ROOT");
  const std::string self = read_text("/proc/self/cgroup").value_or("0::/\n");
  return cpu_cores(available_cpu_cores(),
                   read_cpu_quota(root && *root ? root : "/sys/fs/cgroup", self));
}

}  // namespace hpo
