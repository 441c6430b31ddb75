// How long `hpo report` takes on a big study (issue #14: 10,000 trials in
// under 2 s), and how big the page gets. Makes a study like a long sweep --
// 6 parameters (log, int, categorical), 20 learning-curve steps, recorded
// metrics, 4 GPU slots on 2 hosts with utilization, 3% failures with a
// stderr tail -- in a SQLite database (kept, and reused when it exists),
// then times each phase in this process (read, data and importance, page)
// and the real `hpo report` end to end.
//
// Usage: bench_report [--trials 10000] [--db bench_report.db] [--hpo build/bin/hpo] [--repeat 3]
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "hpo/report/html/importance_data.h"
#include "hpo/report/html/page.h"
#include "hpo/report/html/report_data.h"
#include "hpo/report/study_view.h"
#include "hpo/run/owner.h"
#include "hpo/storage/open_storage.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Flags {
  int trials = 10000;
  std::string db = "bench_report.db";
  std::string hpo = "build/bin/hpo";
  int repeat = 3;
};

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--trials")
      f.trials = std::atoi(value.c_str());
    else if (key == "--db")
      f.db = value;
    else if (key == "--hpo")
      f.hpo = value;
    else if (key == "--repeat")
      f.repeat = std::atoi(value.c_str());
    else {
      std::fprintf(stderr,
                   "bench_report: unknown flag %s (see the comment at the top of "
                   "tools/bench/report/hpo_side.cc)\n",
                   argv[i]);
      std::exit(2);
    }
  }
  return f;
}

void make_study(hpo::Storage& storage, int n) {
  const auto study = storage.get_or_create_study("bench", hpo::Direction::kMaximize);
  storage.set_study_user_attr(study.id, "hpo:objective",
                              {{"metric", "val_rank_ic"}, {"record", {"val_sharpe"}}});
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < n; ++i) {
    const double x = u(rng), lr = std::pow(10, -5 + 4 * u(rng));
    const int depth = 1 + static_cast<int>(u(rng) * 4), act = static_cast<int>(u(rng) * 3);
    hpo::NewTrial t;
    t.params = {
        {"x", hpo::FloatDistribution{0, 1, false, std::nullopt}, x},
        {"lr", hpo::FloatDistribution{1e-5, 1e-1, true, std::nullopt}, lr},
        {"depth", hpo::IntDistribution{1, 4, false, 1}, static_cast<double>(depth)},
        {"act",
         hpo::CategoricalDistribution{
             {std::string("relu"), std::string("tanh"), std::string("gelu")}},
         static_cast<double>(act)},
        {"dropout", hpo::FloatDistribution{0, 0.5, false, 0.05}, std::round(u(rng) * 10) * 0.05},
        {"width", hpo::IntDistribution{16, 512, true, 1}, std::round(std::pow(2, 4 + 5 * u(rng)))}};
    hpo::Owner owner;
    owner.host = i % 2 ? "node-b" : "node-a";
    owner.pid = 1000 + i;
    t.system_attrs = {{hpo::kOwnerAttr, owner.to_json()},
                      {hpo::kSlotAttr, "gpu" + std::to_string(i % 4 / 2) + ".w0"},
                      {"hpo:gpu", {{"mean_util_pct", 40 + 60 * u(rng)}, {"mean_mem_mib", 9000}}}};
    const auto record = storage.create_trial(study.id, t);
    const double score = 0.1 * (1 - (x - 0.3) * (x - 0.3)) + 0.02 * (std::log10(lr) + 5) / 4 +
                         0.005 * act + 0.01 * u(rng);
    for (int step = 0; step < 20; ++step)
      storage.set_intermediate_value(record.id, step, score * (step + 1) / 20);
    hpo::TrialOutcome out;
    if (i % 33 == 5) {
      out.state = hpo::TrialState::kFail;
      out.system_attrs = {
          {"hpo:fail_kind", i % 2 ? "oom" : "error"},
          {"hpo:fail_reason", "trainer failed: exit code 3"},
          {"hpo:stderr_tail", std::string(3000, 'e') + "\nTraceback: something went wrong\n"}};
    } else {
      out.value = score;
      out.user_attrs = {{"val_rank_ic", score},
                        {"val_sharpe", 20 * score + u(rng)},
                        {"test_rank_ic", score * 0.8 + 0.01 * u(rng)}};
    }
    storage.finish_trial(record.id, out);
  }
}

double run_hpo(const Flags& f, const std::string& out) {
  const auto t0 = Clock::now();
  const std::string cmd =
      f.hpo + " report --study bench --storage sqlite:///" + f.db + " -o " + out + " > /dev/null";
  const int rc = std::system(cmd.c_str());
  if (rc != 0) {
    std::fprintf(stderr, "bench_report: %s failed (%d)\n", cmd.c_str(), rc);
    std::exit(1);
  }
  return seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  if (!std::filesystem::exists(f.db)) {
    const auto t0 = Clock::now();
    auto storage = hpo::open_storage("sqlite:///" + f.db);
    make_study(*storage, f.trials);
    std::printf("made %s with %d trials in %.1f s\n", f.db.c_str(), f.trials, seconds_since(t0));
  }
  auto storage = hpo::open_storage("sqlite:///" + f.db, hpo::OpenMode::kMustExist);
  for (int r = 0; r < f.repeat; ++r) {
    auto t = Clock::now();
    const hpo::StudyView view = hpo::load_study_view(*storage, "bench");
    const double read = seconds_since(t);
    t = Clock::now();
    const auto importance = hpo::importance_json(view, 1000);
    const double imp = seconds_since(t);
    t = Clock::now();
    const auto data = hpo::report_data(view, 0);
    const double all_data = seconds_since(t);
    t = Clock::now();
    const std::string page = hpo::report_page(data, "bench");
    const double build = seconds_since(t);
    std::printf(
        "in process, %zu trials: read %.3f s, data %.3f s (of which importance %.3f s), page %.3f "
        "s; "
        "page %.1f MB\n",
        view.trials.size(), read, all_data, imp, build, page.size() / 1e6);
  }
  std::vector<double> walls;
  for (int r = 0; r < f.repeat; ++r) walls.push_back(run_hpo(f, "bench_report.html"));
  std::sort(walls.begin(), walls.end());
  std::printf(
      "hpo report end to end: median %.3f s, min %.3f s, max %.3f s over %d runs; %s is %.1f MB\n",
      walls[walls.size() / 2], walls.front(), walls.back(), f.repeat, "bench_report.html",
      std::filesystem::file_size("bench_report.html") / 1e6);
  return 0;
}
