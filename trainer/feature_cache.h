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
// trials that build the same entry at once leave one whole file; a reader
// checks the magic, the key, every length and a checksum, and anything off
// means "build it again".
#ifndef HPO_TRAINER_FEATURE_CACHE_H_
#define HPO_TRAINER_FEATURE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

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

// The cache key of `config`'s panel data; reads (and hashes) the data file.
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

// A 64-bit hash of bytes (FNV-1a's multiply, 8 bytes at a time), for keys
// and checksums: not cryptographic, but any change of content changes it
// with overwhelming likelihood.
constexpr uint64_t kHashSeed = 14695981039346656037ULL;
uint64_t hash64(const void* data, size_t size, uint64_t seed = kHashSeed);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_FEATURE_CACHE_H_
