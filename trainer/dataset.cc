#include "trainer/dataset.h"

#include <fmt/format.h>

#include "trainer/synthetic.h"

namespace hpo::trainer {

namespace {

// Keeps every k-th date of `samples` (whole cross-sections, so daily scores
// stay meaningful) with k the smallest that leaves at most `max` samples.
std::vector<Sample> thin_dates(const std::vector<Sample>& samples, const DayRange& range, int64_t max) {
  if (max <= 0 || int64_t(samples.size()) <= max) return samples;
  // Every k-th date keeps about 1/k of the samples, but rounding up the
  // dates can keep a little more: try the next k until it fits.
  for (size_t k = (samples.size() + size_t(max) - 1) / size_t(max);; ++k) {
    std::vector<Sample> out;
    for (const Sample& s : samples)
      if ((s.day - range.begin) % k == 0) out.push_back(s);
    if (int64_t(out.size()) <= max) return out;
  }
}

}  // namespace

Dataset make_dataset(const Panel& panel, const TrainerConfig& config) {
  Dataset d;
  const LabelSpec label{config.horizon, label_entry_named(config.label_entry).value()};
  d.features = compute_features(panel, label);
  const size_t first_day = kLongestWindow + size_t(config.lookback) - 1;
  d.splits = make_splits(panel.num_days(), first_day, label_reach(label), config.train_frac, config.valid_frac);
  d.train = samples_in(d.features, d.splits.train);
  d.valid = thin_dates(samples_in(d.features, d.splits.valid), d.splits.valid, config.max_valid_samples);
  d.test = samples_in(d.features, d.splits.test);
  return d;
}

Dataset load_dataset(const TrainerConfig& config) {
  if (!config.data.empty()) {
    Dataset d = make_dataset(read_panel_csv(config.data), config);
    d.source = config.data;
    return d;
  }
  SyntheticSpec spec;
  spec.tickers = config.synthetic_tickers;
  spec.days = config.synthetic_days;
  spec.seed = config.synthetic_seed;
  SyntheticPanel synthetic = make_synthetic_panel(spec);
  Dataset d = make_dataset(synthetic.panel, config);
  d.oracle = std::move(synthetic.expected_return);
  d.source = fmt::format("synthetic panel ({} tickers x {} days, seed {})", spec.tickers, spec.days, spec.seed);
  return d;
}

Scores score_samples(const FeatureSet& fs, const std::vector<Sample>& samples, const std::vector<float>& pred) {
  std::vector<float> label, target;
  std::vector<uint32_t> day;
  for (const Sample& s : samples) {
    label.push_back(fs.label[fs.cell(s.ticker, s.day)]);
    target.push_back(fs.target[fs.cell(s.ticker, s.day)]);
    day.push_back(s.day);
  }
  return score(pred, label, target, day, fs.label_spec.horizon);
}

Scores oracle_scores(const Dataset& data, const std::vector<Sample>& samples) {
  std::vector<float> pred;
  for (const Sample& s : samples) pred.push_back(data.oracle[data.features.cell(s.ticker, s.day)]);
  return score_samples(data.features, samples, pred);
}

}  // namespace hpo::trainer
