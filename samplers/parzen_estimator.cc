#include "samplers/parzen_estimator.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "samplers/kernel_width.h"
#include "samplers/kernels/categorical.h"
#include "samplers/kernels/continuous.h"
#include "samplers/kernels/discrete.h"
#include "samplers/kernels/neighbour_gaps.h"
#include "samplers/truncnorm.h"
#include "samplers/uniform.h"

namespace hpo {

namespace {

constexpr double kMinSigma = 1e-12;  // the floor when the magic clip is off

// sum(exp(max(terms - top, -80))), each exp in float, added in double in
// order: exactly what Eigen's scalar reduction of that expression gives.
// Most of g(x)'s thousands of kernels are far from any one candidate, and
// a term below half of the running sum's last bit leaves the sum as it is:
// such terms are neither computed nor added. The sum is at least the
// largest term so far, exp(m), and its last bit at least 2^-52 of it, so a
// term exp(v) with v < m - 37.5 (2^-54 with room for the float roundings)
// is one of them. The terms to add are picked first, without branches:
// which are far is as good as random from one kernel to the next.
double sum_float_exps(const Eigen::ArrayXd& terms, double top) {
  Eigen::ArrayXi kept(terms.size());  // not zeroed: as long as g(x), for every candidate
  Eigen::Index n_kept = 0;
  double m = -80.0;
  for (Eigen::Index k = 0; k < terms.size(); ++k) {
    const double v = std::max(terms(k) - top, -80.0);
    m = std::max(m, v);
    kept(n_kept) = static_cast<int>(k);
    n_kept += v >= m - 37.5 ? 1 : 0;
  }
  double sum = 0;
  for (Eigen::Index i = 0; i < n_kept; ++i) {
    const double v = std::max(terms(kept(i)) - top, -80.0);
    sum += static_cast<double>(std::exp(static_cast<float>(v)));  // 0 + the first: the first
  }
  return sum;
}

// log(sum(exp(terms))). Terms far below the largest are raised first, to a
// value negligible against the largest term's 1 but still a normal number:
// exp is far slower when its results are subnormal. Long sums take each
// exp in float: their 1e-7 relative error only perturbs the score of each
// candidate by 1e-7, well below what separates candidates.
double log_sum_exp(const Eigen::ArrayXd& terms) {
  const double top = terms.maxCoeff();
  if (!std::isfinite(top)) return top;
  if (terms.size() < 256) return top + std::log((terms - top).max(-600.0).exp().sum());
  return top + std::log(sum_float_exps(terms, top));
}

// The kernels sorted as sorted_by_value sorts them, from the observations'
// order: the prior kernel (`prior`, -1 for none), last of all kernels, goes
// after the observations at or below its mean.
std::vector<int> with_prior(const std::vector<int>& sorted_obs, const Eigen::ArrayXd& mus,
                            int prior) {
  if (prior < 0) return sorted_obs;
  std::vector<int> order;
  order.reserve(sorted_obs.size() + 1);
  const auto after = std::upper_bound(sorted_obs.begin(), sorted_obs.end(), mus(prior),
                                      [&](double mu, int k) { return mu < mus(k); });
  order.insert(order.end(), sorted_obs.begin(), after);
  order.push_back(prior);
  order.insert(order.end(), after, sorted_obs.end());
  return order;
}

}  // namespace

struct ParzenEstimator::Dim {
  KernelDim space;
  Eigen::ArrayXd mu, sigma;  // numeric: one mean and bandwidth per kernel
  ContinuousKernels continuous;
  GridKernels grid;  // numeric: the slots; grids: the groups too
  CategoricalKernels categorical;
};

struct ParzenEstimator::Prepared {
  const Dim* dim = nullptr;
  Eigen::Index column = 0;
  Eigen::ArrayXd inv_sigma;  // continuous
  GridTable table;  // grid
};

ParzenEstimator::ParzenEstimator(std::vector<KernelDim> dims, const Eigen::ArrayXXd& obs,
                                 const Eigen::ArrayXd& weights, const ParzenOptions& options,
                                 const std::vector<std::vector<int>>& order,
                                 const ParzenEstimator* before)
    : options_(options), n_obs_(static_cast<int>(obs.rows())) {
  // With no observations the prior is all there is.
  has_prior_ = options.consider_prior || n_obs_ == 0;
  const int n_kernels = n_obs_ + (has_prior_ ? 1 : 0);
  Eigen::ArrayXd& w = weights_;
  w.resize(n_kernels);
  w.head(n_obs_) = weights;
  if (has_prior_)
    w(n_obs_) =
        options.prior_kernel_weight < 0 ? options.prior_weight : options.prior_kernel_weight;
  w /= w.sum();
  // One grid or categorical dimension pools the weights themselves (see
  // discrete_log_pdf): no log of each.
  if (dims.size() != 1 || !is_discrete(dims[0])) log_weights_ = w.log();
  cumulative_.resize(n_kernels);
  std::partial_sum(w.begin(), w.end(), cumulative_.begin());

  dims_.resize(dims.size());
  for (size_t j = 0; j < dims.size(); ++j) {
    dims_[j].space = dims[j];
    const auto column = obs.col(static_cast<Eigen::Index>(j));
    if (dims[j].categorical) {
      dims_[j].categorical.fit(dims[j].n_choices, column, has_prior_, options.prior_weight,
                               options.categorical_prior_weight);
    } else {
      fit_numeric(dims_[j], column, j < order.size() ? order[j] : std::vector<int>{},
                  same_dim(before, j));
    }
  }
  find_classes();
}

ParzenEstimator::~ParzenEstimator() = default;

const Eigen::ArrayXd& ParzenEstimator::mus(int dim) const { return dims_[dim].mu; }
const Eigen::ArrayXd& ParzenEstimator::sigmas(int dim) const { return dims_[dim].sigma; }

void ParzenEstimator::find_classes() {
  for (size_t j = 0; j < dims_.size(); ++j) {
    if (is_discrete(dims_[j].space)) discrete_.push_back(j);
  }
  if (discrete_.size() < 2) {
    discrete_.clear();
    return;
  }
  // Refined one dimension at a time: a class and a key make the next class.
  // Keys are few (grid groups, choices), so a dense table numbers the pairs;
  // when classes would be nearly as many as kernels they are not worth it.
  class_ = Eigen::ArrayXi::Zero(n_kernels());
  int n_classes = 1;
  std::vector<int> next;
  for (size_t j : discrete_) {
    const Dim& dim = dims_[j];
    const bool categorical = dim.space.categorical;
    const Eigen::ArrayXi& keys = categorical ? dim.categorical.choice : dim.grid.group;
    const int shift = categorical ? 1 : 0;  // the prior's choice is -1
    const size_t radix =
        static_cast<size_t>(categorical ? dim.space.n_choices + 1 : dim.grid.group_mu.size());
    if (static_cast<size_t>(n_classes) * radix > static_cast<size_t>(n_kernels()) + 64) {
      discrete_.clear();
      return;
    }
    next.assign(static_cast<size_t>(n_classes) * radix, -1);
    n_classes = 0;
    for (Eigen::Index k = 0; k < class_.size(); ++k) {
      int& id = next[static_cast<size_t>(class_(k)) * radix + static_cast<size_t>(keys(k) + shift)];
      if (id < 0) id = n_classes++;
      class_(k) = id;
    }
  }
  if (2 * n_classes > n_kernels()) {
    discrete_.clear();
    return;
  }
  class_kernel_.assign(static_cast<size_t>(n_classes), 0);
  for (Eigen::Index k = class_.size() - 1; k >= 0; --k)
    class_kernel_[static_cast<size_t>(class_(k))] = k;
}

Eigen::ArrayXd ParzenEstimator::bandwidths(const Dim& dim, const Eigen::ArrayXd& mus,
                                           const std::vector<int>& given) const {
  const double low = dim.space.low, high = dim.space.high;
  const Eigen::Index n = mus.size();
  if (options_.bandwidth == TpeBandwidth::kScott) {
    return Eigen::ArrayXd::Constant(n, scott_bandwidth(mus));
  }
  if (options_.multivariate && options_.bandwidth == TpeBandwidth::kOptuna) {
    // Scott's rule, as in BOHB: one bandwidth for all kernels.
    const double n_dims = static_cast<double>(dims_.size());
    const double sigma0 = 0.2 * std::pow(std::max(n_obs_, 1), -1.0 / (n_dims + 4));
    return Eigen::ArrayXd::Constant(n, sigma0 * (high - low));
  }
  // Without endpoints (Optuna's default), the outermost kernels look only
  // inwards; Hyperopt's rule always counts the domain's ends.
  const bool endpoints =
      options_.consider_endpoints || options_.bandwidth == TpeBandwidth::kNeighbours;
  // A grid's kernels need no sort where each slot holds one value.
  if (given.empty()) {
    Eigen::ArrayXd sigma =
        grid_neighbour_gaps(mus, dim.grid.slot, dim.grid.n_slots, low, high, endpoints);
    if (sigma.size() == n) return sigma;
  }
  // Sorted with the kernel's index as tie-break: ties are common on grids,
  // and the index keeps the result independent of the sort algorithm.
  const auto order = given.empty() ? sorted_by_value(mus, dim.grid.slot, dim.grid.n_slots)
                                   : with_prior(given, mus, has_prior_ ? n_obs_ : -1);
  return neighbour_gaps(mus, order, low, high, endpoints);
}

const ParzenEstimator::Dim* ParzenEstimator::same_dim(const ParzenEstimator* before,
                                                      size_t j) const {
  if (!before || j >= before->dims_.size() || before->options_.normalized != options_.normalized)
    return nullptr;
  const KernelDim &a = dims_[j].space, &b = before->dims_[j].space;
  const bool same =
      !a.categorical && !b.categorical && a.q == b.q && a.low == b.low && a.high == b.high;
  return same ? &before->dims_[j] : nullptr;
}

void ParzenEstimator::fit_numeric(Dim& dim, const Eigen::Ref<const Eigen::ArrayXd>& obs,
                                  const std::vector<int>& order, const Dim* before) const {
  const double low = dim.space.low, high = dim.space.high, range = high - low;
  const Eigen::Index n = n_kernels();
  dim.mu.resize(n);
  dim.mu.head(n_obs_) = obs;
  if (has_prior_) dim.mu(n_obs_) = 0.5 * (low + high);
  // Where each kernel sits on a grid, for the bandwidths and the groups.
  dim.grid.fit_slots(dim.mu, dim.space);
  // Bandwidths are clipped to [floor, range]: the floor keeps a few close
  // observations from making l(x) a spike.
  const double min_sigma =
      options_.consider_magic_clip
          ? magic_min_bandwidth(range, static_cast<int>(n), options_.min_bandwidth_factor,
                                options_.magic_clip_exponent)
          : kMinSigma;
  dim.sigma = bandwidths(dim, dim.mu, order).max(min_sigma).min(range);
  // A grid kernel narrower than a step is a spike on its own point, and its
  // neighbours, a batch size apart, would get nearly nothing.
  if (dim.space.q > 0 && options_.min_bandwidth_step)
    dim.sigma = dim.sigma.max(std::min(dim.space.q, range));
  if (has_prior_) dim.sigma(n_obs_) = range;

  if (dim.space.q == 0) {
    const ContinuousKernels::Before reuse{before ? before->mu : dim.mu,
                                          before ? before->sigma : dim.sigma,
                                          before ? before->continuous : dim.continuous};
    dim.continuous.fit(dim.mu, dim.sigma, low, high, options_.normalized,
                       before ? &reuse : nullptr);
  } else {
    dim.grid.group_kernels(dim.mu, dim.sigma, dim.space, before ? &before->grid : nullptr);
  }
}

Eigen::ArrayXXd ParzenEstimator::sample(std::mt19937_64& rng, int n) const {
  Eigen::ArrayXXd out(n, static_cast<Eigen::Index>(dims_.size()));
  const double total = cumulative_(cumulative_.size() - 1);
  for (int i = 0; i < n; ++i) {
    const double u = uniform01(rng) * total;
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    const int kernel = std::min(static_cast<int>(it - cumulative_.begin()), n_kernels() - 1);
    for (size_t j = 0; j < dims_.size(); ++j) {
      out(i, static_cast<Eigen::Index>(j)) = sample_dim(dims_[j], kernel, rng);
    }
  }
  return out;
}

double ParzenEstimator::sample_dim(const Dim& dim, int kernel, std::mt19937_64& rng) const {
  const double u = uniform01(rng);
  if (!dim.space.categorical) {
    const double mu = dim.mu(kernel), s = dim.sigma(kernel);
    return mu + s * truncnorm::sample((dim.space.low - mu) / s, (dim.space.high - mu) / s, u);
  }
  return dim.categorical.sample(kernel, u);
}

Eigen::ArrayXd ParzenEstimator::log_pdf(const Eigen::ArrayXXd& x) const {
  if (dims_.size() == 1 && is_discrete(dims_[0].space)) {
    return discrete_log_pdf(dims_[0], x.col(0));
  }
  std::vector<Prepared> prepared;
  for (size_t j = 0; j < dims_.size(); ++j) {
    prepared.push_back(prepare(dims_[j], x.col(static_cast<Eigen::Index>(j))));
  }
  // One point at a time, so that its column of per-kernel log densities
  // stays in cache while each dimension adds to it. Points are independent:
  // in parallel when there is enough work to pay for it.
  Eigen::ArrayXd out(x.rows());
  auto points = [&](const tbb::blocked_range<Eigen::Index>& range) {
    Eigen::ArrayXd acc(n_kernels());
    Eigen::ArrayXd by_class(static_cast<Eigen::Index>(class_kernel_.size()));
    for (Eigen::Index c = range.begin(); c < range.end(); ++c) {
      if (discrete_.empty()) {
        acc.head(acc.size()) = log_weights_;  // no resize: GCC 12 misreads one as use-after-free
      } else {
        for (size_t i = 0; i < class_kernel_.size(); ++i) {
          double sum = 0;
          for (size_t j : discrete_)
            sum += discrete_term(prepared[j], x(c, prepared[j].column), c, class_kernel_[i]);
          by_class(static_cast<Eigen::Index>(i)) = sum;
        }
        for (Eigen::Index k = 0; k < acc.size(); ++k)
          acc(k) = log_weights_(k) + by_class(class_(k));
      }
      for (const auto& p : prepared) {
        if (discrete_.empty() || !is_discrete(p.dim->space)) add_log_pdf(p, x(c, p.column), c, acc);
      }
      out(c) = log_sum_exp(acc);
    }
  };
  const tbb::blocked_range<Eigen::Index> all(0, x.rows());
  if (n_kernels() * x.rows() < 100000) {
    points(all);
  } else {
    tbb::parallel_for(all, points);
  }
  return out;
}

ParzenEstimator::Prepared ParzenEstimator::prepare(const Dim& dim, const Eigen::ArrayXd& x) const {
  Prepared p;
  p.dim = &dim;
  p.column = static_cast<Eigen::Index>(&dim - dims_.data());
  if (dim.space.q > 0) p.table = dim.grid.table(dim.space, x);
  if (!dim.space.categorical && dim.space.q == 0) p.inv_sigma = dim.sigma.inverse();
  return p;
}

void ParzenEstimator::add_log_pdf(const Prepared& p, double x, Eigen::Index c,
                                  Eigen::ArrayXd& acc) const {
  const Dim& dim = *p.dim;
  if (is_discrete(dim.space)) {
    for (Eigen::Index k = 0; k < acc.size(); ++k) acc(k) += discrete_term(p, x, c, k);
  } else {
    dim.continuous.add_log_terms(dim.mu, p.inv_sigma, x, acc);
  }
}

// A discrete dimension's log density under `kernel` at point `c` (x).
double ParzenEstimator::discrete_term(const Prepared& p, double x, Eigen::Index c,
                                      Eigen::Index kernel) const {
  const Dim& dim = *p.dim;
  if (dim.space.categorical) return dim.categorical.log_term(kernel, x);
  return p.table.at(dim.grid.group(kernel), c);
}

Eigen::ArrayXd ParzenEstimator::discrete_log_pdf(const Dim& dim, const Eigen::ArrayXd& x) const {
  // On one grid or categorical dimension the mixture collapses: kernels
  // with the same (mu, sigma), or the same observed choice, pool weights.
  if (dim.space.categorical) return dim.categorical.log_pdf(weights_, x);
  const GridTable table = dim.grid.table(dim.space, x);
  const Eigen::ArrayXd log_pooled = dim.grid.pooled_log_weights(weights_);
  Eigen::ArrayXd out(x.size());
  Eigen::ArrayXd terms(log_pooled.size());
  for (Eigen::Index c = 0; c < x.size(); ++c) {
    terms.head(terms.size()) =
        log_pooled + table.log_mass.col(table.value_of[static_cast<size_t>(c)]);
    out(c) = log_sum_exp(terms);
  }
  return out;
}

}  // namespace hpo
