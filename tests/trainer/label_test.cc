// The label a sample trains on and is scored by: the return of a position
// entered after the features are known, never at the close they are computed
// from (a trade at that very price is not available to the strategy).
#include <doctest/doctest.h>

#include <cmath>

#include "trainer/config.h"
#include "trainer/dataset.h"
#include "trainer/synthetic.h"

namespace hpo::trainer {
namespace {

Panel full_panel() {
  SyntheticSpec spec;
  spec.tickers = 8;
  spec.days = 200;
  spec.seed = 5;
  spec.missing_rate = 0;
  return make_synthetic_panel(spec).panel;
}

TrainerConfig config_with_horizon(int horizon) {
  TrainerConfig c;
  c.horizon = horizon;
  c.lookback = 5;
  return c;
}

float label_of(const Panel& panel, const TrainerConfig& config, size_t ticker, size_t day) {
  const Dataset d = make_dataset(panel, config);
  return d.features.label[d.features.cell(ticker, day)];
}

// Multiplies one price of (ticker, day) by 1.1.
Panel bumped(Panel p, std::vector<double> Panel::*field, size_t ticker, size_t day) {
  (p.*field)[p.index(ticker, day)] *= 1.1;
  return p;
}

TEST_CASE(
    "label: by default a position enters at the next day's open, not at the feature day's close") {
  const Panel panel = full_panel();
  const size_t ticker = 3, t = 120;
  for (int horizon : {1, 4}) {
    CAPTURE(horizon);
    const TrainerConfig config = config_with_horizon(horizon);
    const float base = label_of(panel, config, ticker, t);
    REQUIRE(std::isfinite(base));
    // The entry is day t+1's open; the exit the open `horizon` days later.
    const double entry = panel.open[panel.index(ticker, t + 1)];
    const double exit = panel.open[panel.index(ticker, t + 1 + size_t(horizon))];
    CHECK(base == doctest::Approx(std::log(exit / entry)).epsilon(1e-6));
    CHECK(label_of(bumped(panel, &Panel::close, ticker, t), config, ticker, t) == base);
    CHECK(label_of(bumped(panel, &Panel::open, ticker, t + 1), config, ticker, t) != base);
  }
}

TEST_CASE("label: label_entry close keeps the old label, from the feature day's close") {
  const Panel panel = full_panel();
  const size_t ticker = 3, t = 120;
  TrainerConfig config = config_with_horizon(2);
  config.label_entry = "close";
  const float base = label_of(panel, config, ticker, t);
  const double entry = panel.close[panel.index(ticker, t)],
               exit = panel.close[panel.index(ticker, t + 2)];
  CHECK(base == doctest::Approx(std::log(exit / entry)).epsilon(1e-6));
  CHECK(label_of(bumped(panel, &Panel::close, ticker, t), config, ticker, t) != base);
}

}  // namespace
}  // namespace hpo::trainer
