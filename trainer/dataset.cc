#include "trainer/dataset.h"

#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <future>
#include <tuple>
#include <utility>

#include "trainer/calendar.h"
#include "trainer/error.h"
#include "trainer/panel_memo.h"
#include "trainer/selection.h"
#include "trainer/synthetic.h"

namespace hpo::trainer {

namespace {

// The samples of validation block `block`: with epoch_select_frac, its first
// part into `select` and the rest into `valid`; otherwise all into `valid`.
void validation_samples(const FeatureSet& fs, const DayRange& block, const TrainerConfig& config,
                        std::vector<Sample>* select, std::vector<Sample>* valid) {
  auto in = [&](const DayRange& r) {
    return thin_dates(samples_in(fs, r, size_t(config.lookback)), r, config.max_valid_samples);
  };
  if (config.epoch_select_frac <= 0) {
    *valid = in(block);
    return;
  }
  const ValidationParts parts =
      split_validation(block, label_reach(fs.label_spec), config.epoch_select_frac);
  *select = in(parts.select);
  *valid = in(parts.report);
}

// The days from the first training day to the last test day that have no
// sample. The gaps between the blocks count too: a cross-validation fold's
// validation block covers the single split's gap days, and a thin day missing
// here dropped out of that fold's daily series with its return.
std::vector<uint32_t> days_without_samples(const FeatureSet& fs, const Splits& splits,
                                           size_t lookback) {
  const DayRange all{splits.train.begin, std::max(splits.train.end, splits.test.end)};
  std::vector<bool> has(all.size(), false);
  for (const Sample& s : samples_in(fs, all, lookback)) has[s.day - all.begin] = true;
  std::vector<uint32_t> out;
  for (size_t k = 0; k < has.size(); ++k)
    if (!has[k]) out.push_back(uint32_t(all.begin + k));
  return out;
}

// How errors name the data: its file, or the synthetic panel's spec.
std::string source_name(const Dataset& d) { return d.source.empty() ? "data" : d.source; }

// Throws UsageError when `samples`, the block `what` over `ranges`, are
// none: a window without a scoreable day averaged no day's RankIC into 0,
// which a study ranked as a real result.
void require_samples(const Dataset& d, const std::vector<Sample>& samples, const std::string& what,
                     const std::vector<DayRange>& ranges, const TrainerConfig& config) {
  if (!samples.empty()) return;
  std::string span;
  size_t days = 0;
  for (const DayRange& r : ranges) {
    if (r.size() == 0) continue;
    span += fmt::format("{}{} to {}", span.empty() ? "" : " and ", d.dates.at(r.begin),
                        d.dates.at(r.end - 1));
    days += r.size();
  }
  throw UsageError(fmt::format(
      "{}: the {} block ({}, {} day(s)) has no day on which {} or more names (min_names) are "
      "past their warm-up with a label, so it has nothing to {}; lower min_names, or move the "
      "block (train_frac, valid_frac, cv_folds) to days more names trade",
      source_name(d), what, span.empty() ? "no dates" : span, days, config.min_names,
      what.find("training") != std::string::npos ? "train on" : "score"));
}

}  // namespace

namespace {

PanelData panel_data(const Panel& panel, const TrainerConfig& config) {
  PanelData p;
  const LabelSpec label{config.horizon, label_entry_named(config.label_entry).value()};
  // On the trial's intra-op threads: this build is the first trial's wait,
  // with the card idle on a GPU slot.
  p.features = compute_features(panel, label, size_t(config.min_names),
                                size_t(std::max(1, at::get_num_threads())));
  p.dates = panel.dates;
  p.tickers = panel.tickers;
  p.summary = panel.summary;
  p.summary.delisting_labels = p.features.delisting_labels;
  return p;
}

// The panel of `config`'s CSV: parsed from `bytes`, its content as the
// caller read it, which go as soon as parsed; or read from the file without.
Panel read_panel(const TrainerConfig& config, std::string* bytes) {
  if (!bytes) return read_panel_csv(config.data, config.date_format);
  Panel panel = parse_panel_csv(config.data, *bytes, config.date_format);
  std::string().swap(*bytes);  // before the features take their memory
  return panel;
}

// The panel data of `config` computed afresh: from its CSV (its `bytes`
// where the caller read them) or the synthetic panel.
PanelData build_panel_data(const TrainerConfig& config, std::string* bytes = nullptr) {
  if (!config.data.empty()) {
    Panel panel = read_panel(config, bytes);
    apply_calendar(&panel, size_t(config.min_names));
    PanelData p = panel_data(panel, config);
    p.source = config.data;
    return p;
  }
  SyntheticSpec spec;
  spec.tickers = config.synthetic_tickers;
  spec.days = config.synthetic_days;
  spec.seed = config.synthetic_seed;
  spec.signal = signal_named(config.signal_strength).value();
  SyntheticPanel synthetic = make_synthetic_panel(spec);
  PanelData p = panel_data(synthetic.panel, config);
  p.oracle = std::move(synthetic.planted_score);
  p.source = fmt::format("synthetic panel ({} tickers x {} days, seed {}, signal_strength {})",
                         spec.tickers, spec.days, spec.seed, config.signal_strength);
  return p;
}

}  // namespace

uint64_t data_fingerprint(const Dataset& data) {
  const FeatureSet& f = data.features;
  uint64_t h = hash64(f.values.data(), f.values.size() * sizeof(float));
  h = hash64(f.label.data(), f.label.size() * sizeof(float), h);
  for (const std::string& d : data.dates) h = hash64(d.data(), d.size(), h);
  for (const std::string& t : data.tickers) h = hash64(t.data(), t.size(), h);
  return h;
}

Dataset make_dataset(const Panel& panel, const TrainerConfig& config) {
  return make_dataset(panel_data(panel, config), config);
}

void require_scoreable(const Dataset& d, const TrainerConfig& config) {
  if (d.folds.empty()) {
    // An empty epoch-selection part is no refusal: the run picks on `valid`.
    require_samples(d, d.train, "training", {d.splits.train}, config);
    require_samples(d, d.valid, "validation", {d.splits.valid}, config);
  }
  for (size_t k = 0; k < d.folds.size(); ++k) {
    const FoldData& f = d.folds[k];
    require_samples(d, f.train, fmt::format("fold {} training", k + 1), f.days.train, config);
    require_samples(d, f.valid, fmt::format("fold {} validation", k + 1), {f.days.valid},
                    config);  // a fold without selection days picks on these
  }
  require_samples(d, d.test, "test", {d.splits.test}, config);
}

Dataset make_dataset(PanelData data, const TrainerConfig& config) {
  Dataset d;
  d.features = std::move(data.features);
  d.dates = std::move(data.dates);
  d.tickers = std::move(data.tickers);
  d.summary = std::move(data.summary);
  d.oracle = std::move(data.oracle);
  d.source = std::move(data.source);
  const LabelSpec& label = d.features.label_spec;
  const size_t first_day = kLongestWindow + size_t(config.lookback) - 1;
  // Dates traded by fewer than min_names names are dropped before the splits:
  // with all of them gone, "0 days" would not say why.
  if (d.dates.empty() && d.summary.thin_dates > 0) {
    throw UsageError(fmt::format(
        "{}: each of its {} dates has fewer than min_names ({}) names trading, so none is "
        "left; lower min_names or add names",
        d.source, d.summary.thin_dates, d.summary.min_names));
  }
  d.splits = make_splits(d.dates.size(), first_day, label_reach(label), config.train_frac,
                         config.valid_frac, source_name(d));
  d.train = samples_in(d.features, d.splits.train, size_t(config.lookback));
  validation_samples(d.features, d.splits.valid, config, &d.select, &d.valid);
  d.test = samples_in(d.features, d.splits.test, size_t(config.lookback));
  d.skipped_days = days_without_samples(d.features, d.splits, size_t(config.lookback));
  const CvSpec cv = cv_spec(config);
  if (!cv.enabled()) return d;
  for (const Fold& fold : make_folds(d.splits, label_reach(label), cv)) {
    FoldData f{fold, {}, {}, {}};
    for (const DayRange& r : fold.train) {
      std::vector<Sample> part = samples_in(d.features, r, size_t(config.lookback));
      f.train.insert(f.train.end(), part.begin(), part.end());
    }
    validation_samples(d.features, fold.valid, config, &f.select, &f.valid);
    d.folds.push_back(std::move(f));
  }
  return d;
}

namespace {

// "features: removed stale cache files: ..." where tidying removed any.
void log_removed(const std::vector<std::string>& names, std::ostream* log) {
  if (names.empty() || !log) return;
  *log << "features: removed stale cache files:";
  for (const std::string& name : names) *log << " " << name;
  *log << "\n";
}

// A panel's entry in the feature cache: its directory, key, file and memo name.
struct CacheEntry {
  std::string dir, key, path, memo_id;
};

// The panel data of `config` from a server's memo or the feature cache;
// else built, with the entry's lock held, and cached. `bytes` is the data
// file's content that the key hashes: it goes when this returns, or once
// parsed.
PanelData cached_panel_data(const TrainerConfig& config, std::string bytes, const CacheEntry& entry,
                            std::ostream* log) {
  const std::string& path = entry.path;
  const std::string& key = entry.key;
  if (std::optional<PanelData> kept = take_panel_data(entry.memo_id)) {
    touch_feature_cache(path);  // in use, though not read: tidying keeps it
    if (log) *log << "features: kept in memory, as read from the cache " << path << "\n";
    return std::move(*kept);
  }
  std::string why;
  if (std::optional<PanelData> cached = read_feature_cache(path, key, &why)) {
    touch_feature_cache(path);
    if (log) *log << "features: from the cache " << path << "\n";
    return std::move(*cached);
  }
  // Trials that start together wait for the first to build the entry, then
  // read it, rather than each building it.
  const FeatureCacheLock lock(path, log);
  if (std::optional<PanelData> cached = read_feature_cache(path, key, &why)) {
    touch_feature_cache(path);
    if (log) *log << "features: from the cache " << path << " (built while this trial waited)\n";
    return std::move(*cached);
  }
  if (lock.held()) log_removed(tidy_feature_cache(entry.dir, path), log);
  PanelData built = build_panel_data(config, &bytes);
  try {
    write_feature_cache(path, key, built);
    if (log) *log << "features: built and cached in " << path << " (" << why << ")\n";
  } catch (const std::exception& e) {  // a cache that cannot be written costs time, not the trial
    if (log) *log << "features: built; not cached (" << e.what() << ")\n";
  }
  return built;
}

// The dataset of `config`, from the feature cache in `cache_dir` when it holds it.
Dataset load_or_build(const TrainerConfig& config, const std::string& cache_dir,
                      std::ostream* log) {
  if (cache_dir.empty()) return make_dataset(build_panel_data(config), config);
  // The data file is read once: a build parses the very bytes the key
  // hashes, so an entry never holds the features of another content (a file
  // replaced between a hash and a second read did).
  std::string bytes = config.data.empty() ? std::string() : read_data_file(config.data);
  CacheEntry entry{cache_dir, feature_cache_key(config, bytes), "", ""};
  entry.path = feature_cache_path(cache_dir, entry.key);
  entry.memo_id = entry.path + "\n" + entry.key;
  // A statement of its own: `bytes` goes before the samples are made (GCC
  // ends a by-value parameter's life with the full expression).
  PanelData panel = cached_panel_data(config, std::move(bytes), entry, log);
  Dataset d = make_dataset(std::move(panel), config);
  d.memo_id = entry.memo_id;
  return d;
}

}  // namespace

void give_back(Dataset&& data) {
  if (data.memo_id.empty() || !panel_memo_enabled()) return;
  give_back_panel_data(data.memo_id, PanelData{std::move(data.features), std::move(data.dates),
                                               std::move(data.tickers), std::move(data.summary),
                                               std::move(data.oracle), std::move(data.source)});
}

Dataset load_dataset(const TrainerConfig& config, const std::string& cache_dir, std::ostream* log) {
  Dataset d = load_or_build(config, cache_dir, log);
  // Every run says what the calendar dropped, also when the cache built it.
  if (const std::string w = d.summary.warning(); log && !w.empty()) *log << w << "\n";
  return d;
}

namespace {

// The daily series of `scores` (score()'s scored days) with the book's days
// held through inserted: their net return, a NaN RankIC, marked skipped.
void with_held_days(Scores* scores, const DailyPortfolio& book) {
  std::vector<double> rank_ic;
  for (size_t k = 0, scored = 0; k < book.days.size(); ++k)
    rank_ic.push_back(book.skipped[k] ? NAN : scores->daily_rank_ic[scored++]);
  scores->daily_days = book.days;
  scores->daily_rank_ic = std::move(rank_ic);
  scores->daily_net = book.net;
  scores->daily_skipped = book.skipped;
}

// Everything score_samples computes from, gathered per sample: equal inputs
// give equal scores.
struct ScoreInputs {
  std::vector<float> pred, label, target, daily_return;
  std::vector<uint32_t> day, ticker;
  std::vector<uint32_t> skipped;  // the days held through
  std::vector<float> held_return;  // every ticker's one-day return on each of them
  size_t num_tickers = 0, min_names = 0;
  int horizon = 0;
  double cost_bps = 0;

  // Equal bit for bit: a missing return is NaN, which == never matches.
  bool operator==(const ScoreInputs& o) const {
    return same_bits(pred, o.pred) && same_bits(label, o.label) && same_bits(target, o.target) &&
           same_bits(daily_return, o.daily_return) && same_bits(day, o.day) &&
           same_bits(ticker, o.ticker) && same_bits(skipped, o.skipped) &&
           same_bits(held_return, o.held_return) &&
           std::tie(num_tickers, min_names, horizon, cost_bps) ==
               std::tie(o.num_tickers, o.min_names, o.horizon, o.cost_bps);
  }

  template <typename T>
  static bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
  }
};

ScoreInputs gather_inputs(const FeatureSet& fs, const std::vector<Sample>& samples,
                          std::vector<float> pred, double cost_bps,
                          const std::vector<uint32_t>& skipped) {
  ScoreInputs in;
  in.pred = std::move(pred);
  for (auto* v : {&in.label, &in.target, &in.daily_return}) v->reserve(samples.size());
  for (auto* v : {&in.day, &in.ticker}) v->reserve(samples.size());
  for (const Sample& s : samples) {
    const size_t cell = fs.cell(s.ticker, s.day);
    in.label.push_back(fs.label[cell]);
    in.target.push_back(fs.target[cell]);
    in.daily_return.push_back(fs.daily_return[cell]);
    in.day.push_back(s.day);
    in.ticker.push_back(s.ticker);
  }
  in.skipped = skipped;
  for (uint32_t d : skipped)
    for (size_t t = 0; t < fs.num_tickers; ++t)
      in.held_return.push_back(fs.daily_return[fs.cell(t, d)]);
  in.num_tickers = fs.num_tickers;
  in.min_names = fs.min_names;
  in.horizon = fs.label_spec.horizon;
  in.cost_bps = cost_bps;
  return in;
}

Scores score_inputs(const ScoreInputs& in) {
  HoldThrough hold{
      in.skipped, [&in](uint32_t t, uint32_t d) {
        const size_t k =
            size_t(std::lower_bound(in.skipped.begin(), in.skipped.end(), d) - in.skipped.begin());
        return double(in.held_return[k * in.num_tickers + t]);
      }};
  const auto book_of = [&] {
    return daily_long_short(in.day, in.ticker, in.pred, in.daily_return, in.cost_bps, in.min_names,
                            hold);
  };
  // The daily book and the daily scores are independent, and about even: the
  // book on a second thread where the trial has two (the test window's
  // scores took 0.055 s on one).
  std::future<DailyPortfolio> book_later;
  if (at::get_num_threads() > 1) book_later = std::async(std::launch::async, book_of);
  Scores scores = score(in.pred, in.label, in.target, in.day, in.horizon, in.min_names);
  const DailyPortfolio book = book_later.valid() ? book_later.get() : book_of();
  scores.sharpe_net = book.net_sharpe();
  scores.turnover = book.mean_turnover();
  with_held_days(&scores, book);
  return scores;
}

// The oracle's scores of the windows a server's trials score, computed once:
// every trial of a study has the same data, windows and costs, and scoring
// the oracle took 0.05 to 0.08 s of each (docs/benchmarks.md, "Trial
// start"). Entries are recalled only for inputs equal in full, not by a
// hash; kept only while the panel memo is on (a server), two at most (the
// validation and test windows).
std::vector<std::pair<ScoreInputs, Scores>>& oracle_memo() {
  static std::vector<std::pair<ScoreInputs, Scores>> memo;
  if (!panel_memo_enabled()) memo.clear();
  return memo;
}

}  // namespace

Scores score_samples(const FeatureSet& fs, const std::vector<Sample>& samples,
                     const std::vector<float>& pred, double cost_bps,
                     const std::vector<uint32_t>& skipped) {
  return score_inputs(gather_inputs(fs, samples, pred, cost_bps, skipped));
}

std::string data_summary_line(const Dataset& data, const TrainerConfig& config) {
  if (config.data.empty()) return "";
  return data.summary.describe(warmup_days(size_t(config.lookback)));
}

Scores oracle_scores(const Dataset& data, const std::vector<Sample>& samples, double cost_bps) {
  std::vector<float> pred;
  pred.reserve(samples.size());
  for (const Sample& s : samples) pred.push_back(data.oracle[data.features.cell(s.ticker, s.day)]);
  ScoreInputs in =
      gather_inputs(data.features, samples, std::move(pred), cost_bps, data.skipped_days);
  auto& memo = oracle_memo();
  for (const auto& [kept, scores] : memo)
    if (kept == in) return scores;
  Scores scores = score_inputs(in);
  if (panel_memo_enabled()) {
    if (memo.size() == 2) memo.erase(memo.begin());
    memo.emplace_back(std::move(in), scores);
  }
  return scores;
}

}  // namespace hpo::trainer
