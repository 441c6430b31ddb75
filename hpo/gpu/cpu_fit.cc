#include "hpo/gpu/cpu_fit.h"

#include <algorithm>
#include <cstdlib>

namespace hpo {

namespace {

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string usage_text(int trials, const CpuFit& fit) {
  return std::to_string(trials) + " trial(s) x (" + std::to_string(fit.threads) + " thread(s) + " +
         std::to_string(fit.workers) + " data-loader worker(s))";
}

std::string reason_text(int cores, int trials, int share, const CpuWants& wants,
                        const CpuFit& fit) {
  const std::string split = std::to_string(cores) + " core(s) / " + std::to_string(trials) +
                            " trial(s) = " + std::to_string(share);
  if (wants.threads_pinned) {
    return std::to_string(fit.threads) + ", pinned by env_fixed (" + split + ")";
  }
  std::string reason = split;
  if (fit.workers > 0) {
    reason += ", minus " + std::to_string(fit.workers) +
              " data-loader worker(s) (NUM_WORKERS) = " + std::to_string(share - fit.workers);
  }
  if (share - fit.workers < 1) reason += ", at least 1";
  return reason;
}

// Says what was lowered: the study's NUM_WORKERS, which is a maximum, and
// the profile's threads_per_trial, once no worker is left to lower.
void note_lowered(int cores, int trials, const CpuWants& wants, int min_threads, CpuFit& fit) {
  if (!wants.threads_pinned && fit.threads < min_threads) {
    const int share = cores / trials;
    const std::string split = std::to_string(cores) + " core(s) / " + std::to_string(trials) +
                              " trial(s) = " + std::to_string(share);
    fit.notes.push_back("OMP_NUM_THREADS: " + std::to_string(min_threads) + " -> " +
                        std::to_string(fit.threads) + ", the profile's threads_per_trial cut to " +
                        (share < min_threads ? "the cores' share (" + split + ")"
                                             : "what the pinned NUM_WORKERS leave of " + split));
  }
  const int wanted = wants.workers.value_or(0);
  if (fit.workers >= wanted) return;
  fit.notes.push_back("NUM_WORKERS: " + std::to_string(wanted) + " -> " +
                      std::to_string(fit.workers) + ", so that " + usage_text(trials, fit) +
                      " fit " + std::to_string(cores) +
                      " core(s) (the study's NUM_WORKERS is a maximum; env_fixed: [NUM_WORKERS] "
                      "pins it)");
}

// Only pins, or more trials than cores, keep a plan from fitting; the
// latter is warned about where the trials are counted.
void warn_unfitted(int cores, int trials, const CpuWants& wants, CpuFit& fit) {
  const int used = trials * (fit.threads + fit.workers);
  if (used <= cores || (fit.workers == 0 && !wants.threads_pinned)) return;
  std::string pinned;
  if (wants.workers_pinned) pinned = "NUM_WORKERS";
  if (wants.threads_pinned) pinned += std::string(pinned.empty() ? "" : ", ") + "OMP_NUM_THREADS";
  fit.warning = usage_text(trials, fit) + " = " + std::to_string(used) + " on " +
                std::to_string(cores) + " core(s): the CPU is oversubscribed; lower " +
                (pinned.empty() ? "n_jobs" : "n_jobs or what env_fixed pins (" + pinned + ")");
}

}  // namespace

CpuWants cpu_wants(const std::vector<std::pair<std::string, std::string>>& env,
                   const std::vector<std::string>& env_fixed) {
  CpuWants wants;
  for (const auto& [name, value] : env) {
    if (name == "NUM_WORKERS") wants.workers = std::max(0, std::atoi(value.c_str()));
    if (name == "OMP_NUM_THREADS" && listed(env_fixed, name))
      wants.threads_pinned = std::max(1, std::atoi(value.c_str()));
  }
  wants.workers_pinned = wants.workers && listed(env_fixed, "NUM_WORKERS");
  return wants;
}

CpuFit fit_cpu(int cores, int trials, const CpuWants& wants, int min_threads) {
  cores = std::max(1, cores);
  trials = std::max(1, trials);
  const int share = cores / trials;
  CpuFit fit;
  // The threads' first cores, then the workers, then the threads the rest.
  const int first_threads =
      wants.threads_pinned.value_or(std::clamp(min_threads, 1, std::max(1, share)));
  const int wanted_workers = wants.workers.value_or(0);
  fit.workers = wants.workers_pinned ? wanted_workers
                                     : std::min(wanted_workers, std::max(0, share - first_threads));
  fit.threads = wants.threads_pinned.value_or(std::max(1, share - fit.workers));
  fit.reason = reason_text(cores, trials, share, wants, fit);
  note_lowered(cores, trials, wants, min_threads, fit);
  warn_unfitted(cores, trials, wants, fit);
  return fit;
}

}  // namespace hpo
