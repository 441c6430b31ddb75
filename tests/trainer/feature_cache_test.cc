// The feature cache gives every trial exactly the data it would have built
// itself: after a round trip, after the data file changed (stale), when the
// cached file is torn or corrupt, and when trials build it at once (one
// builds, the others wait and read it). Bad data paths are the usage errors
// they are without it; stale files go, files in use stay.
#include "trainer/feature_cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/trainer/test_util.h"
#include "trainer/dataset.h"
#include "trainer/error.h"
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

// The cache's files but its lock files, which stay for the next build.
std::vector<std::string> cache_files(const std::string& dir) {
  std::vector<std::string> names = files_in(dir);
  names.erase(std::remove_if(names.begin(), names.end(),
                             [](const std::string& n) {
                               return n.size() > 5 && n.compare(n.size() - 5, 5, ".lock") == 0;
                             }),
              names.end());
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
  CHECK(cache_files(dir.path()).size() == 1);

  // Another label is other data: its own entry, its own values.
  TrainerConfig other = config;
  other.horizon = 3;
  CHECK(feature_cache_key(other) != feature_cache_key(config));
  check_same(load_dataset(other, dir.path()), load_dataset(other));
  CHECK(cache_files(dir.path()).size() == 2);
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

TEST_CASE("feature cache: trials building one entry at once: one builds, the others read it") {
  TempDir dir;
  const TrainerConfig config = small_config();
  const Dataset fresh = load_dataset(config);
  std::vector<Dataset> got(6);
  std::vector<std::ostringstream> logs(got.size());
  std::vector<std::thread> trials;
  for (size_t k = 0; k < got.size(); ++k)
    trials.emplace_back([&, k] { got[k] = load_dataset(config, dir.path(), &logs[k]); });
  for (std::thread& t : trials) t.join();
  for (const Dataset& d : got) check_same(d, fresh);
  // The entry's lock lets one trial build; the others wait and read it.
  size_t built = 0, read = 0;
  for (const std::ostringstream& log : logs) {
    built += log.str().find("features: built and cached") != std::string::npos;
    read += log.str().find("features: from the cache") != std::string::npos;
  }
  CHECK(built == 1);
  CHECK(read == got.size() - 1);
  // One entry, no temporary files left behind, and it reads back whole.
  CHECK(cache_files(dir.path()).size() == 1);
  std::string why;
  CHECK(read_feature_cache(feature_cache_path(dir.path(), feature_cache_key(config)),
                           feature_cache_key(config), &why)
            .has_value());
}

// A data path that is a directory is the usage error it is without the
// cache (exit 2 naming the file), not a crash on its size.
TEST_CASE("feature cache: a directory as data is a usage error naming it, as without the cache") {
  TempDir dir;
  TrainerConfig config = small_config();
  config.data = dir.file("ddir");
  REQUIRE(::mkdir(config.data.c_str(), 0755) == 0);
  const std::string expected = config.data + ": cannot open the data file: it is a directory";
  CHECK_THROWS_WITH_AS(load_dataset(config), expected.c_str(), UsageError);
  CHECK_THROWS_WITH_AS(load_dataset(config, dir.file("cache")), expected.c_str(), UsageError);
  config.data = dir.file("missing.csv");
  CHECK_THROWS_WITH_AS(
      load_dataset(config, dir.file("cache")),
      (config.data + ": cannot open the data file: No such file or directory").c_str(), UsageError);
}

// The opens of `path` that `run` makes, counted by inotify (watching the
// closes too: it merges an event into an identical one just before it).
size_t opens_of(const std::string& path, const std::function<void()>& run) {
  const int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(inotify_add_watch(fd, path.c_str(), IN_OPEN | IN_CLOSE) >= 0);
  run();
  size_t opens = 0;
  alignas(inotify_event) char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
    for (char* p = buf; p < buf + n;
         p += sizeof(inotify_event) + reinterpret_cast<inotify_event*>(p)->len)
      opens += (reinterpret_cast<inotify_event*>(p)->mask & IN_OPEN) != 0;
  ::close(fd);
  return opens;
}

// A trial parses the very bytes its key hashed: reading the file twice (to
// hash, then to parse) cached a file replaced in between under the old
// content's key. Read once, no replacement can come between.
TEST_CASE("feature cache: a trial reads its data file once, hashing the bytes it parses") {
  TempDir dir;
  SyntheticPanel synthetic;
  const TrainerConfig config = csv_config(dir, &synthetic);
  const std::string cache = dir.file("cache");
  std::ostringstream log;
  CHECK(opens_of(config.data, [&] { load_dataset(config, cache, &log); }) == 1);
  CHECK(log.str().find("built and cached") != std::string::npos);
  CHECK(opens_of(config.data, [&] {
          check_same(load_dataset(config, cache), load_dataset(config));
        }) == 2);  // cached, then afresh
}

// A server keeps one panel between trials (panel_memo.h); a trial on other
// data must not hold it besides its own: it is dropped as that trial starts.
TEST_CASE("feature cache: a server's trial on other data drops the kept panel") {
  struct MemoOn {
    MemoOn() { set_panel_memo(true); }
    ~MemoOn() { set_panel_memo(false); }
  } memo_on;
  TempDir dir;
  const TrainerConfig config = small_config();
  TrainerConfig other = config;
  other.horizon = 3;
  give_back(load_dataset(config, dir.path()));
  REQUIRE(panel_memo_holds_data());
  Dataset d = load_dataset(other, dir.path());  // builds its own
  CHECK_FALSE(panel_memo_holds_data());
  give_back(std::move(d));
  CHECK(panel_memo_holds_data());
  std::ostringstream log;
  give_back(load_dataset(other, dir.path(), &log));
  CHECK(log.str().find("kept in memory") != std::string::npos);
}

// Sets `path`'s mtime `seconds` before now.
void age(const std::string& path, int64_t seconds) {
  const timespec when[2] = {{std::time(nullptr) - seconds, 0}, {std::time(nullptr) - seconds, 0}};
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), when, 0) == 0);
}

// A PID no process has: a child's, reaped.
pid_t dead_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST_CASE("feature cache: a write removes dead writers' files and entries unused for a week") {
  TempDir dir;
  const std::string cache = dir.file("cache");
  REQUIRE(::mkdir(cache.c_str(), 0755) == 0);
  const int64_t week = kUnusedEntrySeconds, minute = kDeadWriterSeconds;
  const std::string dead = "features-aa.bin.tmp." + std::to_string(dead_pid()) + ".7";
  const std::string dying = "features-ab.bin.tmp." + std::to_string(dead_pid()) + ".7";
  const std::string live = "features-ac.bin.tmp." + std::to_string(::getpid()) + ".7";
  const std::vector<std::pair<std::string, int64_t>> files = {
      {dead, minute + 5},  // killed mid-write: goes
      {dying, 0},  // dead, but written just now: left a minute (another PID namespace)
      {live, week + 5},  // a live writer's: stays
      {"features-b1.bin", week + 5},  // unused for a week: goes
      {"features-b2.bin", week - 3600},  // used within the week: stays
      {"features-c1.bin.lock", week + 5},  // an old lock no one holds: goes
      {"features-c2.bin.lock", week + 5},  // held (below): stays
      {"notes.txt", week + 5},  // not the cache's: stays
  };
  for (const auto& [name, seconds] : files) {
    std::ofstream(cache + "/" + name) << "x";
    age(cache + "/" + name, seconds);
  }
  const int held = ::open((cache + "/features-c2.bin.lock").c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(::flock(held, LOCK_EX | LOCK_NB) == 0);

  // A reader that has an entry mapped keeps reading it after it is removed.
  const TrainerConfig config = small_config();
  TrainerConfig other = config;
  other.horizon = 3;
  load_dataset(config, cache);
  const std::string entry = feature_cache_path(cache, feature_cache_key(config));
  age(entry, week + 5);
  std::ostringstream log;
  load_dataset(other, cache, &log);  // a write: tidies
  ::close(held);
  const std::vector<std::string> left = files_in(cache);
  CAPTURE(log.str());
  for (const std::string& gone :
       {dead, std::string("features-b1.bin"), std::string("features-c1.bin.lock")})
    CHECK_MESSAGE(!has(left, gone), gone);
  for (const std::string& stays : {dying, live, std::string("features-b2.bin"),
                                   std::string("features-c2.bin.lock"), std::string("notes.txt")})
    CHECK_MESSAGE(has(left, stays), stays);
  CHECK(!has(left, entry.substr(cache.size() + 1)));  // config's, unused for a week
  CHECK(log.str().find("features: removed stale cache files: ") != std::string::npos);
  CHECK(cache_files(cache).size() == 4 + 1);  // what stays, and other's entry
}

// Every use of an entry marks it used, so that tidying never removes one a
// study still reads (by the cache file, or from a server's memory).
TEST_CASE("feature cache: an entry in use is never tidied away") {
  TempDir dir;
  const TrainerConfig config = small_config();
  const std::string entry = feature_cache_path(dir.path(), feature_cache_key(config));
  const auto is_fresh = [&] {
    struct stat st;
    return ::stat(entry.c_str(), &st) == 0 && std::time(nullptr) - st.st_mtime < 3600;
  };
  load_dataset(config, dir.path());
  age(entry, kUnusedEntrySeconds + 5);
  load_dataset(config, dir.path());  // read from the file
  CHECK(is_fresh());
  {
    struct MemoOn {
      MemoOn() { set_panel_memo(true); }
      ~MemoOn() { set_panel_memo(false); }
    } memo_on;
    give_back(load_dataset(config, dir.path()));
    age(entry, kUnusedEntrySeconds + 5);
    std::ostringstream log;
    give_back(load_dataset(config, dir.path(), &log));  // from memory
    CHECK(log.str().find("kept in memory") != std::string::npos);
    CHECK(is_fresh());
  }
  TrainerConfig other = config;
  other.horizon = 3;
  load_dataset(other, dir.path());  // a write: tidies
  CHECK(is_fresh());
}

}  // namespace
}  // namespace hpo::trainer
