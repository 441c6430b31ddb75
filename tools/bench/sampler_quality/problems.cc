#include "tools/bench/sampler_quality/problems.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <variant>

#include "samplers/conditions.h"
#include "tools/bench/listed.h"

namespace hpo {

namespace {

constexpr double kPi = 3.14159265358979323846;

FloatDistribution uniform(double low, double high) { return {low, high, false, std::nullopt}; }

// A d-dimensional function over the box [low, high]^d, parameters x0..x{d-1}.
BenchProblem box(std::string name, int d, double low, double high, double optimum,
                 std::function<double(const std::vector<double>&)> f) {
  BenchProblem p;
  p.name = std::move(name);
  for (int i = 0; i < d; ++i) p.space.push_back({"x" + std::to_string(i), uniform(low, high)});
  p.score = [d, f](const ParamValues& v) {
    std::vector<double> x(static_cast<size_t>(d));
    for (int i = 0; i < d; ++i) x[static_cast<size_t>(i)] = v.at("x" + std::to_string(i));
    return f(x);
  };
  p.call = [score = p.score](const ParamValues& v, double) { return score(v); };
  p.optimum = optimum;
  return p;
}

double branin(const std::vector<double>& x) {
  const double b = 5.1 / (4 * kPi * kPi), c = 5 / kPi, t = 1 / (8 * kPi);
  return std::pow(x[1] - b * x[0] * x[0] + c * x[0] - 6, 2) + 10 * (1 - t) * std::cos(x[0]) + 10;
}

double hartmann6(const std::vector<double>& x) {
  static const double a[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                 {0.05, 10, 17, 0.1, 8, 14},
                                 {3, 3.5, 1.7, 10, 17, 8},
                                 {17, 8, 0.05, 10, 0.1, 14}};
  static const double p[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                 {2329, 4135, 8307, 3736, 1004, 9991},
                                 {2348, 1451, 3522, 2883, 3047, 6650},
                                 {4047, 8828, 8732, 5743, 1091, 381}};
  static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double inner = 0;
    for (int j = 0; j < 6; ++j)
      inner += a[i][j] * std::pow(x[static_cast<size_t>(j)] - 1e-4 * p[i][j], 2);
    sum += alpha[i] * std::exp(-inner);
  }
  return -sum;
}

double rosenbrock(const std::vector<double>& x) {
  double s = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i)
    s += 100 * std::pow(x[i + 1] - x[i] * x[i], 2) + std::pow(1 - x[i], 2);
  return s;
}

double styblinski_tang(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v * v * v * v - 16 * v * v + 5 * v;
  return s / 2;
}

double levy(const std::vector<double>& x) {
  auto w = [&](size_t i) { return 1 + (x[i] - 1) / 4; };
  const size_t d = x.size();
  double s = std::pow(std::sin(kPi * w(0)), 2);
  for (size_t i = 0; i + 1 < d; ++i) {
    s += std::pow(w(i) - 1, 2) * (1 + 10 * std::pow(std::sin(kPi * w(i) + 1), 2));
  }
  return s + std::pow(w(d - 1) - 1, 2) * (1 + std::pow(std::sin(2 * kPi * w(d - 1)), 2));
}

// A training run's shape: the best learning rate grows with the batch size,
// a width and depth optimum, an activation that matters, a little dropout.
// Minimum 0 at batch 64, lr 10^-2.5, 3 layers, width 128, relu, dropout 0.15.
BenchProblem mixed() {
  BenchProblem p;
  p.name = "mixed";
  p.space = {
      {"lr", FloatDistribution{1e-5, 1.0, true, std::nullopt}},
      {"batch_size", CategoricalDistribution{{int64_t{16}, int64_t{32}, int64_t{64}, int64_t{128},
                                              int64_t{256}}}},
      {"layers", IntDistribution{1, 8, false, 1}},
      {"width", IntDistribution{16, 1024, true, 1}},
      {"activation",
       CategoricalDistribution{{std::string("relu"), std::string("tanh"), std::string("sigmoid")}}},
      {"dropout", FloatDistribution{0.0, 0.5, false, 0.05}},
  };
  p.score = [](const ParamValues& v) {
    static const double batch[] = {16, 32, 64, 128, 256};
    static const double activation[] = {0.0, 0.3, 1.0};
    const double log_batch = std::log2(batch[static_cast<int>(v.at("batch_size"))]) - 6;
    return std::pow(std::log10(v.at("lr")) + 2.5 - 0.25 * log_batch, 2) +
           0.2 * std::fabs(log_batch) + 0.1 * std::pow(v.at("layers") - 3, 2) +
           0.125 * std::pow(std::log2(v.at("width")) - 7, 2) +
           activation[static_cast<int>(v.at("activation"))] +
           2 * std::pow(v.at("dropout") - 0.15, 2);
  };
  p.call = [score = p.score](const ParamValues& v, double) { return score(v); };
  p.optimum = 0;
  return p;
}

// Choosing a model, then tuning only its own knobs: a conditional space of
// three branches (one with a chained child), each with its own optimum.
// The net's is the best (0, at lr 10^-2.5, width 128, 3 layers, relu with
// slope 0.1, dropout 0.15); the tree's (0.5) and the linear model's (1.0)
// are easier to reach, so a sampler must learn each branch on its own trials.
BenchProblem conditional() {
  BenchProblem p;
  p.name = "conditional";
  const auto when = [](const char* parent, const char* value) {
    return Condition{parent, {std::string(value)}};
  };
  p.space = {
      {"lr", FloatDistribution{1e-5, 1.0, true, std::nullopt}},
      {"model",
       CategoricalDistribution{{std::string("linear"), std::string("tree"), std::string("net")}}},
      {"l2", FloatDistribution{1e-6, 1.0, true, std::nullopt}, when("model", "linear")},
      {"depth", IntDistribution{1, 16, false, 1}, when("model", "tree")},
      {"min_leaf", IntDistribution{1, 64, true, 1}, when("model", "tree")},
      {"width", IntDistribution{16, 1024, true, 1}, when("model", "net")},
      {"layers", IntDistribution{1, 6, false, 1}, when("model", "net")},
      {"act",
       CategoricalDistribution{{std::string("relu"), std::string("tanh"), std::string("gelu")}},
       when("model", "net")},
      {"slope", uniform(0.0, 0.3), when("act", "relu")},
      {"dropout", FloatDistribution{0.0, 0.5, false, 0.05}, when("model", "net")},
  };
  p.score = [](const ParamValues& v) {
    const double lr = std::log10(v.at("lr"));
    const int model = static_cast<int>(v.at("model"));
    if (model == 0)
      return 1.0 + 0.1 * std::pow(std::log10(v.at("l2")) + 3, 2) + 0.2 * std::pow(lr + 2, 2);
    if (model == 1) {
      return 0.5 + 0.02 * std::pow(v.at("depth") - 9, 2) +
             0.1 * std::pow(std::log2(v.at("min_leaf")) - 3, 2) + 0.1 * std::pow(lr + 1, 2);
    }
    static const double activation[] = {0.0, 0.3, 0.1};
    const int act = static_cast<int>(v.at("act"));
    return std::pow(lr + 2.5, 2) + 0.125 * std::pow(std::log2(v.at("width")) - 7, 2) +
           0.1 * std::pow(v.at("layers") - 3, 2) + activation[act] +
           (act == 0 ? 5 * std::pow(v.at("slope") - 0.1, 2) : 0.0) +
           2 * std::pow(v.at("dropout") - 0.15, 2);
  };
  p.call = [score = p.score](const ParamValues& v, double) { return score(v); };
  p.optimum = 0;
  return p;
}

// The index of a draw `u` among n equally likely outcomes.
int64_t pick(double u, int64_t n) {
  return std::min(static_cast<int64_t>(u * static_cast<double>(n)), n - 1);
}

// A lookup table: the seeds' values per configuration, keyed by the
// parameters' choice indices.
struct Table {
  std::vector<std::string> params;
  std::vector<std::vector<std::string>> choices;  // per parameter, numbers by value
  std::map<std::vector<int>, std::vector<double>> seeds;
};

bool is_number(const std::string& s) {
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0';
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  return cells;
}

std::shared_ptr<Table> read_table(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const auto header = split_csv(line);
  auto table = std::make_shared<Table>();
  size_t n_params = 0;
  while (n_params < header.size() && header[n_params].rfind("seed", 0) != 0) ++n_params;
  table->params.assign(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(n_params));
  std::vector<std::vector<std::string>> rows;
  std::vector<std::set<std::string>> seen(n_params);
  while (std::getline(in, line)) {
    rows.push_back(split_csv(line));
    for (size_t j = 0; j < n_params; ++j) seen[j].insert(rows.back()[j]);
  }
  for (size_t j = 0; j < n_params; ++j) {
    std::vector<std::string> c(seen[j].begin(), seen[j].end());
    if (std::all_of(c.begin(), c.end(), is_number)) {
      std::sort(c.begin(), c.end(),
                [](const auto& a, const auto& b) { return std::stod(a) < std::stod(b); });
    }
    table->choices.push_back(c);
  }
  for (const auto& row : rows) {
    std::vector<int> key;
    for (size_t j = 0; j < n_params; ++j) {
      const auto& c = table->choices[j];
      key.push_back(static_cast<int>(std::find(c.begin(), c.end(), row[j]) - c.begin()));
    }
    std::vector<double> values;
    for (size_t j = n_params; j < row.size(); ++j) values.push_back(std::stod(row[j]));
    table->seeds[key] = values;
  }
  return table;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

BenchProblem tabular(const std::filesystem::path& csv) {
  const auto table = read_table(csv.string());
  BenchProblem p;
  p.name = csv.stem().string();
  p.direction = p.name.rfind("hpobench", 0) == 0 ? Direction::kMaximize : Direction::kMinimize;
  for (size_t j = 0; j < table->params.size(); ++j) {
    CategoricalDistribution d;
    for (const auto& c : table->choices[j]) {
      if (is_number(c)) {
        d.choices.emplace_back(std::stod(c));
      } else {
        d.choices.emplace_back(c);
      }
    }
    p.space.push_back({table->params[j], d});
  }
  auto key = [table](const ParamValues& v) {
    std::vector<int> k;
    for (const auto& name : table->params) k.push_back(static_cast<int>(v.at(name)));
    return k;
  };
  p.call = [table, key](const ParamValues& v, double u) {
    const auto& seeds = table->seeds.at(key(v));
    return seeds[static_cast<size_t>(pick(u, static_cast<int64_t>(seeds.size())))];
  };
  p.score = [table, key](const ParamValues& v) { return mean(table->seeds.at(key(v))); };
  const bool maximize = p.direction == Direction::kMaximize;
  p.optimum = maximize ? -INFINITY : INFINITY;
  for (const auto& [k, seeds] : table->seeds) {
    p.optimum = maximize ? std::max(p.optimum, mean(seeds)) : std::min(p.optimum, mean(seeds));
  }
  return p;
}

uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double shared_value(const Distribution& dist, double u) {
  if (const auto* f = std::get_if<FloatDistribution>(&dist)) {
    if (f->step) {
      const auto steps = static_cast<int64_t>(std::round((f->high - f->low) / *f->step));
      return f->low + static_cast<double>(pick(u, steps + 1)) * *f->step;
    }
    if (f->log) return std::exp(std::log(f->low) + u * (std::log(f->high) - std::log(f->low)));
    return f->low + u * (f->high - f->low);
  }
  if (const auto* i = std::get_if<IntDistribution>(&dist)) {
    if (i->log) {
      const double lo = static_cast<double>(i->low), hi = static_cast<double>(i->high);
      const double v = std::floor(std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo))) + 0.5);
      return std::clamp(v, lo, hi);
    }
    return static_cast<double>(i->low + pick(u, (i->high - i->low) / i->step + 1) * i->step);
  }
  return static_cast<double>(
      pick(u, static_cast<int64_t>(std::get<CategoricalDistribution>(dist).choices.size())));
}

}  // namespace

double shared_unit(uint64_t seed, uint64_t trial, uint64_t slot) {
  const uint64_t h = splitmix64(splitmix64(splitmix64(seed) ^ trial) ^ slot);
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

ParamValues shared_random(const SearchSpace& space, uint64_t seed, int trial) {
  ParamValues values;
  for (size_t j = 0; j < space.size(); ++j) {
    values[space[j].name] =
        shared_value(space[j].distribution, shared_unit(seed, static_cast<uint64_t>(trial), j));
  }
  return drop_inactive(space, std::move(values));
}

std::vector<BenchProblem> synthetic_problems() {
  std::vector<BenchProblem> problems;
  BenchProblem b = box("branin", 2, 0, 1, 0.397887357729738, nullptr);
  b.space = {{"x0", uniform(-5, 10)}, {"x1", uniform(0, 15)}};
  b.score = [](const ParamValues& v) { return branin({v.at("x0"), v.at("x1")}); };
  b.call = [](const ParamValues& v, double) { return branin({v.at("x0"), v.at("x1")}); };
  problems.push_back(b);
  problems.push_back(box("hartmann6", 6, 0, 1, -3.32236801141551, hartmann6));
  problems.push_back(box("rosenbrock5", 5, -5, 10, 0, rosenbrock));
  problems.push_back(box("styblinski_tang5", 5, -5, 5, -39.16616570377142 * 5, styblinski_tang));
  problems.push_back(box("levy5", 5, -10, 10, 0, levy));
  problems.push_back(mixed());
  problems.push_back(conditional());
  return problems;
}

std::vector<BenchProblem> tabular_problems(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(dir)) return {};
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<BenchProblem> problems;
  for (const auto& f : files) problems.push_back(tabular(f));
  return problems;
}

std::vector<BenchProblem> selected_problems(const std::string& dir) {
  std::vector<BenchProblem> all = synthetic_problems(), problems;
  for (auto& p : tabular_problems(dir)) all.push_back(std::move(p));
  std::vector<std::string> names;
  for (const auto& p : all) names.push_back(p.name);
  const auto wanted = listed("HPO_BENCH_PROBLEMS", names);
  for (auto& p : all) {
    if (std::find(wanted.begin(), wanted.end(), p.name) != wanted.end())
      problems.push_back(std::move(p));
  }
  return problems;
}

}  // namespace hpo
