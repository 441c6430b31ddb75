#include "samplers/gp_sampler.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "samplers/acquisition_optimizer.h"
#include "samplers/conditions.h"
#include "samplers/gp_acquisition.h"
#include "samplers/gp_history.h"
#include "samplers/gp_posterior.h"
#include "samplers/gp_sources.h"
#include "samplers/prior_observations.h"
#include "samplers/random_sampler.h"
#include "samplers/startup.h"

namespace hpo {

namespace {

// Local searches start at the best few observations, beside random points.
constexpr Eigen::Index kIncumbentStarts = 3;

std::vector<Eigen::VectorXd> incumbents(const GpHistory& history) {
  std::vector<Eigen::Index> order(static_cast<size_t>(history.y.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return history.y[a] > history.y[b]; });
  std::vector<Eigen::VectorXd> out;
  for (size_t i = 0; i < order.size() && i < static_cast<size_t>(kIncumbentStarts); ++i)
    out.push_back(history.x.row(order[i]).transpose());
  return out;
}

// The posterior with running trials believed at its own mean (kriging
// believer): their variance collapses, so EI there drops and the next
// worker looks elsewhere, without pretending to know how they end. The
// incumbent `best` rises to the best believed value: else a point believed
// above the incumbent would keep its improvement, and draw the next worker.
GpPosterior with_fantasies(const GpPosterior& posterior, const Eigen::MatrixXd& pending,
                           double& best) {
  if (pending.rows() == 0) return posterior;
  Eigen::VectorXd believed(pending.rows());
  for (Eigen::Index i = 0; i < pending.rows(); ++i)
    believed[i] = posterior.predict(pending.row(i).transpose(), false).mean;
  best = std::max(best, believed.maxCoeff());
  return posterior.with(pending, believed);
}

}  // namespace

ParamValues GpSampler::ask(const SearchSpace& space, int number) {
  std::mt19937_64 rng(trial_seed(number));
  // Every parameter is drawn first: the fallback for what the GP does not
  // model.
  ParamValues values;
  for (const auto& param : space) values[param.name] = sample_uniform(param.distribution, rng);

  const GpSpace gp_space(space);
  const auto startup = [&] {
    const int point = prior().empty() ? number : warm_startup_point(number, prior().size());
    return drop_inactive(space,
                         startup_values(options_.startup, space, seed(), trial_seed(point), point));
  };
  if (gp_space.size() == 0) return startup();
  // Prior observations (warm start) join on the fidelity rule of
  // prior_observations.h; without them the history is read as it is.
  const auto merged =
      prior().empty() ? std::map<int, TrialView>{} : with_prior(this->history(), prior());
  const GpHistory history =
      gp_history(prior().empty() ? this->history() : merged, gp_space, direction(), number);
  // A warm-started study's startup is its first kWarmStartup trials
  // (prior_observations.h), counted as asked rather than finished: parallel
  // workers after the first have the prior to go by.
  const bool startup_left =
      prior().empty() ? history.y.size() < options_.n_startup_trials : number < kWarmStartup;
  if (history.y.size() == 0 || startup_left) return startup();

  // A warm-started GP models the source too (gp_sources.h).
  const bool warm = history.n_prior > 0;
  const GpHistory model = warm ? with_source_dimension(history) : history;
  auto categorical = gp_space.categorical();
  if (warm) categorical.push_back(true);
  const KernelParams params = fit_memo_.fit(model, categorical, options_.deterministic, warm);
  const GpPosterior observed(MaternKernel(params, categorical), model.x, model.y);
  // Improvement is over this study's best: a prior observation's value is
  // on its own stage's scale (prior_observations.h), so beating the best of
  // an earlier stage is no goal. With none of its own yet, the prior's best.
  const Eigen::Index own = history.y.size() - history.n_prior;
  double incumbent = own > 0 ? history.y.tail(own).maxCoeff() : history.y.maxCoeff();
  const GpPosterior posterior = with_fantasies(observed, model.pending, incumbent);
  const LogEi log_ei(posterior, incumbent);
  const Eigen::Index dims = static_cast<Eigen::Index>(gp_space.size());
  const Acquisition acquisition{[&](const Eigen::VectorXd& x, Eigen::VectorXd* gradient) {
                                  if (!warm) return log_ei(x, gradient);
                                  const double value = log_ei(at_target(x), gradient);
                                  if (gradient) gradient->conservativeResize(dims);
                                  return value;
                                },
                                [&](const Eigen::MatrixXd& points) {
                                  return warm ? log_ei(columns_at_target(points)) : log_ei(points);
                                }};
  const Eigen::VectorXd chosen = maximize_acquisition(
      acquisition, gp_space, incumbents(history), rng, acquisition_search(posterior.x().rows()));
  for (size_t d = 0; d < gp_space.size(); ++d)
    values[gp_space.dims()[d].name] = gp_space.decode(d, chosen[static_cast<Eigen::Index>(d)]);
  return drop_inactive(space, std::move(values));
}

}  // namespace hpo
