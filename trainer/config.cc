#include "trainer/config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>

#include "trainer/cv.h"
#include "trainer/dates.h"
#include "trainer/error.h"
#include "trainer/features.h"
#include "trainer/synthetic.h"

namespace hpo::trainer {

namespace {

using Setter = std::function<void(TrainerConfig*, const YAML::Node&, const std::string& where)>;
using Getter = std::function<std::string(const TrainerConfig&)>;

// One config key: how to read it, how to print its value, what it means.
struct Key {
  const char* name;
  Setter set;
  Getter get;
  const char* meaning;
};

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
Getter get(T TrainerConfig::*field) {
  return [field](const TrainerConfig& c) { return fmt::format("{}", c.*field); };
}

template <typename T>
Key key(const char* name, T TrainerConfig::*field, const char* type, const char* meaning) {
  Setter set = [field, type](TrainerConfig* c, const YAML::Node& n, const std::string& where) {
    c->*field = read_as<T>(n, where, type);
  };
  return {name, set, get(field), meaning};
}

Key string_key(const char* name, std::string TrainerConfig::*field, const char* meaning) {
  Setter set = [field](TrainerConfig* c, const YAML::Node& n, const std::string& where) {
    c->*field = n.IsNull() ? std::string() : read_as<std::string>(n, where, "a string");
  };
  return {name, set, get(field), meaning};
}

// Every key, in the order --help lists them.
const std::vector<Key>& keys() {
  static const std::vector<Key> kKeys = {
      string_key("model", &TrainerConfig::model, "tcn | mlp"),
      key("hidden_size", &TrainerConfig::hidden_size, "an integer", "channels (TCN) / units (MLP)"),
      key("layers", &TrainerConfig::layers, "an integer",
          "TCN residual blocks (dilations 1, 2, 4, ...) / MLP hidden layers"),
      key("kernel_size", &TrainerConfig::kernel_size, "an integer", "TCN kernel"),
      key("dropout", &TrainerConfig::dropout, "a number", "dropout rate"),
      key("lookback", &TrainerConfig::lookback, "an integer", "days of features per sample"),
      key("batch_size", &TrainerConfig::batch_size, "an integer", "samples per batch"),
      key("grad_accum", &TrainerConfig::grad_accum, "an integer",
          "batches per optimizer step (loss divided by it)"),
      key("lr", &TrainerConfig::lr, "a number", "AdamW peak learning rate"),
      key("weight_decay", &TrainerConfig::weight_decay, "a number", "AdamW weight decay"),
      key("warmup_epochs", &TrainerConfig::warmup_epochs, "a number",
          "linear warm-up (may be fractional), then cosine decay"),
      key("grad_clip", &TrainerConfig::grad_clip, "a number", "max global gradient norm; 0 = off"),
      key("epochs", &TrainerConfig::epochs, "an integer", "epochs"),
      key("patience", &TrainerConfig::patience, "an integer",
          "early stop after this many epochs without a better val RankIC"),
      key("max_train_samples", &TrainerConfig::max_train_samples, "an integer",
          "training samples per epoch (random subset); 0 = all"),
      key("max_valid_samples", &TrainerConfig::max_valid_samples, "an integer",
          "validate on every k-th date to stay under; 0 = all"),
      key("eval_batch_size", &TrainerConfig::eval_batch_size, "an integer",
          "batch size for validation and test; 0 = 512 on the CPU, 4096 on CUDA"),
      key("seed", &TrainerConfig::seed, "a non-negative integer",
          "initialization, dropout and shuffling"),
      string_key("data", &TrainerConfig::data,
                 "CSV panel path; empty = the built-in synthetic panel"),
      string_key("date_format", &TrainerConfig::date_format,
                 "how the data's dates are spelled: strftime codes %Y %m %d %b, e.g. %m/%d/%Y; "
                 "default %Y-%m-%d (ISO, a midnight time allowed)"),
      key("min_names", &TrainerConfig::min_names, "an integer",
          "fewest names a date needs to be traded, trained on and scored"),
      key("horizon", &TrainerConfig::horizon, "an integer",
          "label: log return of a position held this many days"),
      string_key("label_entry", &TrainerConfig::label_entry,
                 "label entry: next_open (o[t+1] to o[t+1+horizon]) | next_close (c[t+1] to "
                 "c[t+1+horizon]) | "
                 "close (c[t] to c[t+horizon], the feature day's close: not tradable)"),
      key("train_frac", &TrainerConfig::train_frac, "a number", "share of days for training"),
      key("valid_frac", &TrainerConfig::valid_frac, "a number",
          "share of days for validation (test: the rest)"),
      key("synthetic_tickers", &TrainerConfig::synthetic_tickers, "an integer",
          "synthetic panel size"),
      key("synthetic_days", &TrainerConfig::synthetic_days, "an integer", "synthetic panel size"),
      key("synthetic_seed", &TrainerConfig::synthetic_seed, "a non-negative integer",
          "synthetic panel seed"),
      string_key("signal_strength", &TrainerConfig::signal_strength,
                 "synthetic panel's planted signal: easy (0.12) | realistic (0.035) | noise (0) | "
                 "a number"),
      string_key("cv_scheme", &TrainerConfig::cv_scheme,
                 "none (one train/valid split) | walk_forward | purged_kfold; or cv: {scheme, "
                 "folds, embargo_days}"),
      key("cv_folds", &TrainerConfig::cv_folds, "an integer", "cross-validation folds"),
      key("cv_embargo_days", &TrainerConfig::cv_embargo_days, "an integer",
          "days dropped from training after each validation block (walk_forward: before it)"),
      key("cost_bps", &TrainerConfig::cost_bps, "a number",
          "one-way trading cost per unit of turnover, basis points (val_sharpe_net)"),
      key("epoch_select_frac", &TrainerConfig::epoch_select_frac, "a number",
          "first share of each validation block that picks the epoch; val_* and the valid series "
          "come from the rest; 0 = the same days do both"),
      string_key("device", &TrainerConfig::device, "auto | cpu | cuda"),
  };
  return kKeys;
}

const Key* find_key(const std::string& name) {
  for (const Key& k : keys())
    if (name == k.name) return &k;
  return nullptr;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] =
          std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string suggestion(const std::string& key) {
  std::string best;
  size_t best_distance = 3;  // suggest only close names
  for (const Key& k : keys()) {
    size_t d = edit_distance(key, k.name);
    if (d < best_distance) best = k.name, best_distance = d;
  }
  return best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
}

void require(bool ok, const std::string& source, const char* key, const std::string& rule) {
  if (!ok) throw UsageError(fmt::format("{}: key '{}': {}", source, key, rule));
}

// The map form cv: {scheme, folds, embargo_days}: each entry sets cv_<name>.
void set_cv_map(TrainerConfig* config, const YAML::Node& node, const std::string& path) {
  if (!node.IsMap())
    throw UsageError(
        fmt::format("{}: key 'cv': expected a map such as {{scheme: walk_forward, folds: 4, "
                    "embargo_days: 5}}",
                    path));
  for (const auto& entry : node) {
    const std::string name = entry.first.as<std::string>();
    const Key* k = name == "scheme" || name == "folds" || name == "embargo_days"
                       ? find_key("cv_" + name)
                       : nullptr;
    if (!k)
      throw UsageError(fmt::format(
          "{}: key 'cv.{}': unknown; expected scheme, folds or embargo_days", path, name));
    k->set(config, entry.second, fmt::format("{}: key 'cv.{}'", path, name));
  }
}

}  // namespace

CvSpec cv_spec(const TrainerConfig& config) {
  return {config.cv_scheme, config.cv_folds, config.cv_embargo_days};
}

std::vector<std::string> config_keys() {
  std::vector<std::string> names;
  for (const Key& k : keys()) names.push_back(k.name);
  return names;
}

std::string config_help() {
  const TrainerConfig defaults;
  std::string out = "Config keys (all optional; default in brackets):\n";
  for (const Key& k : keys())
    out += fmt::format("  {:<18} [{}] {}\n", k.name, k.get(defaults), k.meaning);
  return out;
}

std::string config_text(const TrainerConfig& config) {
  std::string out;
  for (const Key& k : keys()) out += fmt::format("{}={}\n", k.name, k.get(config));
  return out;
}

std::string config_text_diff(const std::string& before, const std::string& after) {
  auto values = [](const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      const size_t eq = line.find('=');
      if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return out;
  };
  const auto a = values(before), b = values(after);
  std::string out;
  for (const Key& k : keys()) {
    auto ia = a.find(k.name), ib = b.find(k.name);
    const std::string va = ia == a.end() ? "(none)" : ia->second,
                      vb = ib == b.end() ? "(none)" : ib->second;
    if (va != vb) out += fmt::format("{}{} {} -> {}", out.empty() ? "" : ", ", k.name, va, vb);
  }
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
  require(c.eval_batch_size >= 0, source, "eval_batch_size", "must be >= 0");
  require(c.horizon >= 1, source, "horizon", "must be >= 1");
  require(date_format_problem(c.date_format).empty(), source, "date_format",
          date_format_problem(c.date_format));
  require(c.min_names >= 2, source, "min_names", "must be >= 2 (a z-score needs two names)");
  require(label_entry_named(c.label_entry).has_value(), source, "label_entry",
          "must be \"next_open\", \"next_close\" or \"close\"");
  require(c.train_frac > 0 && c.valid_frac > 0 && c.train_frac + c.valid_frac < 1, source,
          "train_frac", "train_frac and valid_frac must be > 0 with a sum below 1");
  require(c.synthetic_tickers >= 5, source, "synthetic_tickers", "must be >= 5");
  require(c.synthetic_days >= 1, source, "synthetic_days", "must be >= 1");
  require(signal_named(c.signal_strength).has_value(), source, "signal_strength",
          "must be \"easy\", \"realistic\", \"noise\" or a number >= 0");
  require(c.cv_scheme == "none" || c.cv_scheme == "walk_forward" || c.cv_scheme == "purged_kfold",
          source, "cv_scheme", "must be \"none\", \"walk_forward\" or \"purged_kfold\"");
  require(c.cv_folds >= 2 && c.cv_folds <= 50, source, "cv_folds",
          "must be an integer from 2 to 50");
  require(c.cv_embargo_days >= 0, source, "cv_embargo_days", "must be >= 0");
  require(c.cost_bps >= 0, source, "cost_bps", "must be >= 0");
  require(c.epoch_select_frac >= 0 && c.epoch_select_frac < 1, source, "epoch_select_frac",
          "must be in [0, 1)");
  require(c.device == "auto" || c.device == "cpu" || c.device == "cuda", source, "device",
          "must be \"auto\", \"cpu\" or \"cuda\"");
}

TrainerConfig load_config(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UsageError(
        fmt::format("{}: is a directory; expected a config file (JSON or YAML)", path));
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
  if (!root.IsMap())
    throw UsageError(fmt::format("{}: expected a flat object of key: value", path));
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (key == "cv") {
      set_cv_map(&config, entry.second, path);
      continue;
    }
    const Key* k = find_key(key);
    if (!k) throw UsageError(fmt::format("{}: unknown key '{}'{}", path, key, suggestion(key)));
    k->set(&config, entry.second, fmt::format("{}: key '{}'", path, key));
  }
  validate(config, path);
  return config;
}

}  // namespace hpo::trainer
