#include "samplers/tpe_sampler.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "samplers/conditions.h"
#include "samplers/prior_observations.h"
#include "samplers/startup.h"
#include "samplers/tpe_groups.h"

namespace hpo {

namespace {

// The observations of `group` in the trials `rows` that hold all of it;
// those trials in `kept`.
Eigen::ArrayXXd observations(const TpeHistory& values, const std::vector<int>& rows,
                             const std::vector<int>& group, std::vector<int>& kept) {
  // Whether each of the few parameter patterns holds the group: one lookup
  // per trial instead of a read of each of its values.
  std::vector<char> holds(static_cast<size_t>(values.n_patterns()));
  for (size_t k = 0; k < holds.size(); ++k) {
    const auto& held = values.held(static_cast<int>(k));
    holds[k] = std::all_of(group.begin(), group.end(),
                           [&](int p) { return held[static_cast<size_t>(p)]; });
  }
  kept.reserve(rows.size());
  for (int r : rows) {
    if (holds[static_cast<size_t>(values.pattern(r))]) kept.push_back(r);
  }
  // Trial by trial: one pass over the history's rows, which are row-major.
  Eigen::ArrayXXd obs(static_cast<Eigen::Index>(kept.size()),
                      static_cast<Eigen::Index>(group.size()));
  for (size_t i = 0; i < kept.size(); ++i) {
    for (size_t j = 0; j < group.size(); ++j) {
      obs(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          values.value(kept[i], group[j]);
    }
  }
  return obs;
}

// Per parameter of `group`, the observations `kept` (rows, ascending) by
// value, as indices into `kept`: read off the history's sorted rows
// instead of sorted anew (see ParzenEstimator). Only continuous parameters
// need them (grids count their few values, categoricals have no
// bandwidth), and only for many trials: a few are cheaper to sort than to
// pick out of the whole history.
std::vector<std::vector<int>> sorted_columns(const TpeHistory& values, const std::vector<int>& kept,
                                             const std::vector<int>& group) {
  std::vector<std::vector<int>> order(group.size());
  if (kept.size() * 4 < values.ranks().size()) return order;
  std::vector<int> kernel_of;
  for (size_t j = 0; j < group.size(); ++j) {
    const KernelDim& dim = values.params()[static_cast<size_t>(group[j])].kernel();
    if (dim.categorical || dim.q > 0) continue;
    if (kernel_of.empty()) {
      kernel_of.assign(values.ranks().size(), -1);
      for (size_t i = 0; i < kept.size(); ++i)
        kernel_of[static_cast<size_t>(kept[i])] = static_cast<int>(i);
    }
    order[j].reserve(kept.size());
    for (int r : values.sorted(group[j])) {
      const int k = kernel_of[static_cast<size_t>(r)];
      if (k >= 0) order[j].push_back(k);
    }
  }
  return order;
}

}  // namespace

void TpeSampler::tell(const TrialView& trial) {
  Sampler::tell(trial);
  told_.push_back(trial.number);
}

ParamValues TpeSampler::ask(const SearchSpace& space, int number) {
  WeightedPrior trusted;
  if (prior().empty()) {
    rows_.update(history(), std::move(told_), space);
  } else {
    // Prior observations (warm start), on the fidelity rule of
    // prior_observations.h: standardizing within each source moves every
    // value as a trial arrives, and a source may drop out, so the rows are
    // read again from scratch.
    trusted = tpe_prior(history(), prior(), space);
    rows_ = TpeHistory(direction(), options_.constant_liar, options_.ordered_choices);
    const auto merged = with_prior(history(), trusted.trials);
    std::vector<int> all;
    for (const auto& entry : merged) all.push_back(entry.first);
    rows_.update(merged, std::move(all), space);
  }
  told_.clear();
  const Model model{rows_, split(), std::move(trusted.weights)};
  // A warm-started study's startup is its first kWarmStartup trials
  // (prior_observations.h), counted as asked rather than finished, as the
  // GP's.
  if (prior().empty() ? model.split.n_finished < options_.n_startup_trials
                      : number < kWarmStartup || model.split.n_finished == 0) {
    // The GP's startup points too (startup.h), so that a study's first
    // trials do not depend on which of the two it uses.
    const int point = prior().empty() ? number : warm_startup_point(number, prior().size());
    return drop_inactive(space,
                         startup_values(options_.startup, space, seed(), trial_seed(point), point));
  }
  ParamValues out;
  std::vector<int> free;
  for (size_t j = 0; j < space.size(); ++j) {
    const TpeParam& param = rows_.params()[j];
    if (param.single()) {
      out[space[j].name] = param.to_internal(param.kernel().low);
    } else {
      free.push_back(static_cast<int>(j));
    }
  }
  // Groups are independent: each draws from its own stream, so they can be
  // fitted in parallel and still give the same suggestion.
  const auto todo = groups(model, free, is_conditional(space));
  // Each group's memo is found here, before the groups run in parallel, and
  // the memos of groups this ask does not have are dropped.
  std::map<std::vector<int>, GroupMemo> memos;
  for (const auto& group : todo) {
    GroupMemo& memo = memos[group];
    const auto it = memos_.find(group);
    if (it != memos_.end()) memo = std::move(it->second);
  }
  memos_ = std::move(memos);
  std::vector<ParamValues> found(todo.size());
  tbb::parallel_for(size_t{0}, todo.size(), [&](size_t i) {
    std::mt19937_64 rng(trial_seed(number, 1 + static_cast<uint64_t>(todo[i].front())));
    sample_group(todo[i], space, model, memos_.at(todo[i]), rng, found[i]);
  });
  for (const auto& values : found) out.insert(values.begin(), values.end());
  // Every group is drawn, each from the trials that hold it (Optuna's
  // group=True); a child whose parent chose otherwise is then dropped.
  return drop_inactive(space, std::move(out));
}

TpeSplit TpeSampler::split() const {
  return split_ranked(rows_.ranks(), options_.gamma, options_.split);
}

std::vector<std::vector<int>> TpeSampler::groups(const Model& model, const std::vector<int>& free,
                                                 bool conditional) const {
  const bool wide = options_.per_parameter_from > 0 &&
                    free.size() >= static_cast<size_t>(options_.per_parameter_from);
  if (!options_.multivariate || wide) {
    std::vector<std::vector<int>> singles;
    for (int p : free) singles.push_back({p});
    return singles;
  }
  // Which free parameters each finished trial holds; a run of trials with
  // the same parameters (the usual case) is one entry.
  Presence present;
  std::vector<bool> held(free.size());
  const auto& ranks = model.rows.ranks();
  int last = -1;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (!ranks[i].counts || ranks[i].running) continue;
    const int pattern = model.rows.pattern(static_cast<int>(i));
    if (pattern == last) continue;
    last = pattern;
    const auto& all = model.rows.held(pattern);
    for (size_t k = 0; k < free.size(); ++k) held[k] = all[static_cast<size_t>(free[k])];
    if (present.empty() || present.back() != held) present.push_back(held);
  }
  const int n = static_cast<int>(free.size());
  // A conditional space is always decomposed, as Optuna's group=True does:
  // the parameters of one branch are modelled jointly, on the trials that
  // took it, instead of each alone.
  auto local = options_.group || conditional ? decompose_groups(n, present)
                                             : intersection_groups(n, present);
  for (auto& g : local) {
    for (int& p : g) p = free[static_cast<size_t>(p)];
  }
  return local;
}

Eigen::ArrayXd TpeSampler::weights(const Model& model, const std::vector<int>& rows,
                                   bool below) const {
  Eigen::ArrayXd w = own_weights(model, rows, below);
  // Prior observations (numbered below 0) count for less than this study's
  // (prior_observations.h).
  for (Eigen::Index i = 0; i < w.size(); ++i) {
    const int number = model.rows.number(rows[static_cast<size_t>(i)]);
    if (number < 0) w(i) *= model.prior_weight[static_cast<size_t>(-1 - number)];
  }
  return w;
}

Eigen::ArrayXd TpeSampler::own_weights(const Model& model, const std::vector<int>& rows,
                                       bool below) const {
  const int n = static_cast<int>(rows.size());
  if (below && !model.split.below_weight.empty()) {
    Eigen::ArrayXd w(n);
    for (int i = 0; i < n; ++i)
      w(i) = model.split.below_weight[static_cast<size_t>(rows[static_cast<size_t>(i)])];
    return w;
  }
  switch (options_.weighting) {
    case TpeWeighting::kOptuna:
      return default_weights(n);
    case TpeWeighting::kExpectedImprovement:
      if (below) {
        Eigen::ArrayXd losses(n);
        for (int i = 0; i < n; ++i)
          losses(i) = model.split.loss[static_cast<size_t>(rows[static_cast<size_t>(i)])];
        return improvement_weights(losses, model.split.threshold);
      }
      return Eigen::ArrayXd::Ones(n);
    case TpeWeighting::kUniform:
      break;
  }
  return Eigen::ArrayXd::Ones(n);
}

void TpeSampler::sample_group(const std::vector<int>& group, const SearchSpace& space,
                              const Model& model, GroupMemo& memo, std::mt19937_64& rng,
                              ParamValues& out) const {
  std::vector<KernelDim> dims;
  for (int p : group) dims.push_back(model.rows.params()[static_cast<size_t>(p)].kernel());
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
  const Eigen::ArrayXXd below = observations(model.rows, model.split.below, group, below_rows);
  const Eigen::ArrayXXd above = observations(model.rows, model.split.above, group, above_rows);
  const Eigen::ArrayXd below_w = weights(model, below_rows, true);
  ParzenOptions below_opts = popts;
  // The prior keeps its share against weights that are no longer 1 each.
  const bool reweighted =
      options_.weighting == TpeWeighting::kExpectedImprovement || !model.split.below_weight.empty();
  if (reweighted && below_w.size() > 0) {
    below_opts.prior_kernel_weight = options_.prior_weight * below_w.mean();
  }
  const ParzenEstimator& l = memo.below.fit(dims, below, below_w, below_opts,
                                            sorted_columns(model.rows, below_rows, group));
  const ParzenEstimator& g = memo.above.fit(dims, above, weights(model, above_rows, false), popts,
                                            sorted_columns(model.rows, above_rows, group));

  // Draws from l(x), snapped into each distribution; scored on the snapped
  // points, which is what would be suggested.
  Eigen::ArrayXXd candidates = l.sample(rng, options_.n_ei_candidates);
  Eigen::ArrayXXd internal(candidates.rows(), candidates.cols());
  for (Eigen::Index c = 0; c < candidates.rows(); ++c) {
    for (size_t j = 0; j < group.size(); ++j) {
      const auto& param = model.rows.params()[static_cast<size_t>(group[j])];
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
