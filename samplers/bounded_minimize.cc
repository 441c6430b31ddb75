#include "samplers/bounded_minimize.h"

#include <LBFGSB.h>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace hpo {

namespace {

// Wraps f to remember its best point: LBFGS++ may stop by exception. A
// non-finite value is reported as +large with a zero gradient, so that the
// line search backs off instead of failing on NaN.
class BestTracker {
 public:
  BestTracker(const Objective& f, const Eigen::VectorXd& start) : f_(f), best_x_(start) {}

  double operator()(const Eigen::VectorXd& x, Eigen::VectorXd& grad) {
    double value = f_(x, grad);
    if (!std::isfinite(value) || !grad.allFinite()) {
      value = std::numeric_limits<double>::max() / 4;
      grad.setZero();
    }
    if (value < best_value_) {
      best_value_ = value;
      best_x_ = x;
    }
    return value;
  }

  double best_value() const { return best_value_; }
  const Eigen::VectorXd& best_x() const { return best_x_; }

 private:
  const Objective& f_;
  Eigen::VectorXd best_x_;
  double best_value_ = std::numeric_limits<double>::infinity();
};

}  // namespace

double bounded_minimize(const Objective& f, Eigen::VectorXd& x, const Eigen::VectorXd& lower,
                        const Eigen::VectorXd& upper, int max_iterations) {
  x = x.cwiseMax(lower).cwiseMin(upper);
  BestTracker tracker(f, x);
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = max_iterations;
  param.epsilon = 1e-6;
  param.epsilon_rel = 1e-6;
  // Also stop once 3 iterations gained less than 1e-6 of the value: neither
  // kernel parameters nor the acquisition's maximizer need more, and at 300
  // trials each evaluation of the marginal likelihood costs an n^3 solve.
  param.past = 3;
  param.delta = 1e-6;
  param.max_linesearch = 30;
  LBFGSpp::LBFGSBSolver<double> solver(param);
  Eigen::VectorXd work = x;
  double value = 0.0;
  try {
    solver.minimize(tracker, work, value, lower, upper);
  } catch (const std::exception&) {
    // A failed line search: the tracker holds the best point evaluated.
  }
  if (!std::isfinite(tracker.best_value())) {  // f never evaluated: keep the start
    Eigen::VectorXd grad(x.size());
    return f(x, grad);
  }
  x = tracker.best_x().cwiseMax(lower).cwiseMin(upper);
  return tracker.best_value();
}

}  // namespace hpo
