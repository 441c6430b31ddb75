#include "trainer/synthetic.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace hpo::trainer {

namespace {

constexpr double kMeanSigma = 0.021;
constexpr double kRealisticSignal = 0.035;

// Business days from 2015-01-05 (a Monday), as ISO dates.
std::vector<std::string> business_days(int n) {
  std::vector<std::string> out;
  int y = 2015, m = 1, d = 5, weekday = 0;  // 0 = Monday
  auto days_in = [](int year, int month) {
    static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : kDays[month - 1];
  };
  while (int(out.size()) < n) {
    if (weekday < 5) out.push_back(fmt::format("{:04d}-{:02d}-{:02d}", y, m, d));
    weekday = (weekday + 1) % 7;
    if (++d > days_in(y, m)) {
      d = 1;
      if (++m > 12) m = 1, ++y;
    }
  }
  return out;
}

// Z-scores x across tickers in place (x holds one value per ticker).
void zscore(std::vector<double>* x) {
  double sum = 0, ss = 0;
  for (double v : *x) sum += v;
  double mean = sum / double(x->size());
  for (double v : *x) ss += (v - mean) * (v - mean);
  double sd = std::sqrt(ss / double(x->size()));
  for (double& v : *x) v = sd > 0 ? (v - mean) / sd : 0;
}

}  // namespace

std::optional<double> signal_named(const std::string& name) {
  if (name == "easy") return 0.12;
  if (name == "realistic") return kRealisticSignal;
  if (name == "noise") return 0.0;
  try {
    size_t used = 0;
    const double v = std::stod(name, &used);
    if (used == name.size() && std::isfinite(v) && v >= 0) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

SyntheticPanel make_synthetic_panel(const SyntheticSpec& spec) {
  const size_t n = size_t(spec.tickers), days = size_t(spec.days);
  std::mt19937_64 rng(spec.seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);

  SyntheticPanel out;
  Panel& p = out.panel;
  p.dates = business_days(spec.days);
  for (size_t i = 0; i < n; ++i) p.tickers.push_back(fmt::format("T{:04d}", i));
  p.allocate();
  out.planted_score.assign(n * days, std::numeric_limits<float>::quiet_NaN());

  std::vector<double> sigma(n), beta(n), base_volume(n), log_close(n);
  for (size_t i = 0; i < n; ++i) {
    sigma[i] = 0.012 + 0.018 * uniform(rng);
    beta[i] = 0.6 + 0.8 * uniform(rng);
    base_volume[i] = std::exp(std::log(2e5) + uniform(rng) * std::log(25.0));
    log_close[i] = std::log(10.0 + 190.0 * uniform(rng));
  }
  const double k = spec.signal * kMeanSigma;
  std::vector<std::vector<double>> history(n);  // log closes so far
  std::vector<double> expected(n, 0.0), r5(n), r20(n);
  for (size_t t = 0; t < days; ++t) {
    double market = t == 0 ? 0.0 : 2e-4 + 0.01 * normal(rng);
    for (size_t i = 0; i < n; ++i) {
      double idio = t == 0 ? 0.0 : sigma[i] * normal(rng);
      double ret = t == 0 ? 0.0 : beta[i] * market + expected[i] + idio;
      double prev = log_close[i];
      log_close[i] += ret;
      history[i].push_back(log_close[i]);
      // Open gaps from the previous close; high and low bracket open and close.
      double open = std::exp(prev + 0.3 * sigma[i] * normal(rng));
      double close = std::exp(log_close[i]);
      double high = std::max(open, close) * std::exp(0.5 * sigma[i] * std::abs(normal(rng)));
      double low = std::min(open, close) * std::exp(-0.5 * sigma[i] * std::abs(normal(rng)));
      double volume =
          base_volume[i] * std::exp(0.4 * std::abs(idio) / sigma[i] + 0.3 * normal(rng));
      if (uniform(rng) < spec.missing_rate) continue;  // the row is not reported
      size_t c = p.index(i, t);
      p.open[c] = open, p.high[c] = high, p.low[c] = low, p.close[c] = close,
      p.volume[c] = std::round(volume);
    }
    // The signal for tomorrow's return, from history up to today's close.
    if (t < 20) continue;
    for (size_t i = 0; i < n; ++i) {
      r5[i] = history[i][t] - history[i][t - 5];
      r20[i] = history[i][t] - history[i][t - 20];
    }
    zscore(&r5);
    zscore(&r20);
    std::vector<double> g(n);
    for (size_t i = 0; i < n; ++i) g[i] = -r5[i] + 0.7 * r20[i];
    zscore(&g);
    for (size_t i = 0; i < n; ++i) {
      expected[i] = k * g[i];
      out.planted_score[p.index(i, t)] = float(g[i]);
    }
  }
  return out;
}

}  // namespace hpo::trainer
