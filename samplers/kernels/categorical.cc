#include "samplers/kernels/categorical.h"

#include <algorithm>

namespace hpo {

void CategoricalKernels::fit(int n, const Eigen::Ref<const Eigen::ArrayXd>& obs, bool with_prior,
                             double prior_weight, double categorical_prior_weight) {
  n_choices = n;
  const Eigen::Index n_obs = obs.size();
  choice.resize(n_obs + (with_prior ? 1 : 0));
  for (Eigen::Index k = 0; k < n_obs; ++k) choice(k) = static_cast<int>(std::lround(obs(k)));
  if (with_prior) choice(n_obs) = -1;
  if (categorical_prior_weight > 0 && n_choices > 1) {
    // Aitchison-Aitken: a fixed share b spread over the other choices.
    const double b = categorical_prior_weight;
    log_hit = std::log(1 - b);
    log_miss = std::log(b / (n_choices - 1));
    return;
  }
  // Each observation kernel spreads the prior weight over every choice and
  // puts 1 on its own: (1 + p) at the hit, p elsewhere, normalized.
  const int n_obs_int = static_cast<int>(n_obs);
  const double p = prior_weight / (with_prior ? n_obs_int + 1 : n_obs_int);
  const double total = n_choices * p + 1;
  log_hit = std::log((p + 1) / total);
  log_miss = std::log(p / total);
}

int CategoricalKernels::sample(int kernel, double u) const {
  const int hit = choice(kernel);
  if (hit < 0) return std::min(n_choices - 1, static_cast<int>(u * n_choices));
  const double miss = std::exp(log_miss), at_hit = std::exp(log_hit);
  double acc = 0;
  for (int c = 0; c < n_choices; ++c) {
    acc += c == hit ? at_hit : miss;
    if (u < acc) return c;
  }
  return n_choices - 1;
}

Eigen::ArrayXd CategoricalKernels::log_pdf(const Eigen::ArrayXd& w, const Eigen::ArrayXd& x) const {
  Eigen::ArrayXd at_choice = Eigen::ArrayXd::Zero(n_choices);
  double prior = 0, observed = 0;
  for (Eigen::Index k = 0; k < w.size(); ++k) {
    if (choice(k) < 0) {
      prior += w(k);
    } else {
      at_choice(choice(k)) += w(k);
      observed += w(k);
    }
  }
  const double hit = std::exp(log_hit), miss = std::exp(log_miss);
  Eigen::ArrayXd out(x.size());
  for (Eigen::Index c = 0; c < x.size(); ++c) {
    const int v = std::clamp(static_cast<int>(std::lround(x(c))), 0, n_choices - 1);
    out(c) = std::log(observed * miss + at_choice(v) * (hit - miss) + prior / n_choices);
  }
  return out;
}

}  // namespace hpo
