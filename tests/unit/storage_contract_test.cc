// The Storage contract (storage.h) on SQLite and on PostgreSQL alike.
#include "tests/unit/storage_contract.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <thread>
#include <vector>

#include "hpo/storage/trial_not_running.h"

namespace hpo {
namespace {

using nlohmann::json;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

const Distribution kLr = FloatDistribution{5e-6, 5e-3, true, std::nullopt};
const Distribution kDropout = FloatDistribution{0.0, 0.5, false, 0.1};
const Distribution kLayers = IntDistribution{2, 11, false, 3};
const Distribution kWidth = IntDistribution{8, 512, true, 1};
const Distribution kBatch = CategoricalDistribution{{int64_t{64}, int64_t{128}, int64_t{256}}};
const Distribution kAct =
    CategoricalDistribution{{std::string("relu"), true, std::monostate{}, 0.5}};

NewTrial sample_trial(int i) {
  NewTrial t;
  t.params = {{"lr", kLr, 1e-4 * (i + 1)},
              {"dropout", kDropout, 0.1 * (i % 6)},
              {"layers", kLayers, 2.0 + 3 * (i % 4)},
              {"width", kWidth, 64},
              {"batch", kBatch, static_cast<double>(i % 3)},
              {"act", kAct, static_cast<double>(i % 4)}};
  t.user_attrs = {{"worker", "w" + std::to_string(i)}};
  t.system_attrs = {{"hpo:pid", 1000 + i}};
  return t;
}

bool same_params(const std::vector<StoredParam>& a, const std::vector<StoredParam>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || !(a[i].distribution == b[i].distribution) ||
        a[i].internal != b[i].internal) {
      return false;
    }
  }
  return true;
}

STORAGE_CONTRACT(round_trip, "a study round-trips through the database") {
  Backend db;
  int64_t study_id = 0;
  std::vector<TrialRecord> created;
  {
    auto owned = db.open();
    Storage& storage = *owned;
    const StudyRecord study = storage.get_or_create_study("mission", Direction::kMaximize);
    study_id = study.id;
    CHECK(study.name == "mission");
    storage.set_study_user_attr(study_id, "metric", "sharpe");
    for (int i = 0; i < 4; ++i) created.push_back(storage.create_trial(study_id, sample_trial(i)));
    storage.set_intermediate_value(created[0].id, 0, 0.1);
    storage.set_intermediate_value(created[0].id, 1, 0.2);
    storage.set_intermediate_value(created[0].id, 1, 0.25);  // replaces step 1
    storage.set_intermediate_value(created[1].id, 0, std::nan(""));
    storage.set_intermediate_value(created[1].id, 1, -kInfinity);
    storage.set_trial_system_attr(created[2].id, "hpo:host", "node7");
    CHECK(storage.finish_trial(created[0].id, {TrialState::kComplete, 1.5, {{"sharpe", 1.2}}, {}}));
    CHECK(storage.finish_trial(created[1].id, {TrialState::kPruned, std::nullopt, {}, {}}));
    CHECK(storage.finish_trial(created[2].id,
                               {TrialState::kFail, std::nullopt, {}, {{"hpo:exit", 3}}}));
  }

  auto owned = db.open();  // reopened: everything comes from the database
  Storage& storage = *owned;
  REQUIRE(storage.find_study("mission").has_value());
  CHECK(storage.find_study("mission")->id == study_id);
  CHECK_FALSE(storage.find_study("other").has_value());
  CHECK(storage.study_user_attrs(study_id) == Attrs{{"metric", "sharpe"}});

  const auto trials = storage.trials(study_id);
  REQUIRE(trials.size() == 4);
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(trials[i].id == created[i].id);
    CHECK(trials[i].number == i);
    CHECK(same_params(trials[i].params, sample_trial(i).params));
    CHECK(trials[i].user_attrs.at("worker") == "w" + std::to_string(i));
    CHECK(trials[i].system_attrs.at("hpo:pid") == 1000 + i);
    CHECK(trials[i].datetime_start == created[i].datetime_start);
  }
  CHECK(trials[0].state == TrialState::kComplete);
  CHECK(trials[0].value == 1.5);
  CHECK(trials[0].intermediate == std::map<int, double>{{0, 0.1}, {1, 0.25}});
  CHECK(trials[0].user_attrs.at("sharpe") == 1.2);
  CHECK_FALSE(trials[0].datetime_complete.empty());
  CHECK(trials[1].state == TrialState::kPruned);
  CHECK_FALSE(trials[1].value.has_value());
  REQUIRE(trials[1].intermediate.size() == 2);
  CHECK(std::isnan(trials[1].intermediate.at(0)));
  CHECK(trials[1].intermediate.at(1) == -kInfinity);
  CHECK(trials[2].state == TrialState::kFail);
  CHECK(trials[2].system_attrs.at("hpo:host") == "node7");
  CHECK(trials[2].system_attrs.at("hpo:exit") == 3);
  CHECK(trials[3].state == TrialState::kRunning);
  CHECK(trials[3].datetime_complete.empty());

  const auto one = storage.trial(created[2].id);
  REQUIRE(one.has_value());
  CHECK(one->number == 2);
  CHECK(same_params(one->params, trials[2].params));
  CHECK(one->system_attrs == trials[2].system_attrs);
  CHECK_FALSE(storage.trial(created[3].id + 100).has_value());
}

STORAGE_CONTRACT(finish_twice, "finishing a finished trial returns false and changes nothing") {
  Backend db;
  auto owned = db.open();
  Storage& storage = *owned;
  const auto study = storage.get_or_create_study("s", Direction::kMinimize);
  const auto t = storage.create_trial(study.id, sample_trial(0));
  REQUIRE(storage.finish_trial(t.id, {TrialState::kComplete, 2.0, {{"a", 1}}, {}}));
  const auto before = storage.trial(t.id);
  CHECK_FALSE(
      storage.finish_trial(t.id, {TrialState::kFail, std::nullopt, {{"a", 2}}, {{"b", 3}}}));
  CHECK_FALSE(storage.finish_trial(t.id, {TrialState::kComplete, 9.0, {}, {}}));
  // The same outcome again is still a second finish: false.
  CHECK_FALSE(storage.finish_trial(t.id, {TrialState::kComplete, 2.0, {{"a", 1}}, {}}));
  const auto after = storage.trial(t.id);
  CHECK(after->state == TrialState::kComplete);
  CHECK(after->value == 2.0);
  CHECK(after->user_attrs == before->user_attrs);
  CHECK(after->system_attrs == before->system_attrs);
  CHECK(after->datetime_complete == before->datetime_complete);
  // A finished trial takes no more reports, as in Optuna; the refusal says
  // how it ended, so that its runner can stop its trainer and go on.
  try {
    storage.set_intermediate_value(t.id, 5, 1.0);
    FAIL("a report for a finished trial was taken");
  } catch (const TrialNotRunning& e) {
    CHECK(e.trial_id == t.id);
    CHECK(e.state == TrialState::kComplete);
  }
  CHECK(storage.trial(t.id)->intermediate.empty());
}

STORAGE_CONTRACT(malformed, "malformed outcomes and params are refused without writing") {
  Backend db;
  auto owned = db.open();
  Storage& storage = *owned;
  const auto study = storage.get_or_create_study("s", Direction::kMinimize);
  const auto t = storage.create_trial(study.id, {});
  CHECK_THROWS_AS(storage.finish_trial(t.id, {TrialState::kComplete, std::nullopt, {}, {}}),
                  StorageError);
  CHECK_THROWS_AS(storage.finish_trial(t.id, {TrialState::kComplete, std::nan(""), {}, {}}),
                  StorageError);
  CHECK_THROWS_AS(storage.finish_trial(t.id, {TrialState::kRunning, 1.0, {}, {}}), StorageError);
  CHECK(storage.trial(t.id)->state == TrialState::kRunning);

  NewTrial bad;
  bad.params = {{"ok", kLayers, 5}, {"batch", kBatch, 3}};  // index 3 of 3 choices
  CHECK_THROWS_AS(storage.create_trial(study.id, bad), StorageError);
  CHECK(storage.trials(study.id).size() == 1);  // the failed create left nothing
  CHECK_THROWS_AS(storage.finish_trial(t.id + 1000, {TrialState::kFail, std::nullopt, {}, {}}),
                  StorageError);
  CHECK_THROWS_AS(storage.create_trial(study.id + 1000, {}), StorageError);
}

STORAGE_CONTRACT(compare_and_set, "compare_and_set_trial_system_attr") {
  Backend db;
  auto owned = db.open();
  Storage& storage = *owned;
  const auto study = storage.get_or_create_study("s", Direction::kMaximize);
  const auto t = storage.create_trial(study.id, {});
  // Absent counts as null.
  CHECK_FALSE(storage.compare_and_set_trial_system_attr(t.id, "owner", "a", "b"));
  CHECK(storage.compare_and_set_trial_system_attr(t.id, "owner", nullptr, "a"));
  CHECK(storage.trial(t.id)->system_attrs.at("owner") == "a");
  CHECK_FALSE(storage.compare_and_set_trial_system_attr(t.id, "owner", nullptr, "b"));
  CHECK_FALSE(storage.compare_and_set_trial_system_attr(t.id, "owner", "x", "b"));
  CHECK(storage.compare_and_set_trial_system_attr(t.id, "owner", "a", json{{"pid", 7}}));
  CHECK(storage.trial(t.id)->system_attrs.at("owner") == json{{"pid", 7}});
  REQUIRE(storage.finish_trial(t.id, {TrialState::kFail, std::nullopt, {}, {}}));
  // Only RUNNING trials can be taken over.
  CHECK_FALSE(storage.compare_and_set_trial_system_attr(t.id, "owner", json{{"pid", 7}}, "c"));
  CHECK(storage.trial(t.id)->system_attrs.at("owner") == json{{"pid", 7}});
}

STORAGE_CONTRACT(summaries, "studies: get_or_create, directions and summaries") {
  Backend db;
  auto owned = db.open();
  Storage& storage = *owned;
  const auto max = storage.get_or_create_study("max", Direction::kMaximize);
  CHECK(storage.get_or_create_study("max", Direction::kMaximize).id == max.id);
  CHECK_THROWS_WITH_AS(storage.get_or_create_study("max", Direction::kMinimize),
                       doctest::Contains("MAXIMIZE"), StorageError);
  const auto min = storage.get_or_create_study("min", Direction::kMinimize);
  CHECK(min.id != max.id);

  const auto finish = [&](int64_t study, TrialState state, std::optional<double> value) {
    const auto t = storage.create_trial(study, {});
    REQUIRE(storage.finish_trial(t.id, {state, value, {}, {}}));
  };
  finish(max.id, TrialState::kComplete, 0.3);
  finish(max.id, TrialState::kComplete, 0.9);
  finish(max.id, TrialState::kPruned, 5.0);  // pruned values are not candidates
  finish(max.id, TrialState::kFail, std::nullopt);
  storage.create_trial(max.id, {});
  finish(min.id, TrialState::kComplete, 2.0);
  finish(min.id, TrialState::kComplete, -kInfinity);
  storage.get_or_create_study("empty", Direction::kMinimize);
  // The best of a study with constraints is its best feasible trial, as
  // Optuna's best_trial: a value > 0 in the list or in a named constraint
  // (Optuna 5), or one that is not a number, makes a trial infeasible; a
  // trial without constraints is feasible.
  const auto constrained = storage.get_or_create_study("constrained", Direction::kMinimize);
  const auto judged = [&](double value, Attrs attrs) {
    const auto t = storage.create_trial(constrained.id, {});
    REQUIRE(storage.finish_trial(t.id, {TrialState::kComplete, value, {}, std::move(attrs)}));
  };
  judged(0.1, {{"constraints", {0.5, -1.0}}});
  judged(0.2, {{"constraints:memory", 3.0}});
  judged(0.3, {{"constraints", {"x"}}});
  judged(0.4, {{"constraints", {-1.0, 0.0}}, {"constraints:memory", 0.0}});
  judged(0.5, {{"other", 1.0}});
  judged(0.6, {{"constraints", {-2.0}}});

  const auto studies = storage.list_studies();
  REQUIRE(studies.size() == 4);
  CHECK(studies[3].best_value == 0.4);
  CHECK(studies[0].study.name == "max");
  CHECK(studies[0].counts == std::map<TrialState, int>{{TrialState::kComplete, 2},
                                                       {TrialState::kPruned, 1},
                                                       {TrialState::kFail, 1},
                                                       {TrialState::kRunning, 1}});
  CHECK(studies[0].best_value == 0.9);
  CHECK(studies[1].study.direction == Direction::kMinimize);
  CHECK(studies[1].best_value == -kInfinity);
  CHECK(studies[2].counts.empty());
  CHECK_FALSE(studies[2].best_value.has_value());
}

// Each of 4 threads creates 50 trials, reports 3 steps each and finishes
// them; `storage_for(thread)` gives the storage the thread writes through.
template <typename StorageFor>
void run_writers(StorageFor storage_for, int64_t study_id) {
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back([&, w] {
      Storage& storage = storage_for(w);
      for (int i = 0; i < 50; ++i) {
        const auto t = storage.create_trial(study_id, sample_trial(i));
        for (int step = 0; step < 3; ++step) {
          storage.set_intermediate_value(t.id, step, w + 0.01 * step);
        }
        storage.finish_trial(t.id, {TrialState::kComplete, static_cast<double>(w), {}, {}});
      }
    });
  }
  for (auto& t : threads) t.join();
}

void check_writers_result(Storage& storage, int64_t study_id) {
  const auto trials = storage.trials(study_id);
  REQUIRE(trials.size() == 200);
  std::set<int> numbers;
  for (const auto& t : trials) {
    numbers.insert(t.number);
    CHECK(t.state == TrialState::kComplete);
    REQUIRE(t.intermediate.size() == 3);
    CHECK(t.intermediate.at(2) == *t.value + 0.02);
  }
  CHECK(numbers.size() == 200);
  CHECK(*numbers.begin() == 0);
  CHECK(*numbers.rbegin() == 199);
}

STORAGE_CONTRACT(shared_writers, "four writer threads share one storage") {
  Backend db;
  auto storage = db.open();
  const auto study = storage->get_or_create_study("s", Direction::kMaximize);
  run_writers([&](int) -> Storage& { return *storage; }, study.id);
  check_writers_result(*storage, study.id);
}

STORAGE_CONTRACT(own_writers, "four writer threads each with their own storage on one database") {
  Backend db;
  std::vector<std::unique_ptr<Storage>> storages;
  for (int w = 0; w < 4; ++w) storages.push_back(db.open());
  const auto study = storages[0]->get_or_create_study("s", Direction::kMaximize);
  run_writers([&](int w) -> Storage& { return *storages[w]; }, study.id);
  check_writers_result(*storages[3], study.id);
}

STORAGE_CONTRACT(opening_race,
                 "threads opening a new database at once all see one schema and one study") {
  Backend db;
  std::vector<int64_t> ids(4);
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w) {
    threads.emplace_back(
        [&, w] { ids[w] = db.open()->get_or_create_study("s", Direction::kMinimize).id; });
  }
  for (auto& t : threads) t.join();
  CHECK(std::set<int64_t>(ids.begin(), ids.end()).size() == 1);
  CHECK(db.open()->list_studies().size() == 1);
}

STORAGE_CONTRACT(heartbeats,
                 "heartbeats: only RUNNING trials whose beat is older than the grace are stale") {
  Backend db;
  auto owned = db.open();
  Storage& storage = *owned;
  const auto study = storage.get_or_create_study("s", Direction::kMaximize);
  const auto a = storage.create_trial(study.id, {});
  const auto b = storage.create_trial(study.id, {});
  storage.create_trial(study.id, {});  // never beats: not judged by heartbeat
  storage.record_heartbeat(a.id);
  storage.record_heartbeat(b.id);
  CHECK(storage.stale_trials(study.id, 60).empty());
  db.age_heartbeats(a.id, 120);  // two minutes ago, as the database's clock sees it
  CHECK(storage.stale_trials(study.id, 60) == std::vector<int64_t>{a.id});
  CHECK(storage.stale_trials(study.id, 300).empty());
  storage.record_heartbeat(a.id);  // a beat renews it
  CHECK(storage.stale_trials(study.id, 60).empty());
  db.age_heartbeats(std::nullopt, 120);
  REQUIRE(storage.finish_trial(
      b.id, {TrialState::kFail, std::nullopt, {}, {}}));  // finished: never stale
  CHECK(storage.stale_trials(study.id, 60) == std::vector<int64_t>{a.id});
  // An ended trial refuses its beat and says what it is now: how a worker
  // learns that another client ended a trial whose trainer reports nothing.
  try {
    storage.record_heartbeat(b.id);
    FAIL("a beat of a FAIL trial was taken");
  } catch (const TrialNotRunning& e) {
    CHECK(e.state == TrialState::kFail);
  }
}

STORAGE_CONTRACT(take_over,
                 "a takeover needs the owner it expects and a stale beat, and beats at once") {
  Backend db;
  auto storage = db.open();
  const auto study = storage->get_or_create_study("s", Direction::kMaximize);
  const OwnerGuard a{"hpo:owner", {{"host", "a"}, {"worker", "1"}}};
  const OwnerGuard b{"hpo:owner", {{"host", "a"}, {"worker", "2"}}};  // a look-alike
  const OwnerGuard c{"hpo:owner", {{"host", "c"}, {"worker", "3"}}};
  NewTrial fresh;
  fresh.system_attrs["hpo:owner"] = a.value;
  fresh.heartbeat = true;
  const int64_t id = storage->create_trial(study.id, fresh).id;
  CHECK_FALSE(storage->take_over_trial(id, a.value, b, 60));  // its beat is fresh
  db.age_heartbeats(id, 120);
  CHECK_FALSE(storage->take_over_trial(id, c.value, b, 60));  // not the owner expected
  CHECK(storage->take_over_trial(id, a.value, b, 60));
  // The new owner's first beat came with it: a third worker that found the
  // trial stale before finds it fresh now, and a beat of a's is refused.
  CHECK(storage->stale_trials(study.id, 60).empty());
  CHECK_FALSE(storage->take_over_trial(id, b.value, c, 60));
  CHECK_THROWS_AS(storage->record_heartbeat(id, a), OwnershipLost);
  // Without a staleness bound (the owner is known dead), at once.
  CHECK(storage->take_over_trial(id, b.value, c, std::nullopt));
  CHECK(storage->trial(id)->system_attrs.at("hpo:owner") == c.value);
  // A trial that never beat is never stale; an ended one is not taken.
  const int64_t quiet = storage->create_trial(study.id, {}).id;
  CHECK_FALSE(storage->take_over_trial(quiet, nullptr, c, 60));
  REQUIRE(storage->finish_trial(id, {TrialState::kFail, std::nullopt, {}, {}}));
  CHECK_FALSE(storage->take_over_trial(id, c.value, a, std::nullopt));
}

STORAGE_CONTRACT(owner_guard, "guarded writes happen only while the caller owns the trial") {
  Backend db;
  auto storage = db.open();
  const auto study = storage->get_or_create_study("s", Direction::kMaximize);
  const OwnerGuard a{"hpo:owner", {{"host", "a"}, {"pid", 1}}};
  const OwnerGuard b{"hpo:owner", {{"host", "b"}, {"pid", 2}}};
  NewTrial fresh;
  fresh.system_attrs["hpo:owner"] = a.value;
  fresh.heartbeat = true;
  const int64_t id = storage->create_trial(study.id, fresh).id;
  storage->set_intermediate_value(id, 0, 1.0, a);
  storage->set_trial_system_attr(id, "hpo:trainer", "a's", a);
  storage->record_heartbeat(id, a);

  // a is cut off past the grace; b takes the trial over and runs it.
  db.age_heartbeats(id, 120);
  REQUIRE(storage->compare_and_set_trial_system_attr(id, "hpo:owner", a.value, b.value));
  storage->set_intermediate_value(id, 0, 2.0, b);
  storage->set_trial_system_attr(id, "hpo:trainer", "b's", b);

  // a comes back: each of its writes is refused and names b.
  CHECK_THROWS_AS(storage->set_intermediate_value(id, 0, 9.0, a), OwnershipLost);
  CHECK_THROWS_AS(storage->set_intermediate_value(id, 1, 9.0, a), OwnershipLost);
  CHECK_THROWS_AS(storage->set_trial_system_attr(id, "hpo:trainer", "a's", a), OwnershipLost);
  CHECK_THROWS_AS(storage->set_trial_system_attrs(id, {{"hpo:config", "a's"}}, a), OwnershipLost);
  try {
    storage->record_heartbeat(id, a);
    FAIL("a's heartbeat was taken");
  } catch (const OwnershipLost& e) {
    CHECK(e.trial_id == id);
    CHECK(e.holder == b.value);
  }
  CHECK(storage->stale_trials(study.id, 60) ==
        std::vector<int64_t>{id});  // a's refused beat renewed nothing
  TrialOutcome from_a{TrialState::kComplete, 9.0, {{"acc", 9}}, {{"hpo:curve", "a's"}}};
  from_a.guard = a;
  CHECK_THROWS_AS(storage->finish_trial(id, from_a), OwnershipLost);

  auto stored = storage->trial(id);
  REQUIRE(stored);
  CHECK(stored->state == TrialState::kRunning);
  CHECK(stored->intermediate == std::map<int, double>{{0, 2.0}});
  CHECK(stored->system_attrs.at("hpo:trainer") == "b's");
  CHECK(stored->system_attrs.count("hpo:config") == 0);
  CHECK(stored->user_attrs.empty());

  TrialOutcome from_b{TrialState::kComplete, 2.0, {{"acc", 2}}, {{"hpo:curve", "b's"}}};
  from_b.guard = b;
  REQUIRE(storage->finish_trial(id, from_b));
  CHECK_THROWS_AS(storage->finish_trial(id, from_a), OwnershipLost);  // after b's end, too
  CHECK_FALSE(storage->finish_trial(id, from_b));  // the owner's second finish: not RUNNING
  stored = storage->trial(id);
  REQUIRE(stored);
  CHECK(stored->state == TrialState::kComplete);
  CHECK(stored->value == 2.0);
  CHECK(stored->user_attrs.at("acc") == 2);
  CHECK(stored->system_attrs.at("hpo:curve") == "b's");
  // Unguarded writes (tools, tests) are not checked.
  storage->set_trial_system_attr(id, "note", "any");
}

STORAGE_CONTRACT(numbers,
                 "trial numbers count each study's own trials, however studies interleave") {
  Backend db;
  auto storage = db.open();
  const auto a = storage->get_or_create_study("a", Direction::kMaximize);
  const auto b = storage->get_or_create_study("b", Direction::kMaximize);
  std::vector<int> numbers_a, numbers_b;
  for (int i = 0; i < 5; ++i) {
    numbers_a.push_back(storage->create_trial(a.id, {}).number);
    if (i % 2 == 0) numbers_b.push_back(storage->create_trial(b.id, {}).number);
  }
  CHECK(numbers_a == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(numbers_b == std::vector<int>{0, 1, 2});
  const auto c = storage->get_or_create_study("c", Direction::kMaximize);
  CHECK(storage->create_trial(c.id, {}).number == 0);  // a study without trials starts at 0
}

STORAGE_CONTRACT(
    derived_attrs,
    "create_trial stores attributes made from the new trial's number, and its first beat") {
  Backend db;
  auto storage = db.open();
  const auto study = storage->get_or_create_study("s", Direction::kMaximize);
  storage->create_trial(study.id, {});  // number 0, no beat
  NewTrial t = sample_trial(1);
  t.heartbeat = true;
  t.derived_system_attrs = [](const TrialRecord& created) {
    return Attrs{{"hpo:trial_dir", "runs/trial_" + std::to_string(created.number)},
                 {"hpo:id", created.id}};
  };
  const auto created = storage->create_trial(study.id, t);
  CHECK(created.number == 1);
  CHECK(created.system_attrs.at("hpo:trial_dir") == "runs/trial_1");
  CHECK(created.system_attrs.at("hpo:pid") == 1001);  // the fixed ones stay
  const auto stored = storage->trial(created.id);
  REQUIRE(stored);
  CHECK(stored->system_attrs.at("hpo:trial_dir") == "runs/trial_1");
  CHECK(stored->system_attrs.at("hpo:id") == created.id);
  CHECK(stored->system_attrs.at("hpo:pid") == 1001);
  CHECK(stored->system_attrs == created.system_attrs);
  // Only the trial created with a heartbeat has one (any beat is older than -1 s).
  CHECK(storage->stale_trials(study.id, -1) == std::vector<int64_t>{created.id});
}

STORAGE_CONTRACT(derived_params,
                 "create_trial makes params from the number it reserves, in its transaction") {
  Backend db;
  auto storage = db.open();
  const auto study = storage->get_or_create_study("s", Direction::kMaximize);
  storage->create_trial(study.id, {});  // number 0
  NewTrial t;
  t.derived_params = [](int number) {
    return std::vector<StoredParam>{{"layers", kLayers, 2.0 + 3 * number}};
  };
  const auto created = storage->create_trial(study.id, t);
  REQUIRE(created.number == 1);
  CHECK(same_params(created.params, {{"layers", kLayers, 5.0}}));
  CHECK(same_params(storage->trial(created.id)->params, {{"layers", kLayers, 5.0}}));
  // A made param outside its distribution fails the whole create: no new
  // trial is left RUNNING (PostgreSQL keeps it as FAIL: its number was
  // reserved before the params were made, outside the study's lock).
  t.derived_params = [](int) { return std::vector<StoredParam>{{"batch", kBatch, 3.0}}; };
  CHECK_THROWS_AS(storage->create_trial(study.id, t), StorageError);
  const auto after = storage->trials(study.id);
  CHECK(std::count_if(after.begin(), after.end(),
                      [](const TrialRecord& r) { return r.state == TrialState::kRunning; }) == 2);
}

STORAGE_CONTRACT(
    finish_params,
    "finish_trial replaces param values with those that ran, inside their distributions") {
  Backend db;
  auto storage = db.open();
  const auto study = storage->get_or_create_study("s", Direction::kMaximize);
  const auto t = storage->create_trial(study.id, sample_trial(0));  // batch index 0
  TrialOutcome bad{TrialState::kComplete, 1.0, {}, {}};
  bad.params = {{"batch", kBatch, 7.0}};  // no such choice
  CHECK_THROWS_AS(storage->finish_trial(t.id, bad), StorageError);
  bad.params = {{"nope", kBatch, 1.0}};  // no such param
  CHECK_THROWS_AS(storage->finish_trial(t.id, bad), StorageError);
  CHECK(storage->trial(t.id)->state == TrialState::kRunning);  // nothing written

  TrialOutcome ran{TrialState::kComplete, 1.0, {}, {}};
  ran.params = {{"batch", kBatch, 2.0}};
  REQUIRE(storage->finish_trial(t.id, ran));
  std::vector<StoredParam> expected = sample_trial(0).params;
  expected[4].internal = 2.0;
  CHECK(same_params(storage->trial(t.id)->params, expected));
}

STORAGE_CONTRACT(changed,
                 "trials_changed returns new trials and the ones asked about, nothing else") {
  Backend db;
  auto storage = db.open();
  const auto s = storage->get_or_create_study("s", Direction::kMaximize);
  const auto other = storage->get_or_create_study("other", Direction::kMaximize);
  const auto a = storage->create_trial(s.id, {});
  const auto b = storage->create_trial(s.id, {});
  storage->create_trial(other.id, {});  // another study's trial is never returned
  const auto c = storage->create_trial(s.id, {});
  auto ids = [](const std::vector<TrialRecord>& ts) {
    std::vector<int64_t> out;
    for (const auto& t : ts) out.push_back(t.id);
    return out;
  };
  CHECK(ids(storage->trials_changed(s.id, 0, {})) == std::vector<int64_t>{a.id, b.id, c.id});
  CHECK(ids(storage->trials_changed(s.id, b.id, {})) == std::vector<int64_t>{c.id});
  CHECK(ids(storage->trials_changed(s.id, c.id, {a.id})) == std::vector<int64_t>{a.id});
  CHECK(ids(storage->trials_changed(s.id, c.id, {a.id, b.id})) == std::vector<int64_t>{a.id, b.id});
  CHECK(storage->trials_changed(s.id, c.id, {}).empty());
}

// Attributes and params are written many to a statement on PostgreSQL, as
// JSON text inside JSON: every character must come back as it went in.
STORAGE_CONTRACT(attr_text,
                 "attribute keys and values with quotes, backslashes and non-ASCII round-trip") {
  Backend db;
  auto storage = db.open();
  const auto s = storage->get_or_create_study("s", Direction::kMaximize);
  NewTrial t;
  t.params = {{"a\"b\\c", kDropout, 0.1}, {"caf\u00e9", kLr, 1e-4 / 3}};
  t.user_attrs = {{"q\"uote", "back\\slash \"x\" \n tab\t"},
                  {"\u00e9t\u00e9", json::array({"\u2603", 1.5})}};
  t.system_attrs = {{"{\"k\": 1}", json::object({{"nested", "\\\""}})}};
  const auto made = storage->create_trial(s.id, t);
  const auto read = storage->trial(made.id);
  REQUIRE(read.has_value());
  CHECK(same_params(read->params, t.params));
  CHECK(read->user_attrs == t.user_attrs);
  CHECK(read->system_attrs.at("{\"k\": 1}") == t.system_attrs.at("{\"k\": 1}"));
  Attrs more = {{"x\\", "y\""}, {"z", nullptr}};
  REQUIRE(storage->finish_trial(made.id, {TrialState::kComplete, 1.0, more, {}}));
  CHECK(storage->trial(made.id)->user_attrs.at("x\\") == "y\"");
  CHECK(storage->trial(made.id)->user_attrs.at("z") == nullptr);
}

STORAGE_CONTRACT(multi_objective, "several objectives: one direction and one value row each") {
  Backend db;
  auto owned = db.open();
  Storage& storage = *owned;
  const std::vector<Direction> two = {Direction::kMaximize, Direction::kMinimize};
  const auto study = storage.get_or_create_study("pareto", two);
  CHECK(study.directions == two);
  CHECK(study.direction == Direction::kMaximize);
  CHECK(storage.get_or_create_study("pareto", two).id == study.id);
  CHECK(storage.find_study("pareto")->directions == two);
  // Another objective list is another study's: refused, naming both.
  CHECK_THROWS_WITH_AS(storage.get_or_create_study("pareto", Direction::kMaximize),
                       doctest::Contains("[MAXIMIZE, MINIMIZE], not MAXIMIZE"), StorageError);
  CHECK_THROWS_WITH_AS(
      storage.get_or_create_study("pareto", {Direction::kMinimize, Direction::kMinimize}),
      doctest::Contains("[MAXIMIZE, MINIMIZE]"), StorageError);

  const auto t = storage.create_trial(study.id, {});
  TrialOutcome outcome{TrialState::kComplete, 0.04, {}, {{"constraints", json{-0.1, 0.2}}}};
  outcome.values = {0.04, -kInfinity};
  REQUIRE(storage.finish_trial(t.id, outcome));
  const auto back = storage.trial(t.id);
  CHECK(back->values == std::vector<double>{0.04, -kInfinity});
  CHECK(*back->value == 0.04);
  CHECK(back->system_attrs.at("constraints") == json{-0.1, 0.2});
  CHECK(storage.trials(study.id).front().values == back->values);

  // A value that is not the first objective's, or a NaN one, stores nothing.
  const auto u = storage.create_trial(study.id, {});
  TrialOutcome bad{TrialState::kComplete, 1.0, {}, {}};
  bad.values = {2.0, 3.0};
  CHECK_THROWS_AS(storage.finish_trial(u.id, bad), StorageError);
  bad.values = {1.0, std::nan("")};
  CHECK_THROWS_AS(storage.finish_trial(u.id, bad), StorageError);
  CHECK(storage.trial(u.id)->state == TrialState::kRunning);
}

}  // namespace
}  // namespace hpo
