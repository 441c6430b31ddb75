#include "samplers/tpe_weights.h"

#include <cmath>

namespace hpo {

Eigen::ArrayXd default_weights(int n) {
  Eigen::ArrayXd w = Eigen::ArrayXd::Ones(n);
  const int n_ramp = n - 25;
  if (n_ramp <= 0) return w;
  if (n_ramp == 1) {
    w(0) = 1.0 / n;
    return w;
  }
  for (int i = 0; i < n_ramp; ++i) w(i) = 1.0 / n + (1.0 - 1.0 / n) * i / (n_ramp - 1);
  return w;
}

Eigen::ArrayXd improvement_weights(const Eigen::ArrayXd& losses, double threshold) {
  if (!std::isfinite(threshold) || !losses.allFinite()) return Eigen::ArrayXd::Ones(losses.size());
  return (threshold - losses).max(1e-12);
}

}  // namespace hpo
