// hpo/stats on the inputs stats_check.py sends (JSON on stdin), its results
// as JSON on stdout, for the script to compare with NumPy/SciPy's.
//
// In:  {"returns": [[...], ...] (trials x days), "x": [...], "y": [...],
//       "selected": i, "n_trials": N, "blocks": S}
// Out: {"sharpe", "skew", "kurtosis" (of returns[selected]), "psr0",
//       "sharpe_variance", "mean_correlation", "n_effective", "benchmark",
//       "dsr", "spearman" (of x, y), "pbo", "logits"}
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "hpo/stats/cscv.h"
#include "hpo/stats/deflated_sharpe.h"
#include "hpo/stats/effective_trials.h"
#include "hpo/stats/moments.h"
#include "hpo/stats/spearman.h"

int main() {
  using namespace hpo::stats;
  const nlohmann::json in = nlohmann::json::parse(std::cin);
  const auto returns = in.at("returns").get<Series>();
  const auto& chosen = returns.at(in.at("selected").get<size_t>());
  const Moments m = moments(chosen);
  std::vector<double> sharpes;
  for (const auto& row : returns) sharpes.push_back(sharpe_ratio(row));
  const Moments across = moments(sharpes);
  const double rho = mean_pairwise_correlation(returns);
  const double n_eff = effective_trials(in.at("n_trials").get<double>(), rho);
  const double sr = sharpe_ratio(chosen);
  const auto dsr =
      deflated_sharpe_ratio(sr, m.n, m.skew, m.kurtosis, n_eff, across.std * across.std);
  const Pbo pbo = probability_of_backtest_overfitting(returns, in.at("blocks").get<int>());
  nlohmann::json out = {
      {"sharpe", sr},
      {"skew", m.skew},
      {"kurtosis", m.kurtosis},
      {"psr0", probabilistic_sharpe_ratio(sr, 0, m.n, m.skew, m.kurtosis)},
      {"sharpe_variance", across.std * across.std},
      {"mean_correlation", rho},
      {"n_effective", n_eff},
      {"benchmark", dsr.benchmark},
      {"dsr", dsr.dsr},
      {"spearman",
       spearman(in.at("x").get<std::vector<double>>(), in.at("y").get<std::vector<double>>())},
      {"pbo", pbo.pbo},
      {"logits", pbo.logits},
  };
  std::cout << out.dump() << "\n";
}
