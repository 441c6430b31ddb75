// Starts a program N times in a row through hpo's own launcher, waiting for
// each, and prints the mean seconds per start: the floor under any
// orchestrator's per-trial cost. Usage: spawn_loop PROGRAM N
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
  std::printf("%.9f\n", seconds / n);
  return 0;
}
