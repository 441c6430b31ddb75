// The feature cache gives every trial exactly the data it would have built
// itself: after a round trip, after the data file changed (stale), when the
// cached file is torn or corrupt, and when trials build it at once.
#include "trainer/feature_cache.h"

#include <dirent.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/trainer/test_util.h"
#include "trainer/dataset.h"
#include "trainer/panel_memo.h"
#include "trainer/synthetic.h"

// After the torch headers: glog (pulled in by LibTorch) defines its own CHECK.
#include <doctest/doctest.h>

namespace hpo::trainer {
namespace {

using testing::TempDir;

TrainerConfig small_config() {
  TrainerConfig c;
  c.synthetic_tickers = 12;
  c.synthetic_days = 160;
  c.lookback = 5;
  return c;
}

// small_config() on a CSV panel written to `dir`, which `synthetic` holds.
TrainerConfig csv_config(const TempDir& dir, SyntheticPanel* synthetic) {
  SyntheticSpec spec;
  spec.tickers = 10;
  spec.days = 150;
  *synthetic = make_synthetic_panel(spec);
  TrainerConfig config = small_config();
  config.data = dir.file("panel.csv");
  write_panel_csv(synthetic->panel, config.data);
  return config;
}

bool same_samples(const std::vector<Sample>& a, const std::vector<Sample>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].ticker != b[i].ticker || a[i].day != b[i].day) return false;
  return true;
}

// Bitwise, NaN included: the cache must hand back what was built.
bool same_floats(const std::vector<float>& a, const std::vector<float>& b) {
  // memcmp may not be given the null data() of an empty vector, even for 0 bytes.
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

void check_same(const Dataset& got, const Dataset& want) {
  CHECK(got.features.num_tickers == want.features.num_tickers);
  CHECK(got.features.num_days == want.features.num_days);
  CHECK(got.features.names == want.features.names);
  CHECK(got.features.first_full_day == want.features.first_full_day);
  CHECK(got.features.label_spec.horizon == want.features.label_spec.horizon);
  CHECK(same_floats(got.features.values, want.features.values));
  CHECK(same_floats(got.features.label, want.features.label));
  CHECK(same_floats(got.features.target, want.features.target));
  CHECK(same_floats(got.features.daily_return, want.features.daily_return));
  CHECK(same_floats(got.oracle, want.oracle));
  CHECK(got.features.first_row == want.features.first_row);
  CHECK(got.features.min_names == want.features.min_names);
  CHECK(got.features.delisting_labels == want.features.delisting_labels);
  CHECK(got.dates == want.dates);
  CHECK(got.tickers == want.tickers);
  CHECK(got.summary.describe(64) == want.summary.describe(64));
  CHECK(got.skipped_days == want.skipped_days);
  CHECK(got.source == want.source);
  CHECK(same_samples(got.train, want.train));
  CHECK(same_samples(got.valid, want.valid));
  CHECK(same_samples(got.test, want.test));
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  return names;
}

TEST_CASE("feature cache: a cached dataset is the one built afresh") {
  TempDir dir;
  const TrainerConfig config = small_config();
  const Dataset fresh = load_dataset(config);
  std::ostringstream log;
  check_same(load_dataset(config, dir.path(), &log), fresh);  // builds and writes
  CHECK(log.str().find("features: built and cached in") != std::string::npos);
  log.str("");
  check_same(load_dataset(config, dir.path(), &log), fresh);  // reads
  CHECK(log.str().find("features: from the cache") != std::string::npos);
  CHECK(files_in(dir.path()).size() == 1);

  // Another label is other data: its own entry, its own values.
  TrainerConfig other = config;
  other.horizon = 3;
  CHECK(feature_cache_key(other) != feature_cache_key(config));
  check_same(load_dataset(other, dir.path()), load_dataset(other));
  CHECK(files_in(dir.path()).size() == 2);
}

TEST_CASE("feature cache: the checksum is hash64 of the bytes before it, at any alignment") {
  // The writer checksums the fields as it writes them; keys of every length
  // mod 8 start the arrays after them at every offset within a hash word.
  TempDir dir;
  const Dataset d = load_dataset(small_config());
  const PanelData data{d.features, d.dates, d.tickers, d.summary, d.oracle, d.source};
  for (size_t length = 0; length <= 16; ++length) {
    const std::string key(length, 'k'), path = dir.file("entry-" + std::to_string(length));
    CAPTURE(length);
    write_feature_cache(path, key, data);
    const std::string whole = testing::read_file(path);
    REQUIRE(whole.size() > 8);
    uint64_t stored;
    std::memcpy(&stored, whole.data() + whole.size() - 8, 8);
    CHECK(stored == hash64(whole.data(), whole.size() - 8));
    std::string why;
    CHECK(read_feature_cache(path, key, &why).has_value());
  }
}

TEST_CASE("feature cache: a changed data file is never served from the old entry") {
  TempDir dir;
  SyntheticPanel synthetic;
  const TrainerConfig config = csv_config(dir, &synthetic);
  const std::string cache = dir.file("cache");
  check_same(load_dataset(config, cache), load_dataset(config));

  // The calendar's settings are part of the key: they change the grid.
  TrainerConfig floor = config;
  floor.min_names = 7;
  CHECK(feature_cache_key(floor) != feature_cache_key(config));
  TrainerConfig spelling = config;
  spelling.date_format = "%d.%m.%Y";
  CHECK(feature_cache_key(spelling) != feature_cache_key(config));

  // The same file name, one price changed: the cache must rebuild.
  synthetic.panel.close[synthetic.panel.index(3, 120)] *= 1.5;
  write_panel_csv(synthetic.panel, config.data);
  const Dataset fresh = load_dataset(config);
  std::ostringstream log;
  const Dataset got = load_dataset(config, cache, &log);
  CHECK(log.str().find("built and cached") != std::string::npos);
  check_same(got, fresh);
}

// A server keeps the last panel data in memory (panel_memo.h): a later trial
// on the same data gets it from there, any other data is loaded afresh.
TEST_CASE("feature cache: a server's memo hands back only the data asked for") {
  struct MemoOn {
    MemoOn() { set_panel_memo(true); }
    ~MemoOn() { set_panel_memo(false); }
  } memo_on;
  TempDir dir;
  SyntheticPanel synthetic;
  const TrainerConfig config = csv_config(dir, &synthetic);
  const std::string cache = dir.file("cache");
  // A trial: loads its data, and gives it back when done.
  const auto load = [&](const TrainerConfig& c, const char* expected) {
    std::ostringstream log;
    Dataset d = load_dataset(c, cache, &log);
    check_same(d, load_dataset(c));
    CHECK_MESSAGE(log.str().find(expected) != std::string::npos, log.str());
    give_back(std::move(d));
  };
  load(config, "built and cached");
  load(config, "kept in memory");
  load(config, "kept in memory");  // what was given back is the data, whole
  // A trial that ends without giving its data back (an exception): the next
  // reads the cache file.
  load_dataset(config, cache);
  load(config, "from the cache");
  load(config, "kept in memory");
  TrainerConfig other = config;
  other.horizon = 3;
  load(other, "built and cached");
  load(other, "kept in memory");
  load(config, "from the cache");  // only the last entry is kept
  // The same file name, one price changed: read afresh, not from memory.
  synthetic.panel.close[synthetic.panel.index(3, 120)] *= 1.5;
  write_panel_csv(synthetic.panel, config.data);
  load(config, "built and cached");
  // Another cache directory is another entry.
  std::ostringstream log;
  load_dataset(config, dir.file("cache2"), &log);
  CHECK(log.str().find("kept in memory") == std::string::npos);
}

// What the calendar dropped is said on every run, also one served from the
// cache: the summary travels with the features.
TEST_CASE("feature cache: the data summary and its warning come back from the cache") {
  TempDir dir;
  SyntheticSpec spec;
  spec.tickers = 10;
  spec.days = 150;
  Panel panel = make_synthetic_panel(spec).panel;
  TrainerConfig config = small_config();
  config.data = dir.file("panel.csv");
  write_panel_csv(panel, config.data);
  std::ofstream(config.data, std::ios::app)
      << "2015-01-10,T0001,1,1,1,1,1\n"  // a Saturday
      << "2015-01-11,T0002,1,1,2,1,1\n";  // a Sunday, high below low
  const std::string cache = dir.file("cache");
  std::ostringstream built, cached;
  const Dataset fresh = load_dataset(config, cache, &built);
  const Dataset again = load_dataset(config, cache, &cached);
  CHECK(cached.str().find("features: from the cache") != std::string::npos);
  CHECK(fresh.summary.thin_dates == 2);
  CHECK(again.summary.thin_dates == 2);
  CHECK(fresh.summary.inconsistent_rows == 1);
  CHECK(again.summary.inconsistent_rows == 1);
  CHECK(again.summary.first_inconsistent_line == fresh.summary.first_inconsistent_line);
  // The weekend rows' price of 1 is a jump from their names' closes of 10 to 200.
  CHECK(fresh.summary.price_jumps >= 2);
  CHECK(again.summary.price_jumps == fresh.summary.price_jumps);
  CHECK(again.summary.first_jump_line == fresh.summary.first_jump_line);
  for (const std::string& log : {built.str(), cached.str()})
    CHECK(log.find("warning: data: dropped 2 dates (2 rows) traded by fewer than 5 names") !=
          std::string::npos);
  check_same(again, fresh);
}

TEST_CASE("feature cache: a torn or corrupt entry is rebuilt, never read") {
  TempDir dir;
  const TrainerConfig config = small_config();
  const Dataset fresh = load_dataset(config);
  const std::string key = feature_cache_key(config);
  const std::string path = feature_cache_path(dir.path(), key);
  load_dataset(config, dir.path());
  const std::string whole = testing::read_file(path);
  REQUIRE(whole.size() > 1000);

  const std::vector<std::pair<const char*, std::string>> damages = {
      {"truncated", whole.substr(0, whole.size() / 2)},
      {"one byte flipped",
       [&] {
         std::string b = whole;
         b[b.size() / 2] ^= 0x10;
         return b;
       }()},
      {"garbage", std::string(4096, 'x')},
      {"empty", ""},
      {"a length past the end, checksum fixed",
       [&] {
         std::string b = whole.substr(0, whole.size() - 8);
         const uint64_t huge = ~uint64_t(0) / 2;
         std::memcpy(&b[8], &huge, 8);  // the key's length
         const uint64_t sum = hash64(b.data(), b.size());
         b.append(reinterpret_cast<const char*>(&sum), 8);
         return b;
       }()},
  };
  for (const auto& [what, bytes] : damages) {
    CAPTURE(what);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    std::string why;
    CHECK_FALSE(read_feature_cache(path, key, &why).has_value());
    CHECK_FALSE(why.empty());
    check_same(load_dataset(config, dir.path()), fresh);
    CHECK(testing::read_file(path) == whole);  // rebuilt in place
  }
}

TEST_CASE("feature cache: trials building one entry at once all get whole data") {
  TempDir dir;
  const TrainerConfig config = small_config();
  const Dataset fresh = load_dataset(config);
  std::vector<Dataset> got(6);
  std::vector<std::thread> trials;
  for (Dataset& d : got) trials.emplace_back([&] { d = load_dataset(config, dir.path()); });
  for (std::thread& t : trials) t.join();
  for (const Dataset& d : got) check_same(d, fresh);
  // One entry, no temporary files left behind, and it reads back whole.
  CHECK(files_in(dir.path()).size() == 1);
  std::string why;
  CHECK(read_feature_cache(feature_cache_path(dir.path(), feature_cache_key(config)),
                           feature_cache_key(config), &why)
            .has_value());
}

}  // namespace
}  // namespace hpo::trainer
