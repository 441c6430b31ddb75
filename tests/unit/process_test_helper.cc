// A stand-in for hpo in process_test.cc: starts the program on its command
// line as hpo starts a trainer, from a worker thread that then ends (as TBB's
// do), prints the trainer's pid and waits to be killed.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <thread>

#include "hpo/launch/process.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  hpo::LaunchSpec spec;
  spec.argv.assign(argv + 1, argv + argc);
  spec.stdout_path = "/dev/null";
  spec.stderr_path = "/dev/null";
  std::unique_ptr<hpo::Process> trainer;
  std::thread([&] { trainer = std::make_unique<hpo::Process>(spec); }).join();
  std::printf("%d\n", trainer->pid());
  std::fflush(stdout);
  while (true) ::pause();
}
