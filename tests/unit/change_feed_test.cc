#include "hpo/run/change_feed.h"

#include <doctest/doctest.h>

#include "hpo/storage/sqlite_storage.h"
#include "tests/unit/temp_dir.h"

namespace hpo {
namespace {

std::vector<int> numbers(const std::vector<TrialRecord>& trials) {
  std::vector<int> out;
  for (const auto& t : trials) out.push_back(t.number);
  return out;
}

TEST_CASE("a change feed returns everything first, then only what may have changed") {
  TempDir dir;
  SqliteStorage storage(dir.path() + "/feed.db");
  const auto study = storage.get_or_create_study("s", Direction::kMinimize);
  const auto other = storage.get_or_create_study("other", Direction::kMinimize);
  const auto t0 = storage.create_trial(study.id, {});
  const auto t1 = storage.create_trial(study.id, {});
  TrialOutcome done;
  done.value = 1.0;
  storage.finish_trial(t0.id, done);

  ChangeFeed feed(study.id);
  CHECK(numbers(feed.next(storage)) == std::vector<int>{0, 1});
  // t1 is still running: it may change, so it comes again; t0 never does.
  CHECK(numbers(feed.next(storage)) == std::vector<int>{1});

  storage.set_intermediate_value(t1.id, 3, 0.5);
  storage.create_trial(other.id, {});  // another study's trial is not ours
  const auto t2 = storage.create_trial(study.id, {});
  const auto changed = feed.next(storage);
  REQUIRE(numbers(changed) == std::vector<int>{1, 2});
  CHECK(changed[0].intermediate.at(3) == 0.5);

  storage.finish_trial(t1.id, done);
  storage.finish_trial(t2.id, done);
  CHECK(numbers(feed.next(storage)) == std::vector<int>{1, 2});  // seen finishing
  CHECK(feed.next(storage).empty());  // then never again
}

}  // namespace
}  // namespace hpo
