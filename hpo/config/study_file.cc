#include "hpo/config/study_file.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <set>
#include <system_error>

#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"
#include "hpo/config/param_condition.h"
#include "hpo/config/placeholders.h"
#include "hpo/config/search_space_file.h"
#include "hpo/config/yaml_node.h"
#include "hpo/storage/revision_names.h"  // constants only: hpo_config links no storage
#include "hpo/text/ascii.h"
#include "pruners/pruner.h"
#include "samplers/sampler_names.h"

namespace hpo {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kStudyKeys = {
    "name",      "description", "search_space",     "objective", "objectives", "constraints",
    "sampler",   "pruner",      "n_trials",         "n_jobs",    "trainer",    "env",
    "fixed",     "storage",     "storage_revision", "runs_dir",  "on_oom",     "heartbeat_interval",
    "env_fixed", "smoke",       "warm_start"};

// The env settings hpo fits to the cores, and so the ones env_fixed may pin.
const std::vector<std::string> kFittedEnv = {"NUM_WORKERS", "OMP_NUM_THREADS"};

bool is_ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool is_env_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return is_ascii_alnum(c) || c == '_'; });
}

// Counts such as n_trials: an integer in [1, INT_MAX].
int positive_int(const YamlNode& node) {
  const int64_t value = node.as_int();
  if (value < 1 || value > INT_MAX) node.fail("expected an integer >= 1, got " + node.describe());
  return static_cast<int>(value);
}

double seconds(const YamlNode& node) {
  const double value = node.as_double();
  if (!(value >= 0 && value <= kMaxSeconds)) {
    node.fail("expected a number of seconds from 0 to 1e8 (about 3 years), got " + node.describe());
  }
  return value;
}

std::string non_empty_string(const YamlNode& node) {
  std::string value = node.as_string();
  if (value.empty()) node.fail("expected a non-empty string");
  return value;
}

std::string study_name(const YamlMap& root, const std::string& path) {
  if (auto name = root.find("name")) {
    const std::string value = name->as_string();
    try {
      validate_study_name(value);
    } catch (const ConfigError& e) {
      name->fail(e.what());
    }
    return value;
  }
  const std::string stem = fs::path(path).stem().string();
  try {
    validate_study_name(stem);
  } catch (const ConfigError& e) {
    throw ConfigError(path +
                      ": no 'name' given and the file name is not a study name: " + e.what());
  }
  return stem;
}

// A relative search space is looked for next to the study, then in the
// sibling search_spaces/ directory (studies/ and search_spaces/ side by side).
// The study file itself is never its own search space: `search_space:
// s.yaml` in studies/s.yaml means search_spaces/s.yaml.
std::string resolve_search_space(const YamlNode& node, const fs::path& study_file) {
  const std::string given = non_empty_string(node);
  const fs::path study_dir = study_file.parent_path();
  std::vector<fs::path> dirs = {study_dir, study_dir / ".." / "search_spaces"};
  if (fs::path(given).is_absolute()) dirs = {fs::path()};
  std::vector<std::string> tried;
  for (const fs::path& dir : dirs) {
    std::vector<fs::path> candidates = {dir / given};
    if (!fs::path(given).has_extension()) candidates.push_back(dir / (given + ".yaml"));
    for (const fs::path& candidate : candidates) {
      const fs::path normal = candidate.lexically_normal();
      std::error_code ec;
      if (fs::is_regular_file(normal, ec) && !fs::equivalent(normal, study_file, ec))
        return normal.string();
      if (fs::is_directory(normal, ec))
        node.fail("search space '" + given + "' is a directory (" + normal.string() +
                  "); name a file in it, e.g. " + (fs::path(given) / "stock_tcn.yaml").string());
      // Two places can be one path (../search_spaces from the study's directory).
      if (std::find(tried.begin(), tried.end(), normal.string()) == tried.end())
        tried.push_back(normal.string());
    }
  }
  node.fail("search space '" + given + "' not found; looked for " + join_names(tried));
}

// A path written in a study file is relative to the study file, as its
// search space is, so that `hpo best --study ../studies/s.yaml` finds the
// same database and runs from any folder. Made absolute here; the defaults
// (hpo.db, runs/) are not in the file and stay in the working directory.
std::string beside_study(const std::string& path, const fs::path& study_file) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::absolute(study_file).parent_path() / path).lexically_normal().string();
}

// The same for a SQLite URL's file (sqlite:///x.db); other URLs as they are.
std::string storage_beside_study(const std::string& url, const fs::path& study_file) {
  const std::string prefix = "sqlite:///";
  if (url.compare(0, prefix.size(), prefix) != 0) return url;
  return prefix + beside_study(url.substr(prefix.size()), study_file);
}

// warm_start: {studies: [NAME, NAME@URL, ...]}. A study name holds no '@'
// (validate_study_name), so the first one ends it; a SQLite URL's file is
// beside the study file, as `storage:`'s.
std::vector<WarmStartSource> parse_warm_start(const YamlNode& node, const std::string& own_name,
                                              const fs::path& study_file) {
  const YamlMap map(node, {"studies"});
  std::vector<WarmStartSource> sources;
  for (const YamlNode& entry : map.require("studies").as_list()) {
    const std::string text = entry.as_string();
    const auto at = text.find('@');
    WarmStartSource source{text.substr(0, at), ""};
    if (at != std::string::npos) {
      source.storage = storage_beside_study(text.substr(at + 1), study_file);
      if (source.storage.empty()) entry.fail("expected NAME@URL, got '" + text + "' (no URL)");
    }
    try {
      validate_study_name(source.study);
    } catch (const ConfigError& e) {
      entry.fail(std::string("expected a study name or NAME@URL: ") + e.what());
    }
    if (source.study == own_name && source.storage.empty())
      entry.fail("a study cannot warm-start from itself ('" + own_name + "')");
    sources.push_back(std::move(source));
  }
  return sources;
}

Direction parse_direction(const YamlNode& direction) {
  const std::string text = ascii_lower(direction.as_string());
  if (text != "maximize" && text != "minimize") {
    direction.fail("expected maximize or minimize, got " + direction.describe());
  }
  return text == "maximize" ? Direction::kMaximize : Direction::kMinimize;
}

ObjectiveConfig parse_objective(const YamlNode& node) {
  const YamlMap map(node, {"metric", "direction", "record"});
  ObjectiveConfig objective;
  objective.metric = non_empty_string(map.require("metric"));
  objective.direction = parse_direction(map.require("direction"));
  if (auto record = map.find("record")) {
    for (const YamlNode& metric : record->as_list())
      objective.record.push_back(non_empty_string(metric));
  }
  return objective;
}

// objectives: [{metric: val_rank_ic, direction: maximize}, ...]: two or
// three, each metric once.
std::vector<ObjectiveSpec> parse_objectives(const YamlNode& node) {
  const std::vector<YamlNode> items = node.as_list();
  if (items.size() < 2 || items.size() > 3) {
    node.fail("expected a list of two or three objectives ({metric: ..., direction: ...}), got " +
              std::to_string(items.size()) + "; a single one goes under 'objective:'");
  }
  std::vector<ObjectiveSpec> objectives;
  for (const YamlNode& item : items) {
    const YamlMap map(item, {"metric", "direction"});
    ObjectiveSpec spec{non_empty_string(map.require("metric")),
                       parse_direction(map.require("direction"))};
    for (const auto& other : objectives) {
      if (other.metric == spec.metric) item.fail("'" + spec.metric + "' is an objective twice");
    }
    objectives.push_back(spec);
  }
  return objectives;
}

// constraints: [{metric: val_turnover, max: 0.4}, {metric: val_sharpe, min: 0}]
std::vector<ConstraintConfig> parse_constraints(const YamlNode& node) {
  std::vector<ConstraintConfig> constraints;
  for (const YamlNode& item : node.as_list()) {
    const YamlMap map(item, {"metric", "min", "max"});
    ConstraintConfig c;
    c.metric = non_empty_string(map.require("metric"));
    for (auto [key, bound] : {std::pair{"min", &c.min}, std::pair{"max", &c.max}}) {
      const auto value = map.find(key);
      if (!value) continue;
      const double v = value->as_double();
      if (!std::isfinite(v)) value->fail("expected a finite number, got " + value->describe());
      *bound = v;
    }
    if (!c.min && !c.max) item.fail("expected 'min:', 'max:' or both for '" + c.metric + "'");
    if (c.min && c.max && *c.min > *c.max) {
      item.fail("min " + map.require("min").as_string() + " is above max " +
                map.require("max").as_string());
    }
    constraints.push_back(c);
  }
  return constraints;
}

// `objective:` or `objectives:`, exactly one of them.
void parse_goals(const YamlMap& root, StudyConfig& study) {
  const auto one = root.find("objective");
  const auto several = root.find("objectives");
  if (one && several) {
    several->fail("give either 'objective:' (one) or 'objectives:' (two or three), not both");
  }
  if (several) {
    study.objectives = parse_objectives(*several);
    study.objective.metric = study.objectives.front().metric;
    study.objective.direction = study.objectives.front().direction;
  } else {
    study.objective = parse_objective(root.require("objective"));
    study.objectives = {{study.objective.metric, study.objective.direction}};
  }
  if (auto constraints = root.find("constraints"))
    study.constraints = parse_constraints(*constraints);
}

// The shape samplers and pruners share: `name` is one of `names` (`what`
// says which list), `own` takes the keys the config itself holds (`fixed`,
// with `name`) and says whether it did, and the rest go to `options`, for
// the factory to check. A near miss of a fixed key is refused here: `nme:
// tpe` would otherwise leave the default sampler to report 'nme' as one of
// its own unknown options, and never say which key was meant.
template <typename Own>
std::string parse_named(const YamlNode& node, const char* what,
                        const std::vector<std::string>& names,
                        const std::vector<std::string>& fixed, nlohmann::json& options,
                        OptionLines& lines, Own own) {
  std::string name;
  for (const auto& [key, value] : node.as_map()) {
    lines.lines[key] = value.line();
    if (key == "name") {
      name = value.as_string();
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        value.fail(std::string("unknown ") + what + " '" + name + "'" + did_you_mean(name, names) +
                   "; known: " + join_names(names));
      }
    } else if (!own(key, value)) {
      if (closest_match(key, fixed))
        value.fail(std::string("unknown ") + what + " key '" + key + "'" +
                   did_you_mean(key, fixed));
      options[key] = value.as_json();
    }
  }
  return name;
}

// `names`: sampler_names(), or multi_objective_sampler_names() for a study
// with several objectives.
SamplerConfig parse_sampler(const YamlNode& node, const std::vector<std::string>& names) {
  SamplerConfig sampler;
  const auto seed = [&](const std::string& key, const YamlNode& value) {
    if (key != "seed") return false;
    const int64_t seed = value.as_int();
    if (seed < 0) value.fail("expected an integer >= 0, got " + value.describe());
    sampler.seed = static_cast<uint64_t>(seed);
    sampler.seeded = true;
    return true;
  };
  const std::string name =
      parse_named(node, "sampler", names, {"name", "seed"}, sampler.options, sampler.lines, seed);
  if (!name.empty()) sampler.name = name;
  return sampler;
}

PrunerConfig parse_pruner(const YamlNode& node) {
  PrunerConfig pruner;
  const auto none = [](const std::string&, const YamlNode&) { return false; };
  const std::string name =
      parse_named(node, "pruner", pruner_names(), {"name"}, pruner.options, pruner.lines, none);
  if (!name.empty()) pruner.name = name;
  return pruner;
}

std::string command_arg(const YamlNode& node) {
  const std::string arg = node.as_string();
  try {
    validate_placeholders(arg);
  } catch (const ConfigError& e) {
    node.fail(e.what());
  }
  return arg;
}

TrainerConfig parse_trainer(const YamlNode& node) {
  const YamlMap map(node, {"command", "timeout", "grace_period", "serve"});
  TrainerConfig trainer;
  const YamlNode command = map.require("command");
  const std::vector<YamlNode> args = command.as_list();
  if (args.empty()) command.fail("expected the program and its arguments, got an empty list");
  for (const YamlNode& arg : args) trainer.command.push_back(command_arg(arg));
  if (trainer.command[0].empty()) args[0].fail("the program name is empty");
  if (auto timeout = map.find("timeout")) trainer.timeout_s = seconds(*timeout);
  if (auto grace = map.find("grace_period")) trainer.grace_period_s = seconds(*grace);
  if (auto serve = map.find("serve")) trainer.serve = serve->as_bool();
  return trainer;
}

bool is_worker_count(const std::string& text) {
  if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  return std::stoi(text) <= 1024;
}

// Environment values are text; a bool becomes 1 or 0, what programs test for.
std::vector<std::pair<std::string, std::string>> parse_env(const YamlNode& node) {
  std::vector<std::pair<std::string, std::string>> env;
  for (const auto& [name, value] : node.as_map()) {
    if (!is_env_name(name)) {
      value.fail("not a valid environment variable name (expected [A-Za-z_][A-Za-z0-9_]*)");
    }
    if (!value.node().IsScalar()) value.fail("expected a single value, got " + value.describe());
    // hpo takes a trial's data-loader workers out of its thread share.
    if (name == "NUM_WORKERS" && !is_worker_count(value.node().Scalar())) {
      value.fail("expected a number of data-loader workers (an integer from 0 to 1024), got " +
                 value.describe());
    }
    const ParamValue typed = value.as_value();
    const bool* flag = std::get_if<bool>(&typed);
    env.emplace_back(name, flag ? (*flag ? "1" : "0") : value.node().Scalar());
  }
  return env;
}

const std::string* env_value(const StudyConfig& study, const std::string& name) {
  for (const auto& [key, value] : study.env) {
    if (key == name) return &value;
  }
  return nullptr;
}

// env_fixed: [NUM_WORKERS]: names of env settings hpo must not fit. Each
// must be one hpo fits and be set in env, so the pin has a value to keep.
std::vector<std::string> parse_env_fixed(const YamlNode& node, const StudyConfig& study) {
  std::vector<std::string> names;
  for (const YamlNode& item : node.as_list()) {
    const std::string name = item.as_string();
    if (std::find(kFittedEnv.begin(), kFittedEnv.end(), name) == kFittedEnv.end()) {
      item.fail("'" + name + "' is not a setting hpo fits" + did_you_mean(name, kFittedEnv) +
                "; expected NUM_WORKERS or OMP_NUM_THREADS (other env settings are always "
                "passed as written)");
    }
    if (std::find(names.begin(), names.end(), name) != names.end())
      item.fail(name + " is listed twice");
    const std::string* value = env_value(study, name);
    if (!value) item.fail(name + " is pinned but not set in env: give its value there");
    if (name == "OMP_NUM_THREADS" && (!is_worker_count(*value) || std::stoi(*value) < 1)) {
      item.fail(
          "a pinned OMP_NUM_THREADS must be a thread count (an integer from 1 to 1024), "
          "but env says '" +
          *value + "'");
    }
    names.push_back(name);
  }
  return names;
}

// smoke: a mapping of single values (any key: they override sampled and
// fixed values alike).
FixedValues parse_smoke(const YamlNode& node) {
  FixedValues values;
  for (const auto& [name, value] : node.as_map()) {
    if (!value.node().IsScalar()) value.fail("expected a single value, got " + value.describe());
    values.emplace_back(name, value.as_value());
  }
  return values;
}

void merge_fixed(const YamlNode& node, SearchSpaceConfig& space) {
  for (const auto& [name, value] : node.as_map()) {
    if (!value.node().IsScalar()) value.fail("expected a single value, got " + value.describe());
    // A named copy: C++17 lambdas cannot capture structured bindings (clang enforces it).
    const std::string& key = name;
    const bool sampled = std::any_of(space.params.begin(), space.params.end(),
                                     [&key](const ParamSpec& p) { return p.name == key; });
    if (sampled && !fix_choice(space, name, value.as_value())) {
      value.fail("'" + name + "' is sampled by the search space " + space.path +
                 "; a study can fix only a categorical parameter without a condition, to one of "
                 "its choices (which picks that branch of the conditions on it)");
    }
    auto same = [&key](const auto& entry) { return entry.first == key; };
    const auto it = std::find_if(space.fixed.begin(), space.fixed.end(), same);
    if (it != space.fixed.end()) {
      it->second = value.as_value();
    } else {
      space.fixed.emplace_back(name, value.as_value());
    }
  }
}

std::vector<std::string> study_names_in(const std::vector<std::string>& dirs) {
  std::set<std::string> names;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& file = it->path();
      if (file.extension() != ".yaml" || !it->is_regular_file(ec)) continue;
      try {
        validate_study_name(file.stem().string());
        names.insert(file.stem().string());
      } catch (const ConfigError&) {
        // Not reachable by name, so not worth offering.
      }
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace

void validate_study_name(const std::string& name) {
  const bool ok =
      !name.empty() && name[0] != '.' && std::all_of(name.begin(), name.end(), [](char c) {
        return is_ascii_alnum(c) || c == '_' || c == '.' || c == '-';
      });
  if (!ok) {
    throw ConfigError("invalid study name '" + name +
                      "': use letters, digits, '_', '.' and '-', not starting with '.'");
  }
}

StudyConfig load_study_file(const std::string& path) {
  const YamlMap root(parse_yaml_mapping(read_text_file(path, "study file"), path), kStudyKeys);
  StudyConfig study;
  study.path = path;
  study.name = study_name(root, path);
  if (auto description = root.find("description")) study.description = description->as_string();
  parse_goals(root, study);
  if (auto sampler = root.find("sampler")) {
    study.sampler = parse_sampler(
        *sampler, study.objectives.size() > 1 ? multi_objective_sampler_names() : sampler_names());
  }
  if (auto pruner = root.find("pruner")) {
    study.pruner = parse_pruner(*pruner);
    if (study.objectives.size() > 1 && study.pruner.name != "none") {
      pruner->fail("pruning needs a single objective; this study has " +
                   std::to_string(study.objectives.size()) + " (drop 'pruner:' or set it to none)");
    }
  }
  if (auto warm = root.find("warm_start")) {
    // The samplers' prior observations carry one value each; a Pareto
    // front's earlier stage would need one per objective.
    if (study.objectives.size() > 1) {
      warm->fail("warm start needs a single objective; this study has " +
                 std::to_string(study.objectives.size()) + " (drop 'warm_start:')");
    }
    study.warm_start = parse_warm_start(*warm, study.name, path);
  }
  if (auto n_trials = root.find("n_trials")) study.n_trials = positive_int(*n_trials);
  if (auto n_jobs = root.find("n_jobs")) {
    study.n_jobs = positive_int(*n_jobs);
    if (study.n_jobs > kMaxJobs)
      n_jobs->fail("expected at most " + std::to_string(kMaxJobs) +
                   " trials at once on one host (more hosts: docs/many_machines.md), got " +
                   n_jobs->describe());
  }
  study.trainer = parse_trainer(root.require("trainer"));
  if (auto on_oom = root.find("on_oom")) {
    const std::string policy = on_oom->as_string();
    if (policy != "fail" && policy != "retry_halved") {
      on_oom->fail("expected 'fail' or 'retry_halved', got '" + policy + "'");
    }
    study.trainer.retry_halved_on_oom = policy == "retry_halved";
  }
  if (auto env = root.find("env")) study.env = parse_env(*env);
  if (auto env_fixed = root.find("env_fixed")) study.env_fixed = parse_env_fixed(*env_fixed, study);
  if (auto storage = root.find("storage"))
    study.storage = storage_beside_study(non_empty_string(*storage), path);
  if (auto revision = root.find("storage_revision")) {
    const std::string text = non_empty_string(*revision);
    if (text != kRevisionOptuna30 && text != kRevisionOptuna32) {
      revision->fail(std::string("expected ") + kRevisionOptuna30 + " (Optuna 3.0-3.1) or " +
                     kRevisionOptuna32 + " (Optuna 3.2-5.0), got '" + text + "'");
    }
    study.storage_revision = text;
  }
  if (auto runs_dir = root.find("runs_dir"))
    study.runs_dir = beside_study(non_empty_string(*runs_dir), path);
  if (auto heartbeat = root.find("heartbeat_interval")) {
    study.heartbeat_interval_s = heartbeat->as_double();
    if (!(study.heartbeat_interval_s >= kMinHeartbeatSeconds &&
          study.heartbeat_interval_s <= kMaxHeartbeatSeconds))
      heartbeat->fail(
          "expected a number of seconds from 0.5 to 86400 (2 or more between hosts), "
          "got " +
          heartbeat->describe());
  }
  // The search space last: the study file's own errors come first.
  study.space = load_search_space(resolve_search_space(root.require("search_space"), path));
  if (auto fixed = root.find("fixed")) merge_fixed(*fixed, study.space);
  if (auto smoke = root.find("smoke")) study.smoke = parse_smoke(*smoke);
  return study;
}

std::string find_study_file(const std::string& name_or_path,
                            const std::vector<std::string>& search_dirs) {
  std::error_code ec;
  if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
  const fs::path given(name_or_path);
  const bool looks_like_path =
      given.has_parent_path() || given.extension() == ".yaml" || given.extension() == ".yml";
  if (looks_like_path) {
    throw ConfigError("study file '" + name_or_path + "' " +
                      (fs::is_directory(name_or_path, ec)
                           ? "is a directory; give a study file in it (NAME.yaml)"
                           : "not found"));
  }
  validate_study_name(name_or_path);
  for (const std::string& dir : search_dirs) {
    const fs::path candidate = fs::path(dir) / (name_or_path + ".yaml");
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  const std::vector<std::string> available = study_names_in(search_dirs);
  throw ConfigError("no study named '" + name_or_path + "'" +
                    did_you_mean(name_or_path, available) + "; searched " +
                    (search_dirs.empty() ? "no directories" : join_names(search_dirs)) +
                    "; available: " + (available.empty() ? "none" : join_names(available)));
}

}  // namespace hpo
