#include "hpo/stats/sweep_dsr.h"

#include <cmath>

#include "hpo/stats/moments.h"

namespace hpo::stats {

SweepDsr sweep_deflated_sharpe(const Series& own, const Series& aligned, int selected,
                               double n_trials) {
  SweepDsr s;
  s.mean_correlation = mean_pairwise_correlation(aligned);
  s.n_effective = effective_trials(n_trials, s.mean_correlation);
  std::vector<double> sharpes;
  for (const auto& row : own) {
    const double sr = sharpe_ratio(row);
    if (std::isfinite(sr))
      sharpes.push_back(sr);
    else
      ++s.without_sharpe;
  }
  const Moments across = moments(sharpes);
  s.sharpe_variance = across.std * across.std;
  if (selected < 0 || selected >= static_cast<int>(own.size())) return s;
  const double sr = sharpe_ratio(own[selected]);
  if (!std::isfinite(sr)) return s;  // constant returns: no Sharpe ratio to deflate
  const Moments m = moments(own[selected]);
  s.t = m.n;
  s.skew = m.skew;
  s.kurtosis = m.kurtosis;
  s.dsr = deflated_sharpe_ratio(sr, s.t, s.skew, s.kurtosis, s.n_effective, s.sharpe_variance);
  s.has_dsr = true;
  return s;
}

}  // namespace hpo::stats
