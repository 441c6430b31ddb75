// StudyRunner on PostgreSQL when a trial is taken over while the sampler
// makes its params: a sampler slower than the heartbeat grace (or a process
// stopped in it) lets another worker find the new trial stale. The run must
// leave that trial to its new owner, say so, and go on with the next one.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "hpo/config/study_file.h"
#include "hpo/run/study_runner.h"
#include "samplers/random_sampler.h"
#include "tests/unit/storage_contract.h"

namespace hpo {
namespace {

const nlohmann::json kOtherOwner = {{"host", "elsewhere"}, {"pid", 1}, {"worker", "w"}};

// Random suggestions, but asked for trial `victim` it first plays the other
// worker: it ages the new trial's beat and takes the trial over, as a worker
// that found it stale would. Only a test does I/O in a sampler.
class StalledSampler : public Sampler {
 public:
  StalledSampler(const PgBackend& db, int64_t study_id, int victim)
      : Sampler(7, Direction::kMaximize), db_(db), study_id_(study_id), victim_(victim) {}
  std::string name() const override { return "stalled"; }
  ParamValues ask(const SearchSpace& space, int number) override {
    if (number == victim_) {
      auto other = db_.open();
      for (const auto& t : other->trials(study_id_)) {
        if (t.number != number) continue;
        taken_id = t.id;
        db_.age_heartbeats(t.id, 600);
        took_over = other->take_over_trial(t.id, t.system_attrs.at("hpo:owner"),
                                           {"hpo:owner", kOtherOwner}, 60);
      }
    }
    return random_.ask(space, number);
  }
  int64_t taken_id = 0;
  bool took_over = false;

 private:
  const PgBackend& db_;
  int64_t study_id_;
  int victim_;
  RandomSampler random_{7, Direction::kMaximize};
};

std::string study_yaml(const std::string& url) {
  return "name: s\n"
         "search_space: space.yaml\n"
         "objective: {metric: score, direction: maximize}\n"
         "sampler: {name: random, seed: 7}\n"
         "n_trials: 3\n"
         "trainer:\n"
         "  command: [/usr/bin/python3, " HPO_SOURCE_DIR
         "/tests/integration/fake_trainer.py, --trial, \"{trial_number}\"]\n"
         "storage: \"" +
         url + "\"\n";
}

TEST_CASE("a new trial taken over while its params were made is left to its owner" *
          doctest::test_suite("postgres")) {
  if (!test_pg_url()) return;
  PgBackend db;
  TempDir dir{"hpo_takeover"};
  std::ofstream(dir.path("space.yaml")) << "params:\n  x: {type: float, low: 0.0, high: 1.0}\n"
                                           "  epochs: 2\n";
  std::ofstream(dir.path("s.yaml")) << study_yaml(db.url());
  StudyConfig config = load_study_file(dir.path("s.yaml"));
  config.runs_dir = dir.path("runs");

  auto storage = db.open();
  const StudyRecord study = storage->get_or_create_study("s", Direction::kMaximize);
  const SamplingSpace space(config.space.params);
  StalledSampler sampler(db, study.id, 1);
  NopPruner pruner;
  std::ostringstream out;
  Progress progress(out, false, config.n_trials, "score", Direction::kMaximize);
  const StopFlag stop{kKeepRunning};
  StudyRunner runner(*storage, config, study, space, sampler, pruner, progress, stop,
                     "/usr/bin/python3");
  const RunSummary summary = runner.run(3, {Slot{"cpu.w0", std::nullopt, 0, {}}});

  REQUIRE(sampler.took_over);
  INFO(out.str());
  CHECK(summary.taken_over == 1);
  CHECK(summary.completed == 2);  // -n 3: the lost trial counts against it
  CHECK(out.str().find("trial 1: taken over by another run") != std::string::npos);
  const auto trials = storage->trials(study.id);
  REQUIRE(trials.size() == 3);
  for (const auto& t : trials) {
    CAPTURE(t.number);
    if (t.id == sampler.taken_id) {
      // Nothing of the stalled creator's: no params, no config, no failure.
      CHECK(t.state == TrialState::kRunning);
      CHECK(t.params.empty());
      CHECK_FALSE(t.system_attrs.count("hpo:config"));
      CHECK(t.system_attrs.at("hpo:owner") == kOtherOwner);
    } else {
      CHECK(t.state == TrialState::kComplete);
      CHECK(t.params.size() == 1);
    }
  }
}

}  // namespace
}  // namespace hpo
