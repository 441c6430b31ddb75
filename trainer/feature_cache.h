// A cache of the panel-derived data every trial of a study shares: the
// features, labels and dates computed from one data file (or synthetic
// panel). Building them takes about a second per trial on the default panel;
// reading them back a small fraction of that.
//
// The cache is a directory of files, one per key, which hpo points trials at
// with HPO_CACHE_DIR (the runs directory's .cache). The key names what the
// data was built from: the data file's content (hashed), or the synthetic
// panel's spec; the label's spec; and this very hpo-trainer binary (hashed),
// so that a trainer whose feature code changed never reads what another
// built. A file is written under a temporary name and renamed into place, so
// a reader never sees a part; a reader checks the magic, the key, every
// length and a checksum, and anything off means "build it again".
//
// One trial builds an entry: it holds an exclusive flock on the entry's lock
// file while it builds and writes, and trials that want the same entry wait,
// then read what it wrote (FeatureCacheLock). A trial about to write also
// tidies the directory (tidy_feature_cache): temporary files of writers that
// died, and entries no trial has used for a week (old data, old trainers).
#ifndef HPO_TRAINER_FEATURE_CACHE_H_
#define HPO_TRAINER_FEATURE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "hpo/posix/unique_fd.h"
#include "trainer/config.h"
#include "trainer/data_summary.h"
#include "trainer/features.h"

namespace hpo::trainer {

// What dataset.cc builds from a panel before splitting it into samples.
struct PanelData {
  FeatureSet features;
  std::vector<std::string> dates;  // one per day
  std::vector<std::string> tickers;  // one per ticker
  DataSummary summary;  // what reading the data file dropped (empty for the synthetic panel)
  std::vector<float> oracle;  // synthetic panel only: the true expected return
  std::string source;  // for the log
};

// The cache key of `config`'s panel data, with `data_bytes` the content of
// its data file (unused for the synthetic panel): the caller parses the very
// bytes it hashed, so an entry never holds another content's features.
std::string feature_cache_key(const TrainerConfig& config, std::string_view data_bytes);

// The same, reading the data file itself (read_data_file's UsageError for
// one that cannot be read).
std::string feature_cache_key(const TrainerConfig& config);

// The file `key` is kept in under `dir`.
std::string feature_cache_path(const std::string& dir, const std::string& key);

// The cached data at `path` if it is whole and was written for `key`;
// otherwise nothing, with the reason in `why` (missing, another key, torn or
// corrupt).
std::optional<PanelData> read_feature_cache(const std::string& path, const std::string& key,
                                            std::string* why);

// Writes `data` to `path` for `key`, atomically; throws on an I/O error.
void write_feature_cache(const std::string& path, const std::string& key, const PanelData& data);

// Marks the entry at `path` used now (its mtime), so that tidying keeps it.
void touch_feature_cache(const std::string& path);

// How long an entry (or lock file) may go unused before tidy_feature_cache
// removes it; and how long after its last write a dead writer's temporary
// file is left, in case its PID is of another PID namespace sharing the
// directory (a live writer writes it continuously).
constexpr int64_t kUnusedEntrySeconds = 7 * 24 * 3600;
constexpr int64_t kDeadWriterSeconds = 60;

// Removes from cache directory `dir` what no trial will read: temporary
// files whose writer (the PID in their name) no longer runs on this host and
// that were last written kDeadWriterSeconds ago; entries whose mtime (set by
// every use) is kUnusedEntrySeconds old, but for `keep`, the entry the
// caller builds; and lock files as old that no one holds. A reader that has
// an entry mapped keeps reading it (unlinking a mapped file is safe).
// Returns the names removed.
std::vector<std::string> tidy_feature_cache(const std::string& dir, const std::string& keep);

// An exclusive flock on the lock file of the entry at `entry_path` (that path
// with ".lock"), held for the object's life: one trial builds the entry
// while others wait. The kernel releases it when its holder dies. Says on
// `log` when it waits. held() is false when the lock file cannot be made or
// locked (a read-only directory): the caller then builds without it.
class FeatureCacheLock {
 public:
  FeatureCacheLock(const std::string& entry_path, std::ostream* log);
  FeatureCacheLock(const FeatureCacheLock&) = delete;
  FeatureCacheLock& operator=(const FeatureCacheLock&) = delete;
  bool held() const { return fd_.valid(); }

 private:
  UniqueFd fd_;  // closing it releases the flock
};

// A 64-bit hash of bytes (FNV-1a's multiply, 8 bytes at a time), for keys
// and checksums: not cryptographic, but any change of content changes it
// with overwhelming likelihood.
constexpr uint64_t kHashSeed = 14695981039346656037ULL;
uint64_t hash64(const void* data, size_t size, uint64_t seed = kHashSeed);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_FEATURE_CACHE_H_
