#include "trainer/features.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "trainer/parallel.h"

namespace hpo::trainer {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One ticker's series on the dense date grid (NaN on missing days).
// The logs that several days' windows share are taken once a day, the same
// values as taking them in each window (vstd_20 took 20 a cell, range_5 5).
struct Series {
  std::vector<double> open, high, low, close, volume, ret;  // ret[t] = log(c[t] / c[t-1])
  std::vector<double> log_range;  // log(high[t] / low[t])
  std::vector<double> log_volume;  // log(volume[t] + 1)
};

Series series_of(const Panel& p, size_t ticker) {
  Series s;
  size_t n = p.num_days(), base = p.index(ticker, 0);
  auto slice = [&](const std::vector<double>& f) {
    return std::vector<double>(f.begin() + base, f.begin() + base + n);
  };
  s.open = slice(p.open);
  s.high = slice(p.high);
  s.low = slice(p.low);
  s.close = slice(p.close);
  s.volume = slice(p.volume);
  s.ret.assign(n, kNaN);
  for (size_t t = 1; t < n; ++t) s.ret[t] = std::log(s.close[t] / s.close[t - 1]);
  s.log_range.resize(n);
  s.log_volume.resize(n);
  for (size_t t = 0; t < n; ++t) {
    s.log_range[t] = std::log(s.high[t] / s.low[t]);
    s.log_volume[t] = std::log(s.volume[t] + 1);
  }
  return s;
}

// Rolling statistics over x[t-w+1 .. t]; NaN when the window is short or
// holds a missing value (NaN propagates through the sums).
double window_mean(const std::vector<double>& x, size_t t, size_t w) {
  if (t + 1 < w) return kNaN;
  double sum = 0;
  for (size_t k = t + 1 - w; k <= t; ++k) sum += x[k];
  return sum / double(w);
}

double window_std(const std::vector<double>& x, size_t t, size_t w) {
  double mean = window_mean(x, t, w);
  if (std::isnan(mean)) return kNaN;
  double ss = 0;
  for (size_t k = t + 1 - w; k <= t; ++k) ss += (x[k] - mean) * (x[k] - mean);
  return std::sqrt(ss / double(w));
}

double window_extreme(const std::vector<double>& x, size_t t, size_t w, bool max) {
  if (t + 1 < w) return kNaN;
  double best = x[t];
  for (size_t k = t + 1 - w; k <= t; ++k) {
    if (std::isnan(x[k])) return kNaN;
    best = max ? std::max(best, x[k]) : std::min(best, x[k]);
  }
  return best;
}

double lagged(const std::vector<double>& x, size_t t, size_t lag) {
  return t >= lag ? x[t - lag] : kNaN;
}

struct Feature {
  const char* name;
  std::function<double(const Series&, size_t)> at;
};

std::vector<Feature> feature_list() {
  auto ret = [](size_t w) {
    return [w](const Series& s, size_t t) { return std::log(s.close[t] / lagged(s.close, t, w)); };
  };
  auto vol = [](size_t w) {
    return [w](const Series& s, size_t t) { return window_std(s.ret, t, w); };
  };
  auto ma = [](size_t w) {
    return [w](const Series& s, size_t t) {
      return std::log(s.close[t] / window_mean(s.close, t, w));
    };
  };
  auto vma = [](size_t w) {
    return [w](const Series& s, size_t t) {
      return std::log((s.volume[t] + 1) / (window_mean(s.volume, t, w) + 1));
    };
  };
  return {
      {"ret_1", ret(1)},
      {"ret_5", ret(5)},
      {"ret_10", ret(10)},
      {"ret_20", ret(20)},
      {"ret_60", ret(60)},
      {"std_5", vol(5)},
      {"std_20", vol(20)},
      {"std_60", vol(60)},
      {"range_1", [](const Series& s, size_t t) { return s.log_range[t]; }},
      {"range_5", [](const Series& s, size_t t) { return window_mean(s.log_range, t, 5); }},
      {"kmid", [](const Series& s, size_t t) { return std::log(s.close[t] / s.open[t]); }},
      {"ksft",
       [](const Series& s, size_t t) {
         double span = s.high[t] - s.low[t];
         return span > 0 ? (2 * s.close[t] - s.high[t] - s.low[t]) / span : 0.0 * span;
       }},
      {"ma_5", ma(5)},
      {"ma_20", ma(20)},
      {"max_20",
       [](const Series& s, size_t t) {
         return std::log(s.close[t] / window_extreme(s.high, t, 20, true));
       }},
      {"min_20",
       [](const Series& s, size_t t) {
         return std::log(s.close[t] / window_extreme(s.low, t, 20, false));
       }},
      {"vma_5", vma(5)},
      {"vma_20", vma(20)},
      {"vstd_20", [](const Series& s, size_t t) { return window_std(s.log_volume, t, 20); }},
  };
}

// The price a position entered on day `entry` is closed at on day `exit`:
// price[exit] when the name trades then; otherwise its last print, the close
// of its last row before `exit`. A name that delists is closed there, so its
// last move (a crash, often) is in the return; a halted one too, as its next
// price lies beyond the label's reach.
double exit_price(const Series& s, const std::vector<double>& price, size_t entry, size_t exit) {
  if (std::isfinite(price[exit])) return price[exit];
  for (size_t k = exit; k-- > entry;)
    if (std::isfinite(s.close[k])) return s.close[k];
  return price[entry];
}

// The entry and exit days and prices of the label of day t.
struct Trade {
  const std::vector<double>* price;
  size_t entry, exit;
};

Trade trade_of(const Series& s, size_t t, const LabelSpec& spec) {
  const size_t h = size_t(spec.horizon);
  switch (spec.entry) {
    case LabelEntry::kNextOpen:
      return {&s.open, t + 1, t + 1 + h};
    case LabelEntry::kNextClose:
      return {&s.close, t + 1, t + 1 + h};
    case LabelEntry::kClose:
      break;
  }
  return {&s.close, t, t + h};
}

// The label of day t from one ticker's series. Whether it exists depends only
// on what is known at t: the name trades on day t and the label's last day
// lies inside the panel. A price missing later (a delisting or a halt) does
// not drop the sample, which would need to know on day t that the name is
// about to disappear: a position that cannot be entered earns 0 (NaN with
// `unfilled_nan`, for the portfolio), and one whose name stops trading is
// closed at its last print (exit_price).
double label_at(const Series& s, size_t t, const LabelSpec& spec, bool unfilled_nan = false) {
  if (t + label_reach(spec) >= s.close.size() || !std::isfinite(s.close[t])) return kNaN;
  const Trade trade = trade_of(s, t, spec);
  const std::vector<double>& price = *trade.price;
  if (!std::isfinite(price[trade.entry])) return unfilled_nan ? kNaN : 0.0;
  return std::log(exit_price(s, price, trade.entry, trade.exit) / price[trade.entry]);
}

// Whether the label of day t was closed at the last print of a name that
// never trades again in the panel (its delisting).
bool delisting_exit(const Series& s, size_t t, const LabelSpec& spec, size_t last_row) {
  const Trade trade = trade_of(s, t, spec);
  return std::isfinite((*trade.price)[trade.entry]) && last_row < trade.exit;
}

}  // namespace

size_t label_reach(const LabelSpec& spec) {
  return size_t(spec.horizon) + (spec.entry == LabelEntry::kClose ? 0 : 1);
}

std::optional<LabelEntry> label_entry_named(const std::string& name) {
  if (name == "next_open") return LabelEntry::kNextOpen;
  if (name == "next_close") return LabelEntry::kNextClose;
  if (name == "close") return LabelEntry::kClose;
  return std::nullopt;
}

namespace {

// Z-scores one day's finite values across tickers, ticker i's at cell[i * stride].
void normalize_day(float* cell, size_t stride, size_t tickers, float missing) {
  double sum = 0, ss = 0;
  size_t n = 0;
  for (size_t i = 0; i < tickers; ++i)
    if (std::isfinite(cell[i * stride])) sum += cell[i * stride], ++n;
  double mean = n ? sum / double(n) : 0;
  for (size_t i = 0; i < tickers; ++i)
    if (std::isfinite(cell[i * stride]))
      ss += (cell[i * stride] - mean) * (cell[i * stride] - mean);
  double sd = n > 1 ? std::sqrt(ss / double(n)) : 0;
  for (size_t i = 0; i < tickers; ++i) {
    float& v = cell[i * stride];
    if (!std::isfinite(v) || sd <= 0)
      v = std::isfinite(v) ? 0.0f : missing;
    else
      v = float(std::clamp((v - mean) / sd, -5.0, 5.0));
  }
}

}  // namespace

void normalize_cross_sections(std::vector<float>* values, size_t tickers, size_t days,
                              size_t columns, float missing, size_t threads) {
  // Each day's cross-section is its own, so the days split across threads
  // (the serial loop's values, bit for bit). Each day's columns are done
  // together: a ticker's columns of a day share cache lines, which a pass
  // per column would read from memory again.
  parallel_ranges(days, threads, [&](size_t first, size_t end) {
    for (size_t d = first; d < end; ++d)
      for (size_t column = 0; column < columns; ++column)
        normalize_day(&(*values)[d * columns + column], days * columns, tickers, missing);
  });
}

namespace {

// Per ticker, the first and last day with a row (num_days, 0 when none).
void row_span(const Panel& panel, size_t ticker, uint32_t* first, size_t* last) {
  *first = uint32_t(panel.num_days());
  *last = 0;
  for (size_t t = 0; t < panel.num_days(); ++t)
    if (panel.present(ticker, t)) *first = std::min(*first, uint32_t(t)), *last = t;
}

// Fills ticker i's features, labels, one-day returns and first row in *fs
// (sized, with its label spec); returns how many of its labels close at a
// delisting.
size_t fill_ticker(const Panel& panel, const std::vector<Feature>& features, size_t i,
                   FeatureSet* fs) {
  const LabelSpec& label = fs->label_spec;
  const LabelSpec one_day{1, label.entry};
  const Series s = series_of(panel, i);
  size_t last_row = 0, delisting_labels = 0;
  row_span(panel, i, &fs->first_row[i], &last_row);
  for (size_t t = 0; t < fs->num_days; ++t) {
    const size_t cell = fs->cell(i, t);
    float* values = &fs->values[cell * fs->num_features];
    if (std::isnan(s.close[t])) {
      std::fill(values, values + fs->num_features, float(kNaN));
      continue;
    }
    for (size_t f = 0; f < fs->num_features; ++f) values[f] = float(features[f].at(s, t));
    fs->label[cell] = float(label_at(s, t, label));
    fs->daily_return[cell] = float(label_at(s, t, one_day, true));
    delisting_labels += std::isfinite(fs->label[cell]) && delisting_exit(s, t, label, last_row);
  }
  return delisting_labels;
}

}  // namespace

FeatureSet compute_features(const Panel& panel, const LabelSpec& label, size_t min_names,
                            size_t threads) {
  const std::vector<Feature> features = feature_list();
  FeatureSet fs;
  fs.num_tickers = panel.num_tickers();
  fs.num_days = panel.num_days();
  fs.num_features = features.size();
  fs.first_full_day = kLongestWindow;
  fs.label_spec = label;
  fs.min_names = min_names;
  for (const Feature& f : features) fs.names.push_back(f.name);
  fs.values.assign(fs.num_tickers * fs.num_days * fs.num_features, 0.0f);
  fs.label.assign(fs.num_tickers * fs.num_days, std::numeric_limits<float>::quiet_NaN());
  fs.daily_return = fs.label;
  fs.first_row.resize(fs.num_tickers);

  // A ticker's cells depend on its own series only, so the tickers split
  // across threads; each fills its own cells (the serial loop's values, bit
  // for bit).
  std::vector<size_t> delisting_labels(fs.num_tickers);
  parallel_ranges(fs.num_tickers, threads, [&](size_t first, size_t end) {
    for (size_t i = first; i < end; ++i) delisting_labels[i] = fill_ticker(panel, features, i, &fs);
  });
  for (size_t count : delisting_labels) fs.delisting_labels += count;
  normalize_cross_sections(&fs.values, fs.num_tickers, fs.num_days, fs.num_features, 0.0f, threads);
  fs.target = fs.label;
  normalize_cross_sections(&fs.target, fs.num_tickers, fs.num_days, 1,
                           std::numeric_limits<float>::quiet_NaN(), threads);
  return fs;
}

}  // namespace hpo::trainer
