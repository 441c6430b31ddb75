#include "trainer/config.h"

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "trainer/error.h"

namespace hpo::trainer {

namespace {

using Setter = std::function<void(TrainerConfig*, const YAML::Node&, const std::string& where)>;

template <typename T>
T read_as(const YAML::Node& node, const std::string& where, const char* type) {
  if (!node.IsScalar()) throw UsageError(fmt::format("{}: expected {}", where, type));
  try {
    return node.as<T>();
  } catch (const YAML::BadConversion&) {
    throw UsageError(fmt::format("{}: expected {}, got '{}'", where, type, node.Scalar()));
  }
}

template <typename T>
Setter set(T TrainerConfig::*field, const char* type) {
  return [field, type](TrainerConfig* c, const YAML::Node& n, const std::string& where) {
    c->*field = read_as<T>(n, where, type);
  };
}

Setter set_string(std::string TrainerConfig::*field) {
  return [field](TrainerConfig* c, const YAML::Node& n, const std::string& where) {
    c->*field = n.IsNull() ? std::string() : read_as<std::string>(n, where, "a string");
  };
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> kSetters = {
      {"model", set_string(&TrainerConfig::model)},
      {"hidden_size", set(&TrainerConfig::hidden_size, "an integer")},
      {"layers", set(&TrainerConfig::layers, "an integer")},
      {"kernel_size", set(&TrainerConfig::kernel_size, "an integer")},
      {"dropout", set(&TrainerConfig::dropout, "a number")},
      {"lookback", set(&TrainerConfig::lookback, "an integer")},
      {"batch_size", set(&TrainerConfig::batch_size, "an integer")},
      {"grad_accum", set(&TrainerConfig::grad_accum, "an integer")},
      {"lr", set(&TrainerConfig::lr, "a number")},
      {"weight_decay", set(&TrainerConfig::weight_decay, "a number")},
      {"warmup_epochs", set(&TrainerConfig::warmup_epochs, "a number")},
      {"grad_clip", set(&TrainerConfig::grad_clip, "a number")},
      {"epochs", set(&TrainerConfig::epochs, "an integer")},
      {"patience", set(&TrainerConfig::patience, "an integer")},
      {"max_train_samples", set(&TrainerConfig::max_train_samples, "an integer")},
      {"max_valid_samples", set(&TrainerConfig::max_valid_samples, "an integer")},
      {"eval_batch_size", set(&TrainerConfig::eval_batch_size, "an integer")},
      {"seed", set(&TrainerConfig::seed, "a non-negative integer")},
      {"data", set_string(&TrainerConfig::data)},
      {"horizon", set(&TrainerConfig::horizon, "an integer")},
      {"train_frac", set(&TrainerConfig::train_frac, "a number")},
      {"valid_frac", set(&TrainerConfig::valid_frac, "a number")},
      {"synthetic_tickers", set(&TrainerConfig::synthetic_tickers, "an integer")},
      {"synthetic_days", set(&TrainerConfig::synthetic_days, "an integer")},
      {"synthetic_seed", set(&TrainerConfig::synthetic_seed, "a non-negative integer")},
      {"device", set_string(&TrainerConfig::device)},
  };
  return kSetters;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggestion(const std::string& key) {
  std::string best;
  size_t best_distance = 3;  // suggest only close names
  for (const auto& [name, setter] : setters()) {
    size_t d = edit_distance(key, name);
    if (d < best_distance) best = name, best_distance = d;
  }
  return best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
}

void require(bool ok, const std::string& source, const char* key, const std::string& rule) {
  if (!ok) throw UsageError(fmt::format("{}: key '{}': {}", source, key, rule));
}

}  // namespace

std::vector<std::string> config_keys() {
  std::vector<std::string> keys;
  for (const auto& [name, setter] : setters()) keys.push_back(name);
  return keys;
}

std::string config_help() {
  const TrainerConfig d;
  std::string out = "Config keys (all optional; default in brackets):\n";
  auto line = [&](const char* key, const std::string& value, const char* meaning) {
    out += fmt::format("  {:<18} [{}] {}\n", key, value, meaning);
  };
  line("model", d.model, "tcn | mlp");
  line("hidden_size", std::to_string(d.hidden_size), "channels (TCN) / units (MLP)");
  line("layers", std::to_string(d.layers), "TCN residual blocks (dilations 1, 2, 4, ...) / MLP hidden layers");
  line("kernel_size", std::to_string(d.kernel_size), "TCN kernel");
  line("dropout", fmt::format("{}", d.dropout), "dropout rate");
  line("lookback", std::to_string(d.lookback), "days of features per sample");
  line("batch_size", std::to_string(d.batch_size), "samples per batch");
  line("grad_accum", std::to_string(d.grad_accum), "batches per optimizer step (loss divided by it)");
  line("lr", fmt::format("{}", d.lr), "AdamW peak learning rate");
  line("weight_decay", fmt::format("{}", d.weight_decay), "AdamW weight decay");
  line("warmup_epochs", fmt::format("{}", d.warmup_epochs), "linear warm-up (may be fractional), then cosine decay");
  line("grad_clip", fmt::format("{}", d.grad_clip), "max global gradient norm; 0 = off");
  line("epochs", std::to_string(d.epochs), "epochs");
  line("patience", std::to_string(d.patience), "early stop after this many epochs without a better val RankIC");
  line("max_train_samples", std::to_string(d.max_train_samples), "training samples per epoch (random subset); 0 = all");
  line("max_valid_samples", std::to_string(d.max_valid_samples), "validate on every k-th date to stay under; 0 = all");
  line("eval_batch_size", std::to_string(d.eval_batch_size), "batch size for validation and test");
  line("seed", std::to_string(d.seed), "initialization, dropout and shuffling");
  line("data", "synthetic", "CSV panel path; empty = the built-in synthetic panel");
  line("horizon", std::to_string(d.horizon), "label: log return from close t to close t + horizon");
  line("train_frac", fmt::format("{}", d.train_frac), "share of days for training");
  line("valid_frac", fmt::format("{}", d.valid_frac), "share of days for validation (test: the rest)");
  line("synthetic_tickers", std::to_string(d.synthetic_tickers), "synthetic panel size");
  line("synthetic_days", std::to_string(d.synthetic_days), "synthetic panel size");
  line("synthetic_seed", std::to_string(d.synthetic_seed), "synthetic panel seed");
  line("device", d.device, "auto | cpu | cuda");
  return out;
}

void validate(const TrainerConfig& c, const std::string& source) {
  require(c.model == "tcn" || c.model == "mlp", source, "model", "must be \"tcn\" or \"mlp\"");
  require(c.hidden_size >= 1, source, "hidden_size", "must be >= 1");
  require(c.layers >= 1, source, "layers", "must be >= 1");
  require(c.kernel_size >= 1, source, "kernel_size", "must be >= 1");
  require(c.dropout >= 0 && c.dropout < 1, source, "dropout", "must be in [0, 1)");
  require(c.lookback >= 1, source, "lookback", "must be >= 1");
  require(c.batch_size >= 1, source, "batch_size", "must be >= 1");
  require(c.grad_accum >= 1, source, "grad_accum", "must be >= 1");
  require(c.lr > 0, source, "lr", "must be > 0");
  require(c.weight_decay >= 0, source, "weight_decay", "must be >= 0");
  require(c.warmup_epochs >= 0, source, "warmup_epochs", "must be >= 0");
  require(c.grad_clip >= 0, source, "grad_clip", "must be >= 0");
  require(c.epochs >= 1, source, "epochs", "must be >= 1");
  require(c.patience >= 1, source, "patience", "must be >= 1");
  require(c.max_train_samples >= 0, source, "max_train_samples", "must be >= 0");
  require(c.max_valid_samples >= 0, source, "max_valid_samples", "must be >= 0");
  require(c.eval_batch_size >= 1, source, "eval_batch_size", "must be >= 1");
  require(c.horizon >= 1, source, "horizon", "must be >= 1");
  require(c.train_frac > 0 && c.valid_frac > 0 && c.train_frac + c.valid_frac < 1, source, "train_frac",
          "train_frac and valid_frac must be > 0 with a sum below 1");
  require(c.synthetic_tickers >= 5, source, "synthetic_tickers", "must be >= 5");
  require(c.synthetic_days >= 1, source, "synthetic_days", "must be >= 1");
  require(c.device == "auto" || c.device == "cpu" || c.device == "cuda", source, "device",
          "must be \"auto\", \"cpu\" or \"cuda\"");
}

TrainerConfig load_config(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw UsageError(fmt::format("{}: cannot read config file", path));
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}:{}: invalid JSON/YAML: {}", path, e.mark.line + 1, e.msg));
  }
  TrainerConfig config;
  if (root.IsNull()) return config;  // an empty file: all defaults
  if (!root.IsMap()) throw UsageError(fmt::format("{}: expected a flat object of key: value", path));
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    auto it = setters().find(key);
    if (it == setters().end()) throw UsageError(fmt::format("{}: unknown key '{}'{}", path, key, suggestion(key)));
    it->second(&config, entry.second, fmt::format("{}: key '{}'", path, key));
  }
  validate(config, path);
  return config;
}

}  // namespace hpo::trainer
