#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "trainer/dataset.h"
#include "trainer/synthetic.h"

namespace hpo::trainer {
namespace {

// The oracle (the planted signal) on every labelled day of the default
// 500 x 1500 panel, at the default cost: what the presets promise.
Scores oracle_everywhere(const char* preset) {
  TrainerConfig config;
  config.signal_strength = preset;
  config.max_valid_samples = 0;
  const Dataset d = load_dataset(config);
  const std::vector<Sample> all = samples_in(d.features, {d.splits.train.begin, d.splits.test.end});
  return oracle_scores(d, all, config.cost_bps);
}

// Standard error of the mean daily RankIC.
double standard_error(const std::vector<double>& x) {
  const double m = std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / double(x.size() - 1) / double(x.size()));
}

TEST_CASE("presets: the realistic panel's oracle looks like a good equity signal") {
  const Scores s = oracle_everywhere("realistic");
  MESSAGE("realistic oracle: rank_ic " << s.rank_ic << " sharpe " << s.sharpe << " sharpe_net "
                                       << s.sharpe_net << " turnover " << s.turnover << " days "
                                       << s.days);
  CHECK(s.rank_ic >= 0.03);
  CHECK(s.rank_ic <= 0.06);
  CHECK(s.sharpe_net >= 1.0);
  CHECK(s.sharpe_net <= 3.0);
  CHECK(s.sharpe > s.sharpe_net);  // costs cost
}

TEST_CASE("presets: the noise panel's oracle has no skill beyond its standard error") {
  const Scores s = oracle_everywhere("noise");
  const double se = standard_error(s.daily_rank_ic);
  MESSAGE("noise oracle: rank_ic " << s.rank_ic << " (se " << se << ") sharpe " << s.sharpe
                                   << " sharpe_net " << s.sharpe_net << " turnover " << s.turnover);
  CHECK(std::abs(s.rank_ic) < 3 * se);
  CHECK(s.sharpe_net < 0);  // paying for turnover with nothing to earn
}

TEST_CASE("presets: easy is today's panel; numbers are accepted; anything else is not") {
  CHECK(signal_named("easy") == 0.12);
  CHECK(signal_named("noise") == 0.0);
  CHECK(signal_named("0.05") == 0.05);
  CHECK(!signal_named("-0.1"));
  CHECK(!signal_named("0.05x"));
  CHECK(!signal_named("strong"));
  CHECK(TrainerConfig{}.signal_strength == "easy");
}

}  // namespace
}  // namespace hpo::trainer
