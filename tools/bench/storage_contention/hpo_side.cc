// Contention on one study: N processes each create, report and finish M
// trials through hpo's Storage as fast as they can (no trainer), all on one
// study, as a fleet of workers would at its busiest. Prints trials/s and
// the latency of create_trial (which serializes on the study: a row lock
// on PostgreSQL, the write lock on SQLite), and checks that the numbers are
// exactly 0..N*M-1.
//
// tools/bench/storage_contention/run runs it beside Optuna 3.1's and 5.0's
// RDBStorage doing the same (peer.py), on SQLite and PostgreSQL.
//
// Usage: bench_storage_contention --storage URL [--processes 8] [--trials 25]
// On a private PostgreSQL server:
//   tests/integration/pg_server.py run -- sh -c 'bench_storage_contention --storage
//   "$HPO_TEST_PG_URL"'
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hpo/storage/open_storage.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

hpo::NewTrial new_trial(int i) {
  hpo::NewTrial t;
  t.params = {{"x", hpo::FloatDistribution{0.0, 1.0, false, std::nullopt}, (i % 97) / 97.0},
              {"lr", hpo::FloatDistribution{1e-5, 1e-1, true, std::nullopt}, 1e-3},
              {"depth", hpo::IntDistribution{1, 4, false, 1}, 2.0}};
  t.heartbeat = true;
  return t;
}

// One worker: waits for `go`, then runs its trials; writes each
// create_trial's seconds to `out`.
int worker(const std::string& url, const std::string& study, int trials, int go, int out) {
  auto storage = hpo::open_storage(url);
  const auto s = storage->get_or_create_study(study, hpo::Direction::kMaximize);
  char c;
  if (read(go, &c, 1) < 0) return 1;
  for (int i = 0; i < trials; ++i) {
    const auto start = Clock::now();
    const auto t = storage->create_trial(s.id, new_trial(i));
    const double create_s = seconds_since(start);
    for (int step = 0; step < 3; ++step) storage->set_intermediate_value(t.id, step, 0.1 * step);
    storage->finish_trial(t.id, {hpo::TrialState::kComplete, t.number + 0.5, {}, {}});
    if (write(out, &create_s, sizeof create_s) != sizeof create_s) return 1;
  }
  return 0;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  std::string url;
  int processes = 8, trials = 25;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--storage")
      url = argv[i + 1];
    else if (flag == "--processes")
      processes = std::atoi(argv[i + 1]);
    else if (flag == "--trials")
      trials = std::atoi(argv[i + 1]);
  }
  if (url.empty() || processes < 1 || trials < 1) {
    std::fprintf(stderr,
                 "usage: bench_storage_contention --storage URL [--processes 8] [--trials 25]\n");
    return 2;
  }
  const std::string study = "contention_" + std::to_string(getpid());
  hpo::open_storage(url)->get_or_create_study(study, hpo::Direction::kMaximize);
  int go[2], out[2];
  if (pipe(go) != 0 || pipe(out) != 0) return 1;
  for (int p = 0; p < processes; ++p) {
    if (fork() == 0) {
      close(go[1]);
      close(out[0]);
      try {
        _exit(worker(url, study, trials, go[0], out[1]));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "worker: %s\n", e.what());
        _exit(1);
      }
    }
  }
  close(go[0]);
  close(out[1]);
  usleep(300 * 1000);  // let every worker connect before the start
  const auto start = Clock::now();
  close(go[1]);  // the start: every worker's read returns
  std::vector<double> creates;
  double s;
  while (read(out[0], &s, sizeof s) == sizeof s) creates.push_back(s);
  const double wall = seconds_since(start);
  int failed = 0;
  for (int status; wait(&status) > 0;) failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);

  auto storage = hpo::open_storage(url);
  const auto all = storage->trials(storage->find_study(study)->id);
  std::vector<int> numbers;
  for (const auto& t : all) numbers.push_back(t.number);
  std::sort(numbers.begin(), numbers.end());
  bool exact = static_cast<int>(numbers.size()) == processes * trials;
  for (size_t i = 0; exact && i < numbers.size(); ++i) exact = numbers[i] == static_cast<int>(i);

  std::printf(
      "%s: %d processes x %d trials: %.2f s, %.0f trials/s; create_trial p50 %.2f ms, p95 %.2f ms, "
      "max %.2f ms; numbers %s, %d worker(s) failed\n",
      storage->url().c_str(), processes, trials, wall, creates.size() / wall,
      1e3 * percentile(creates, 0.5), 1e3 * percentile(creates, 0.95),
      1e3 * percentile(creates, 1.0), exact ? "exactly 0..N*M-1" : "WRONG", failed);
  return exact && failed == 0 ? 0 : 1;
}
