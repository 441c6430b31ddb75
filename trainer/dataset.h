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
  std::vector<FoldData> folds;  // with cross-validation (config cv_scheme), one per fold
  // Synthetic panel only: the true expected return (tickers x days).
  std::vector<float> oracle;
  std::string source;  // for the log
};

// Builds features, splits and samples from `panel`; `first_day` leaves room
// for the longest feature window and the lookback.
Dataset make_dataset(const Panel& panel, const TrainerConfig& config);

// Splits already computed panel data into samples, as make_dataset does.
Dataset make_dataset(PanelData data, const TrainerConfig& config);

// Reads config.data, or generates the synthetic panel when it is empty. With
// a `cache_dir`, the panel data comes from the feature cache there when it
// holds this config's (feature_cache.h), and goes there otherwise; `log`
// says which.
Dataset load_dataset(const TrainerConfig& config, const std::string& cache_dir = "",
                     std::ostream* log = nullptr);

// Scores `pred` (one value per sample, in order) on `samples`, with the
// daily portfolio net of `cost_bps` per unit of turnover.
Scores score_samples(const FeatureSet& fs, const std::vector<Sample>& samples,
                     const std::vector<float>& pred, double cost_bps = kDefaultCostBps);

// The oracle's scores on `samples` (the synthetic panel's true expected return).
Scores oracle_scores(const Dataset& data, const std::vector<Sample>& samples,
                     double cost_bps = kDefaultCostBps);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_DATASET_H_
