#include "samplers/tpe_param.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hpo {

namespace {

// The grid point nearest x on low, low + q, ..., clamped to [low, high].
double snap(double x, double low, double high, double q) {
  return std::clamp(std::round((x - low) / q) * q + low, low, high);
}

}  // namespace

TpeParam::TpeParam(const Distribution& dist, bool ordered_choices) : dist_(dist) {
  if (const auto* f = std::get_if<FloatDistribution>(&dist)) {
    single_ = f->low == f->high;
    log_ = f->log;
    // A grid's kernels cover each point's whole cell, the outer ones too.
    const double half = f->step ? 0.5 * *f->step : 0.0;
    kernel_.low = log_ ? std::log(f->low) : f->low - half;
    kernel_.high = log_ ? std::log(f->high) : f->high + half;
    kernel_.q = f->step ? *f->step : 0.0;
  } else if (const auto* i = std::get_if<IntDistribution>(&dist)) {
    single_ = i->high - i->low < i->step;
    log_ = i->log;
    const double low = static_cast<double>(i->low), high = static_cast<double>(i->high);
    const double half = 0.5 * static_cast<double>(i->step);
    // Log ints are continuous in log space over the integers' rounding cells.
    kernel_.low = log_ ? std::log(low - 0.5) : low - half;
    kernel_.high = log_ ? std::log(high + 0.5) : high + half;
    kernel_.q = log_ ? 0.0 : static_cast<double>(i->step);
  } else {
    const auto& c = std::get<CategoricalDistribution>(dist);
    const int n = static_cast<int>(c.choices.size());
    single_ = n == 1;
    if (ordered_choices && is_ordered_numeric(c)) {
      index_of_rank_.resize(static_cast<size_t>(n));
      std::iota(index_of_rank_.begin(), index_of_rank_.end(), 0);
      std::stable_sort(index_of_rank_.begin(), index_of_rank_.end(), [&](int a, int b) {
        return as_double(c.choices[static_cast<size_t>(a)]) <
               as_double(c.choices[static_cast<size_t>(b)]);
      });
      rank_of_index_.resize(static_cast<size_t>(n));
      for (int r = 0; r < n; ++r)
        rank_of_index_[static_cast<size_t>(index_of_rank_[static_cast<size_t>(r)])] = r;
      kernel_.low = -0.5;
      kernel_.high = n - 0.5;
      kernel_.q = 1.0;
    } else {
      kernel_.categorical = true;
      kernel_.n_choices = n;
    }
  }
}

double TpeParam::to_model(double internal) const {
  if (!rank_of_index_.empty()) return rank_of_index_[static_cast<size_t>(std::lround(internal))];
  return log_ ? std::log(internal) : internal;
}

double TpeParam::to_internal(double model) const {
  if (const auto* f = std::get_if<FloatDistribution>(&dist_)) {
    if (log_) return std::clamp(std::exp(model), f->low, f->high);
    return f->step ? snap(model, f->low, f->high, *f->step) : std::clamp(model, f->low, f->high);
  }
  if (const auto* i = std::get_if<IntDistribution>(&dist_)) {
    const double low = static_cast<double>(i->low), high = static_cast<double>(i->high);
    if (log_) return std::clamp(std::round(std::exp(model)), low, high);
    return snap(model, low, high, static_cast<double>(i->step));
  }
  const int n = static_cast<int>(std::get<CategoricalDistribution>(dist_).choices.size());
  const int k = std::clamp(static_cast<int>(std::lround(model)), 0, n - 1);
  return rank_of_index_.empty() ? k : index_of_rank_[static_cast<size_t>(k)];
}

}  // namespace hpo
