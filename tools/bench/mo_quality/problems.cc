#include "tools/bench/mo_quality/problems.h"

#include <cmath>

namespace hpo {

namespace {

constexpr int kZdtVars = 10;  // ZDT's usual 30 is too many for 300 trials
constexpr int kDtlzVars = 12;  // 3 objectives, k = 10

SearchSpace unit_cube(int n) {
  SearchSpace s;
  for (int i = 0; i < n; ++i)
    s.push_back({"x" + std::to_string(i), FloatDistribution{0, 1, false, std::nullopt}});
  return s;
}

double x(const ParamValues& p, int i) { return p.at("x" + std::to_string(i)); }

// ZDT's g: 1 + 9 * (mean of every variable but the first).
double zdt_g(const ParamValues& p) {
  double sum = 0;
  for (int i = 1; i < kZdtVars; ++i) sum += x(p, i);
  return 1 + 9 * sum / (kZdtVars - 1);
}

MoProblem zdt(const std::string& name, double (*h)(double f1, double g)) {
  MoProblem m;
  m.name = name;
  m.space = unit_cube(kZdtVars);
  m.values = [h](const ParamValues& p) {
    const double f1 = x(p, 0), g = zdt_g(p);
    return std::vector<double>{f1, g * h(f1, g)};
  };
  return m;
}

MoProblem dtlz2() {
  MoProblem m;
  m.name = "dtlz2";
  m.objectives = 3;
  m.space = unit_cube(kDtlzVars);
  m.values = [](const ParamValues& p) {
    double g = 0;
    for (int i = 2; i < kDtlzVars; ++i) g += (x(p, i) - 0.5) * (x(p, i) - 0.5);
    const double a = x(p, 0) * M_PI / 2, b = x(p, 1) * M_PI / 2;
    return std::vector<double>{(1 + g) * std::cos(a) * std::cos(b),
                               (1 + g) * std::cos(a) * std::sin(b), (1 + g) * std::sin(a)};
  };
  return m;
}

// A float, an integer, a log-scaled float and a categorical (by index:
// "a", "b", "c"), with a trade-off along x.
MoProblem mixed() {
  MoProblem m;
  m.name = "mixed";
  m.space = {
      {"x", FloatDistribution{0, 1, false, std::nullopt}},
      {"n", IntDistribution{0, 10, false, 1}},
      {"lr", FloatDistribution{1e-4, 1, true, std::nullopt}},
      {"kind", CategoricalDistribution{{std::string("a"), std::string("b"), std::string("c")}}}};
  m.values = [](const ParamValues& p) {
    static const double o1[] = {0.0, 0.3, 0.6}, o2[] = {0.5, 0.2, 0.0};
    const auto k = static_cast<size_t>(p.at("kind"));
    const double lr = std::log10(p.at("lr")) + 2, n = p.at("n");
    return std::vector<double>{
        p.at("x") + 0.1 * std::abs(n - 3) + o1[k] + 0.2 * lr * lr,
        1 - std::sqrt(p.at("x")) + 0.1 * std::abs(n - 7) + o2[k] + 0.2 * (lr + 1) * (lr + 1)};
  };
  return m;
}

// Chankong and Haimes' problem (SRN): two constraints cut off most of the box.
MoProblem constrained() {
  MoProblem m;
  m.name = "constrained";
  m.space = {{"x", FloatDistribution{-20, 20, false, std::nullopt}},
             {"y", FloatDistribution{-20, 20, false, std::nullopt}}};
  m.values = [](const ParamValues& p) {
    const double a = p.at("x"), b = p.at("y");
    return std::vector<double>{2 + (a - 2) * (a - 2) + (b - 1) * (b - 1),
                               9 * a - (b - 1) * (b - 1)};
  };
  m.constraints = [](const ParamValues& p) {
    const double a = p.at("x"), b = p.at("y");
    return std::vector<double>{a * a + b * b - 225, a - 3 * b + 10};
  };
  return m;
}

}  // namespace

std::vector<MoProblem> mo_problems() {
  return {zdt("zdt1", [](double f1, double g) { return 1 - std::sqrt(f1 / g); }),
          zdt("zdt2", [](double f1, double g) { return 1 - (f1 / g) * (f1 / g); }),
          zdt("zdt3",
              [](double f1, double g) {
                return 1 - std::sqrt(f1 / g) - f1 / g * std::sin(10 * M_PI * f1);
              }),
          dtlz2(),
          mixed(),
          constrained()};
}

}  // namespace hpo
