#include "samplers/parzen_estimator.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "samplers/kernel_width.h"
#include "samplers/truncnorm.h"

namespace hpo {

namespace {

constexpr double kMinSigma = 1e-12;  // the floor when the magic clip is off

struct MuSigma {
  double mu, sigma;
  bool operator==(const MuSigma& o) const { return mu == o.mu && sigma == o.sigma; }
};

struct MuSigmaHash {
  size_t operator()(const MuSigma& k) const {
    return std::hash<double>()(k.mu) * 31 + std::hash<double>()(k.sigma);
  }
};

// log(sum(exp(terms))). Terms far below the largest are raised first, to a
// value negligible against the largest term's 1 but still a normal number:
// exp is far slower when its results are subnormal. Long sums run in float,
// twice as wide in SIMD; their 1e-7 relative error only perturbs the score
// of each candidate by 1e-7, well below what separates candidates.
double log_sum_exp(const Eigen::ArrayXd& terms) {
  const double top = terms.maxCoeff();
  if (!std::isfinite(top)) return top;
  if (terms.size() < 256) return top + std::log((terms - top).max(-600.0).exp().sum());
  return top + std::log((terms - top).max(-80.0).cast<float>().exp().cast<double>().sum());
}

// Grids and categoricals: dimensions whose kernels take few distinct forms.
bool is_discrete(const KernelDim& dim) { return dim.categorical || dim.q > 0; }

// Where a grid kernel's mean lies, in half steps from the first grid point:
// observations are on the grid (even slots), the prior may sit between two
// points (an odd slot). -1 when the grid is too fine to bucket cheaply.
Eigen::ArrayXi half_step_slots(const Eigen::ArrayXd& mus, const KernelDim& space, int& n_slots) {
  const double first = space.low + 0.5 * space.q;
  const double n_points = std::round((space.high - space.low) / space.q);
  if (space.q == 0 || n_points > 4.0 * static_cast<double>(mus.size()) + 64) return {};
  n_slots = 2 * static_cast<int>(n_points) - 1;
  Eigen::ArrayXi slot(mus.size());
  for (Eigen::Index i = 0; i < mus.size(); ++i) {
    // floor(v + 0.5), not lround: this loop runs over every kernel.
    slot(i) = std::clamp(static_cast<int>(std::floor(2 * (mus(i) - first) / space.q + 0.5)), 0,
                         n_slots - 1);
  }
  return slot;
}

// The kernels by mean, ties by index. On a grid there are few distinct
// values: counting them is much faster than sorting thousands of ties.
std::vector<int> sorted_by_value(const Eigen::ArrayXd& mus, const Eigen::ArrayXi& slot,
                                 int n_slots) {
  const size_t n = static_cast<size_t>(mus.size());
  std::vector<int> order(n);
  if (slot.size() == 0) {
    std::vector<std::pair<double, int>> pairs(n);
    for (size_t i = 0; i < n; ++i)
      pairs[i] = {mus(static_cast<Eigen::Index>(i)), static_cast<int>(i)};
    std::sort(pairs.begin(), pairs.end());
    for (size_t i = 0; i < n; ++i) order[i] = pairs[i].second;
    return order;
  }
  std::vector<size_t> start(static_cast<size_t>(n_slots) + 1, 0);
  for (size_t i = 0; i < n; ++i)
    ++start[static_cast<size_t>(slot(static_cast<Eigen::Index>(i))) + 1];
  for (size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
  for (size_t i = 0; i < n; ++i)
    order[start[static_cast<size_t>(slot(static_cast<Eigen::Index>(i)))]++] = static_cast<int>(i);
  return order;
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

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

ParzenEstimator::ParzenEstimator(std::vector<KernelDim> dims, const Eigen::ArrayXXd& obs,
                                 const Eigen::ArrayXd& weights, const ParzenOptions& options,
                                 const std::vector<std::vector<int>>& order)
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
      fit_categorical(dims_[j], column);
    } else {
      fit_numeric(dims_[j], column, j < order.size() ? order[j] : std::vector<int>{});
    }
  }
  find_classes();
}

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
    const Eigen::ArrayXi& keys = categorical ? dim.choice : dim.group;
    const int shift = categorical ? 1 : 0;  // the prior's choice is -1
    const size_t radix =
        static_cast<size_t>(categorical ? dim.space.n_choices + 1 : dim.group_mu.size());
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
  // Each kernel is as wide as the larger gap to its sorted neighbours, the
  // domain's ends counting as neighbours.
  // Sorted with the kernel's index as tie-break: ties are common on grids,
  // and the index keeps the result independent of the sort algorithm.
  const auto order = given.empty() ? sorted_by_value(mus, dim.slot, dim.n_slots)
                                   : with_prior(given, mus, has_prior_ ? n_obs_ : -1);
  // Without endpoints (Optuna's default), the outermost kernels look only
  // inwards; Hyperopt's rule always counts the domain's ends.
  const bool endpoints =
      options_.consider_endpoints || options_.bandwidth == TpeBandwidth::kNeighbours;
  Eigen::ArrayXd sigma(n);
  // The sorted means in a window (before, here, after), the domain's ends
  // outside them.
  double before = low, here = n > 0 ? mus(order[0]) : high;
  for (Eigen::Index i = 0; i < n; ++i) {
    const double after = i + 1 < n ? mus(order[static_cast<size_t>(i + 1)]) : high;
    double s = std::max(here - before, after - here);
    if (!endpoints && n >= 2) {
      if (i == 0) s = after - here;
      if (i == n - 1) s = here - before;
    }
    sigma(order[static_cast<size_t>(i)]) = s;
    before = here;
    here = after;
  }
  return sigma;
}

void ParzenEstimator::fit_numeric(Dim& dim, const Eigen::Ref<const Eigen::ArrayXd>& obs,
                                  const std::vector<int>& order) const {
  const double low = dim.space.low, high = dim.space.high, range = high - low;
  const Eigen::Index n = n_kernels();
  dim.mu.resize(n);
  dim.mu.head(n_obs_) = obs;
  if (has_prior_) dim.mu(n_obs_) = 0.5 * (low + high);
  // Where each kernel sits on a grid, for the bandwidths and the groups.
  dim.slot = half_step_slots(dim.mu, dim.space, dim.n_slots);
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
    // As Optuna 3.1 evaluates them, continuous kernels leave out the 1/sigma
    // of a normal density: a kernel is as tall at its mean however narrow,
    // so each weighs in proportion to its width. Wide kernels (the prior,
    // lone observations) then count for more in l(x) and g(x), and a dense
    // cluster of observations flattens g(x) rather than spiking it. Not a
    // normalized density, but l/g only ranks candidates, and it searches
    // better: on tools/bench/sampler_quality/run's synthetic problems the
    // normalized kernels' median regret was up to 2.5x worse (rosenbrock5
    // 391 against 160, branin 0.047 against 0.027). `normalized`
    // gives true densities, as the paper's TPE uses.
    dim.log_norm.resize(n);
    // Most kernels share the bandwidth floor: one log for a run of them.
    double last_sigma = 1.0, log_sigma = 0.0;
    for (Eigen::Index k = 0; k < n; ++k) {
      const double s = dim.sigma(k);
      if (options_.normalized && s != last_sigma) {
        last_sigma = s;
        log_sigma = std::log(s);
      }
      dim.log_norm(k) = -truncnorm::kLogSqrt2Pi -
                        truncnorm::log_gauss_mass((low - dim.mu(k)) / s, (high - dim.mu(k)) / s) -
                        log_sigma;
    }
    return;
  }
  group_kernels(dim);
}

void ParzenEstimator::group_kernels(Dim& dim) const {
  // Kernels with the same (mu, sigma) form a group. A grid's kernels share
  // few means, and each mean few bandwidths: chain the groups per mean.
  const Eigen::Index n = dim.mu.size();
  const Eigen::ArrayXi& slot = dim.slot;
  std::vector<int> head(static_cast<size_t>(std::max(dim.n_slots, 1)), -1), next;
  std::unordered_map<MuSigma, int, MuSigmaHash> hashed;  // for grids too fine to chain
  std::vector<double> mus, sigmas;
  dim.group.resize(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    const double mu = dim.mu(k), sigma = dim.sigma(k);
    int g = -1;
    if (slot.size() == 0) {
      g = hashed.emplace(MuSigma{mu, sigma}, static_cast<int>(mus.size())).first->second;
    } else {
      int& first = head[static_cast<size_t>(slot(k))];
      for (g = first; g >= 0 && !(mus[static_cast<size_t>(g)] == mu &&
                                  sigmas[static_cast<size_t>(g)] == sigma);) {
        g = next[static_cast<size_t>(g)];
      }
      if (g < 0) {
        next.push_back(first);
        first = static_cast<int>(mus.size());
        g = first;
      }
    }
    if (g == static_cast<int>(mus.size())) {
      mus.push_back(mu);
      sigmas.push_back(sigma);
    }
    dim.group(k) = g;
  }
  dim.group_mu =
      Eigen::Map<const Eigen::ArrayXd>(mus.data(), static_cast<Eigen::Index>(mus.size()));
  dim.group_sigma =
      Eigen::Map<const Eigen::ArrayXd>(sigmas.data(), static_cast<Eigen::Index>(sigmas.size()));
  dim.group_log_mass.resize(dim.group_mu.size());
  for (Eigen::Index g = 0; g < dim.group_mu.size(); ++g) {
    const double mu = dim.group_mu(g), s = dim.group_sigma(g);
    dim.group_log_mass(g) =
        truncnorm::log_gauss_mass((dim.space.low - mu) / s, (dim.space.high - mu) / s);
  }
}

void ParzenEstimator::fit_categorical(Dim& dim, const Eigen::Ref<const Eigen::ArrayXd>& obs) const {
  const int n_choices = dim.space.n_choices;
  dim.choice.resize(n_kernels());
  for (int k = 0; k < n_obs_; ++k) dim.choice(k) = static_cast<int>(std::lround(obs(k)));
  if (has_prior_) dim.choice(n_obs_) = -1;
  if (options_.categorical_prior_weight > 0 && n_choices > 1) {
    // Aitchison-Aitken: a fixed share b spread over the other choices.
    const double b = options_.categorical_prior_weight;
    dim.log_hit = std::log(1 - b);
    dim.log_miss = std::log(b / (n_choices - 1));
    return;
  }
  // Each observation kernel spreads the prior weight over every choice and
  // puts 1 on its own: (1 + p) at the hit, p elsewhere, normalized.
  const double p = options_.prior_weight / (has_prior_ ? n_obs_ + 1 : n_obs_);
  const double total = n_choices * p + 1;
  dim.log_hit = std::log((p + 1) / total);
  dim.log_miss = std::log(p / total);
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
  const int n_choices = dim.space.n_choices;
  const int hit = dim.choice(kernel);
  if (hit < 0) return std::min(n_choices - 1, static_cast<int>(u * n_choices));
  const double miss = std::exp(dim.log_miss), at_hit = std::exp(dim.log_hit);
  double acc = 0;
  for (int c = 0; c < n_choices; ++c) {
    acc += c == hit ? at_hit : miss;
    if (u < acc) return c;
  }
  return n_choices - 1;
}

Eigen::ArrayXd ParzenEstimator::log_pdf(const Eigen::ArrayXXd& x) const {
  if (dims_.size() == 1 && (dims_[0].space.categorical || dims_[0].space.q > 0)) {
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
  if (dim.space.q > 0) grid_table(dim, x, p.table, p.value_of);
  if (!dim.space.categorical && dim.space.q == 0) p.inv_sigma = dim.sigma.inverse();
  return p;
}

void ParzenEstimator::add_log_pdf(const Prepared& p, double x, Eigen::Index c,
                                  Eigen::ArrayXd& acc) const {
  const Dim& dim = *p.dim;
  if (is_discrete(dim.space)) {
    for (Eigen::Index k = 0; k < acc.size(); ++k) acc(k) += discrete_term(p, x, c, k);
  } else {
    acc += dim.log_norm - 0.5 * ((x - dim.mu) * p.inv_sigma).square();
  }
}

// A discrete dimension's log density under `kernel` at point `c` (x).
double ParzenEstimator::discrete_term(const Prepared& p, double x, Eigen::Index c,
                                      Eigen::Index kernel) const {
  const Dim& dim = *p.dim;
  if (dim.space.categorical) {
    const int hit = dim.choice(kernel);
    if (hit < 0) return -std::log(static_cast<double>(dim.space.n_choices));
    return hit == static_cast<int>(std::lround(x)) ? dim.log_hit : dim.log_miss;
  }
  return p.table(dim.group(kernel), p.value_of[static_cast<size_t>(c)]);
}

void ParzenEstimator::grid_table(const Dim& dim, const Eigen::ArrayXd& x, Eigen::ArrayXXd& table,
                                 std::vector<int>& value_of) const {
  // The log mass of each point's grid cell under each distinct (mu, sigma):
  // a grid holds few values, and its kernels few distinct bandwidths.
  const double half = 0.5 * dim.space.q;
  std::vector<double> values;
  value_of.resize(static_cast<size_t>(x.size()));
  for (Eigen::Index c = 0; c < x.size(); ++c) {
    auto it = std::find(values.begin(), values.end(), x(c));
    if (it == values.end()) it = values.insert(values.end(), x(c));
    value_of[static_cast<size_t>(c)] = static_cast<int>(it - values.begin());
  }
  const Eigen::Index n_groups = dim.group_mu.size();
  table.resize(n_groups, static_cast<Eigen::Index>(values.size()));
  for (size_t v = 0; v < values.size(); ++v) {
    const double lo = std::max(values[v] - half, dim.space.low);
    const double hi = std::min(values[v] + half, dim.space.high);
    for (Eigen::Index g = 0; g < n_groups; ++g) {
      const double mu = dim.group_mu(g), s = dim.group_sigma(g);
      table(g, static_cast<Eigen::Index>(v)) =
          truncnorm::log_gauss_mass((lo - mu) / s, (hi - mu) / s) - dim.group_log_mass(g);
    }
  }
}

Eigen::ArrayXd ParzenEstimator::discrete_log_pdf(const Dim& dim, const Eigen::ArrayXd& x) const {
  // On one grid or categorical dimension the mixture collapses: kernels
  // with the same (mu, sigma), or the same observed choice, pool weights.
  const Eigen::ArrayXd& w = weights_;
  Eigen::ArrayXd out(x.size());
  if (dim.space.categorical) {
    const int n_choices = dim.space.n_choices;
    Eigen::ArrayXd at_choice = Eigen::ArrayXd::Zero(n_choices);
    double prior = 0, observed = 0;
    for (Eigen::Index k = 0; k < w.size(); ++k) {
      if (dim.choice(k) < 0) {
        prior += w(k);
      } else {
        at_choice(dim.choice(k)) += w(k);
        observed += w(k);
      }
    }
    const double hit = std::exp(dim.log_hit), miss = std::exp(dim.log_miss);
    for (Eigen::Index c = 0; c < x.size(); ++c) {
      const int v = std::clamp(static_cast<int>(std::lround(x(c))), 0, n_choices - 1);
      out(c) = std::log(observed * miss + at_choice(v) * (hit - miss) + prior / n_choices);
    }
    return out;
  }
  Eigen::ArrayXXd table;
  std::vector<int> value_of;
  grid_table(dim, x, table, value_of);
  Eigen::ArrayXd log_pooled = Eigen::ArrayXd::Zero(dim.group_mu.size());
  for (Eigen::Index k = 0; k < w.size(); ++k) log_pooled(dim.group(k)) += w(k);
  log_pooled = log_pooled.log();
  Eigen::ArrayXd terms(log_pooled.size());
  for (Eigen::Index c = 0; c < x.size(); ++c) {
    terms.head(terms.size()) = log_pooled + table.col(value_of[static_cast<size_t>(c)]);
    out(c) = log_sum_exp(terms);
  }
  return out;
}

}  // namespace hpo
