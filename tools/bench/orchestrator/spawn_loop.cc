// Starts a program N times in a row through hpo's own launcher, waiting for
// each, and prints the mean seconds per start: the floor under any
// orchestrator's per-trial cost; then the mean CPU seconds (user + system)
// per start of this launcher and of the started program itself (its
// getrusage(RUSAGE_CHILDREN)): the program's share of a trial's CPU time.
// Usage: spawn_loop PROGRAM N
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "hpo/launch/process.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: spawn_loop PROGRAM N\n");
    return 2;
  }
  hpo::LaunchSpec spec;
  spec.argv = {argv[1]};
  spec.stdout_path = "/dev/null";
  spec.stderr_path = "/dev/null";
  const int n = std::atoi(argv[2]);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    hpo::Process p(spec);
    // The same wait as hpo's: it ends the moment the program does.
    while (!p.wait_for(std::chrono::seconds(1))) {
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  const auto cpu = [](const rusage& u) {
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
  };
  std::printf("%.9f %.9f %.9f\n", seconds / n, cpu(self) / n, cpu(children) / n);
  return 0;
}
