#include "samplers/tpe_sampler.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "samplers/random_sampler.h"
#include "samplers/tpe_groups.h"

namespace hpo {

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

// The observations of `group` in the trials `rows` that hold all of it;
// those trials in `kept`.
Eigen::ArrayXXd observations(const Eigen::ArrayXXd& values, const std::vector<int>& rows,
                             const std::vector<int>& group, std::vector<int>& kept) {
  for (int r : rows) {
    bool held = true;
    for (int p : group) held = held && !std::isnan(values(r, p));
    if (held) kept.push_back(r);
  }
  Eigen::ArrayXXd obs(static_cast<Eigen::Index>(kept.size()), static_cast<Eigen::Index>(group.size()));
  for (size_t i = 0; i < kept.size(); ++i) {
    for (size_t j = 0; j < group.size(); ++j) {
      obs(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = values(kept[i], group[j]);
    }
  }
  return obs;
}

}  // namespace

ParamValues TpeSampler::ask(const SearchSpace& space, int number) {
  Model model;
  model.split = split_trials(history(), direction(), options_.constant_liar, options_.gamma,
                             options_.split);
  if (model.split.n_finished < options_.n_startup_trials) {
    // Exactly the random sampler's draws, so a study's first trials do not
    // depend on which of the two it uses.
    std::mt19937_64 rng(trial_seed(number));
    ParamValues values;
    for (const auto& p : space) values[p.name] = sample_uniform(p.distribution, rng);
    return values;
  }
  ParamValues out;
  std::vector<int> free;
  for (size_t j = 0; j < space.size(); ++j) {
    model.params.emplace_back(space[j].distribution, options_.ordered_choices);
    if (model.params.back().single()) {
      out[space[j].name] = model.params.back().to_internal(model.params.back().kernel().low);
    } else {
      free.push_back(static_cast<int>(j));
    }
  }
  model.values = model_values(space, model);
  // Groups are independent: each draws from its own stream, so they can be
  // fitted in parallel and still give the same suggestion.
  const auto todo = groups(model, free);
  std::vector<ParamValues> found(todo.size());
  tbb::parallel_for(size_t{0}, todo.size(), [&](size_t i) {
    std::mt19937_64 rng(trial_seed(number, 1 + static_cast<uint64_t>(todo[i].front())));
    sample_group(todo[i], space, model, rng, found[i]);
  });
  for (const auto& values : found) out.insert(values.begin(), values.end());
  return out;
}

Eigen::ArrayXXd TpeSampler::model_values(const SearchSpace& space, const Model& model) const {
  // Merge each trial's (sorted) parameters with the space's names sorted:
  // linear per trial, where a lookup per parameter would dominate the ask.
  std::vector<std::pair<const std::string*, int>> names;
  for (size_t j = 0; j < space.size(); ++j) names.emplace_back(&space[j].name, static_cast<int>(j));
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
  const auto& trials = model.split.trials;
  Eigen::ArrayXXd values = Eigen::ArrayXXd::Constant(static_cast<Eigen::Index>(trials.size()),
                                                     static_cast<Eigen::Index>(space.size()), kMissing);
  for (size_t i = 0; i < trials.size(); ++i) {
    auto it = trials[i]->params.begin();
    const auto end = trials[i]->params.end();
    for (const auto& [name, j] : names) {
      int order = -1;
      while (it != end && (order = it->first.compare(*name)) < 0) ++it;
      if (it == end) break;
      if (order != 0) continue;
      // A value outside today's distribution (the space changed) is no
      // observation of it.
      const auto& dist = space[static_cast<size_t>(j)].distribution;
      if (contains(dist, it->second)) {
        values(static_cast<Eigen::Index>(i), j) = model.params[static_cast<size_t>(j)].to_model(it->second);
      }
    }
  }
  return values;
}

std::vector<std::vector<int>> TpeSampler::groups(const Model& model,
                                                 const std::vector<int>& free) const {
  if (!options_.multivariate) {
    std::vector<std::vector<int>> singles;
    for (int p : free) singles.push_back({p});
    return singles;
  }
  // Which free parameters each finished trial holds; a run of trials with
  // the same parameters (the usual case) is one entry.
  Presence present;
  std::vector<bool> held(free.size());
  for (size_t i = 0; i < model.split.trials.size(); ++i) {
    if (model.split.trials[i]->state == TrialState::kRunning) continue;
    for (size_t k = 0; k < free.size(); ++k) {
      held[k] = !std::isnan(model.values(static_cast<Eigen::Index>(i), free[k]));
    }
    if (present.empty() || present.back() != held) present.push_back(held);
  }
  const int n = static_cast<int>(free.size());
  auto local = options_.group ? decompose_groups(n, present) : intersection_groups(n, present);
  for (auto& g : local) {
    for (int& p : g) p = free[static_cast<size_t>(p)];
  }
  return local;
}

Eigen::ArrayXd TpeSampler::weights(const Model& model, const std::vector<int>& rows, bool below) const {
  const int n = static_cast<int>(rows.size());
  switch (options_.weighting) {
    case TpeWeighting::kOptuna:
      return default_weights(n);
    case TpeWeighting::kExpectedImprovement:
      if (below) {
        Eigen::ArrayXd losses(n);
        for (int i = 0; i < n; ++i) losses(i) = model.split.loss[static_cast<size_t>(rows[static_cast<size_t>(i)])];
        return improvement_weights(losses, model.split.threshold);
      }
      return Eigen::ArrayXd::Ones(n);
    case TpeWeighting::kUniform:
      break;
  }
  return Eigen::ArrayXd::Ones(n);
}

void TpeSampler::sample_group(const std::vector<int>& group, const SearchSpace& space,
                              const Model& model, std::mt19937_64& rng, ParamValues& out) const {
  std::vector<KernelDim> dims;
  for (int p : group) dims.push_back(model.params[static_cast<size_t>(p)].kernel());
  ParzenOptions popts;
  popts.consider_prior = options_.consider_prior;
  popts.prior_weight = options_.prior_weight;
  popts.consider_magic_clip = options_.consider_magic_clip;
  popts.min_bandwidth_factor = options_.min_bandwidth_factor;
  popts.magic_clip_exponent = options_.magic_clip_exponent;
  popts.min_bandwidth_step = options_.min_bandwidth_step;
  popts.consider_endpoints = options_.consider_endpoints;
  popts.multivariate = options_.multivariate;
  popts.bandwidth = options_.bandwidth;
  popts.normalized = options_.normalized_kernels;
  popts.categorical_prior_weight = options_.categorical_prior_weight;
  std::vector<int> below_rows, above_rows;
  const Eigen::ArrayXXd below = observations(model.values, model.split.below, group, below_rows);
  const Eigen::ArrayXXd above = observations(model.values, model.split.above, group, above_rows);
  const Eigen::ArrayXd below_w = weights(model, below_rows, true);
  ParzenOptions below_opts = popts;
  // The prior keeps its share against weights that are no longer 1 each.
  if (options_.weighting == TpeWeighting::kExpectedImprovement && below_w.size() > 0) {
    below_opts.prior_kernel_weight = options_.prior_weight * below_w.mean();
  }
  const ParzenEstimator l(dims, below, below_w, below_opts);
  const ParzenEstimator g(dims, above, weights(model, above_rows, false), popts);

  // Draws from l(x), snapped into each distribution; scored on the snapped
  // points, which is what would be suggested.
  Eigen::ArrayXXd candidates = l.sample(rng, options_.n_ei_candidates);
  Eigen::ArrayXXd internal(candidates.rows(), candidates.cols());
  for (Eigen::Index c = 0; c < candidates.rows(); ++c) {
    for (size_t j = 0; j < group.size(); ++j) {
      const auto& param = model.params[static_cast<size_t>(group[j])];
      const auto col = static_cast<Eigen::Index>(j);
      internal(c, col) = param.to_internal(candidates(c, col));
      candidates(c, col) = param.to_model(internal(c, col));
    }
  }
  const Eigen::ArrayXd score = l.log_pdf(candidates) - g.log_pdf(candidates);
  Eigen::Index best = 0;
  for (Eigen::Index c = 1; c < score.size(); ++c) {
    if (score(c) > score(best)) best = c;
  }
  for (size_t j = 0; j < group.size(); ++j) {
    out[space[static_cast<size_t>(group[j])].name] = internal(best, static_cast<Eigen::Index>(j));
  }
}

}  // namespace hpo
