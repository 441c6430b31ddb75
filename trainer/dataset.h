// The data a trial trains on: features, labels and the three sample lists,
// built from the CSV named in the config or from the synthetic panel.
#ifndef HPO_TRAINER_DATASET_H_
#define HPO_TRAINER_DATASET_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "trainer/config.h"
#include "trainer/cv.h"
#include "trainer/feature_cache.h"
#include "trainer/features.h"
#include "trainer/metrics.h"
#include "trainer/panel.h"
#include "trainer/portfolio.h"
#include "trainer/splits.h"

namespace hpo::trainer {

// One cross-validation fold's days and samples.
struct FoldData {
  Fold days;
  std::vector<Sample> train, valid;
  std::vector<Sample> select;  // picks the epoch; empty: valid does (selection.h)
};

struct Dataset {
  FeatureSet features;
  Splits splits;
  std::vector<Sample> train, valid, test;
  // With epoch_select_frac > 0, the first part of the validation block, which
  // picks the epoch, and `valid` is the rest; empty otherwise (selection.h).
  std::vector<Sample> select;
  std::vector<std::string> dates;  // the panel's, one per day (ISO)
  std::vector<std::string> tickers;  // the panel's, one per ticker
  DataSummary summary;  // what reading the data file dropped, and why
  std::vector<FoldData> folds;  // with cross-validation (config cv_scheme), one per fold
  // Days inside a split with no sample (fewer than min_names names), which
  // the portfolio holds its book through (portfolio.h); ascending.
  std::vector<uint32_t> skipped_days;
  // Synthetic panel only: the true expected return (tickers x days).
  std::vector<float> oracle;
  std::string source;  // for the log
  // A server's: the panel memo's name for this data (panel_memo.h), which
  // give_back returns it under; empty without a feature cache.
  std::string memo_id;
};

// A 64-bit hash of what the data holds (its features, labels and dates): a
// checkpoint records it, so that a run is never resumed on data that changed
// since (a corrected price file at the same path).
uint64_t data_fingerprint(const Dataset& data);

// Builds features, splits and samples from `panel` (read and put on its
// calendar already); `first_day` leaves room for the longest feature window
// and the lookback, and each ticker's samples start after its own warm-up.
Dataset make_dataset(const Panel& panel, const TrainerConfig& config);

// Splits already computed panel data into samples, as make_dataset does.
Dataset make_dataset(PanelData data, const TrainerConfig& config);

// Throws UsageError, naming the data, the block and its dates, when a block
// the run trains on or scores has no sample: the train, validation and test
// blocks, or each cross-validation fold's and the test block. A window
// without a scoreable day scored a RankIC of 0 that a study took for a result.
// --export-features does not call it: it writes what there is.
void require_scoreable(const Dataset& data, const TrainerConfig& config);

// Reads config.data, or generates the synthetic panel when it is empty. With
// a `cache_dir`, the panel data comes from the feature cache there when it
// holds this config's (feature_cache.h), and goes there otherwise; `log`
// says which.
Dataset load_dataset(const TrainerConfig& config, const std::string& cache_dir = "",
                     std::ostream* log = nullptr);

// Gives a trial's panel data, unchanged, back to a server's memo
// (panel_memo.h) for its next trial; nothing where the memo is off.
void give_back(Dataset&& data);

// Scores `pred` (one value per sample, in order) on `samples`, with the
// daily portfolio net of `cost_bps` per unit of turnover, held through the
// `skipped` days between scored days; days of fewer than fs.min_names samples
// are not scored.
Scores score_samples(const FeatureSet& fs, const std::vector<Sample>& samples,
                     const std::vector<float>& pred, double cost_bps = kDefaultCostBps,
                     const std::vector<uint32_t>& skipped = {});

// The oracle's scores on `samples` (the synthetic panel's true expected return).
Scores oracle_scores(const Dataset& data, const std::vector<Sample>& samples,
                     double cost_bps = kDefaultCostBps);

// The "data:" line's account of the data file: what was read, dropped and why
// (DataSummary::describe); empty for the synthetic panel.
std::string data_summary_line(const Dataset& data, const TrainerConfig& config);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_DATASET_H_
