#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "hpo/gpu/cpu_fit.h"

namespace hpo {
namespace {

CpuWants workers(int n, bool pinned = false) {
  CpuWants w;
  w.workers = n;
  w.workers_pinned = pinned;
  return w;
}

TEST_CASE("without pins the trials never use more than the cores, whenever that is possible") {
  for (int cores = 1; cores <= 24; ++cores) {
    for (int trials = 1; trials <= cores; ++trials) {
      for (int wanted = 0; wanted <= 6; ++wanted) {
        for (int min_threads = 1; min_threads <= 4; ++min_threads) {
          const CpuFit fit = fit_cpu(cores, trials, workers(wanted), min_threads);
          INFO(cores << " cores, " << trials << " trials, NUM_WORKERS " << wanted
                     << ", threads_per_trial " << min_threads);
          CHECK(trials * (fit.threads + fit.workers) <= cores);
          CHECK(fit.threads >= 1);
          CHECK(fit.workers <= wanted);  // the study's value is a maximum
          CHECK(fit.warning.empty());
          // NUM_WORKERS goes down first: the threads stay at their first
          // cores while workers are lowered, and go below them only without workers.
          const int first = std::min(min_threads, cores / trials);
          if (fit.workers < wanted) CHECK(fit.threads == first);
          if (fit.threads < min_threads) CHECK(fit.workers == 0);
          if (first + wanted <= cores / trials) CHECK(fit.workers == wanted);  // room: kept
        }
      }
    }
  }
}

TEST_CASE("a 2-core machine runs quick_sweep's one trial without oversubscribing") {
  // quick_sweep: NUM_WORKERS 4, the cpu profile's 2 threads per trial.
  const CpuFit fit = fit_cpu(2, 1, workers(4), 2);
  CHECK(fit.threads == 2);
  CHECK(fit.workers == 0);
  CHECK(fit.warning.empty());
  CHECK(fit.reason == "2 core(s) / 1 trial(s) = 2");
  REQUIRE(fit.notes.size() == 1);
  CHECK(fit.notes[0] ==
        "NUM_WORKERS: 4 -> 0, so that 1 trial(s) x (2 thread(s) + 0 data-loader worker(s)) fit 2 "
        "core(s) (the study's NUM_WORKERS is a maximum; env_fixed: [NUM_WORKERS] pins it)");
}

TEST_CASE("threads below the profile's threads_per_trial are noted, with what cut them") {
  CpuFit fit = fit_cpu(2, 2, workers(4), 2);
  CHECK(fit.threads == 1);
  CHECK(fit.workers == 0);
  REQUIRE(fit.notes.size() == 2);
  CHECK(fit.notes[0] ==
        "OMP_NUM_THREADS: 2 -> 1, the profile's threads_per_trial cut to the cores' share (2 "
        "core(s) / 2 trial(s) = 1)");
  CHECK(fit.notes[1].rfind("NUM_WORKERS: 4 -> 0, ", 0) == 0);
  CHECK(fit_cpu(4, 2, workers(4), 2).notes.size() == 1);  // 2 threads each: only workers lowered
  fit = fit_cpu(8, 2, workers(4, true), 2);  // a share of 4, pinned workers take all of it
  REQUIRE(fit.notes.size() == 1);
  CHECK(fit.notes[0] ==
        "OMP_NUM_THREADS: 2 -> 1, the profile's threads_per_trial cut to what the pinned "
        "NUM_WORKERS leave of 8 core(s) / 2 trial(s) = 4");
}

TEST_CASE("5 GPU slots on 16 cores lower NUM_WORKERS 4 to what fits") {
  const CpuFit fit = fit_cpu(16, 5, workers(4));
  CHECK(fit.workers == 2);
  CHECK(fit.threads == 1);
  CHECK(5 * (fit.threads + fit.workers) <= 16);
  CHECK(fit.reason ==
        "16 core(s) / 5 trial(s) = 3, minus 2 data-loader worker(s) (NUM_WORKERS) = 1");
}

TEST_CASE("spare cores go to the compute threads, and unlowered values leave no note") {
  const CpuFit fit = fit_cpu(16, 2, workers(3), 2);
  CHECK(fit.workers == 3);
  CHECK(fit.threads == 5);
  CHECK(fit.notes.empty());
  CHECK(fit_cpu(8, 1, CpuWants{}).threads == 8);
  CHECK(fit_cpu(8, 1, CpuWants{}).workers == 0);
}

TEST_CASE("pinned values are passed as written, and a plan they overfill warns") {
  CpuFit fit = fit_cpu(16, 4, workers(4, true));
  CHECK(fit.workers == 4);
  CHECK(fit.threads == 1);  // then the threads are lowered, to 1 at least
  CHECK(fit.notes.empty());
  CHECK(fit.warning ==
        "4 trial(s) x (1 thread(s) + 4 data-loader worker(s)) = 20 on 16 core(s): the CPU is "
        "oversubscribed; lower n_jobs or what env_fixed pins (NUM_WORKERS)");
  CpuWants threads = workers(4);
  threads.threads_pinned = 3;
  fit = fit_cpu(16, 4, threads);
  CHECK(fit.threads == 3);
  CHECK(fit.workers == 1);  // the workers still fit around pinned threads
  CHECK(fit.reason == "3, pinned by env_fixed (16 core(s) / 4 trial(s) = 4)");
  CHECK(fit.warning.empty());
  fit = fit_cpu(4, 4, threads);
  CHECK(fit.threads == 3);
  CHECK(fit.workers == 0);
  CHECK(fit.warning.find("lower n_jobs or what env_fixed pins (OMP_NUM_THREADS)") !=
        std::string::npos);
}

TEST_CASE("a study's wants come from its env and env_fixed") {
  CpuWants w = cpu_wants({{"PIN_MEMORY", "1"}, {"NUM_WORKERS", "4"}, {"OMP_NUM_THREADS", "2"}});
  CHECK(w.workers == 4);
  CHECK_FALSE(w.workers_pinned);
  CHECK_FALSE(w.threads_pinned);
  w = cpu_wants({{"NUM_WORKERS", "4"}, {"OMP_NUM_THREADS", "2"}},
                {"NUM_WORKERS", "OMP_NUM_THREADS"});
  CHECK(w.workers_pinned);
  CHECK(w.threads_pinned == 2);
  CHECK_FALSE(cpu_wants({}).workers);
}

}  // namespace
}  // namespace hpo
