#include "hpo/run/warm_start.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "hpo/config/config_error.h"
#include "hpo/run/study_setup.h"
#include "hpo/storage/open_storage.h"
#include "hpo/storage/trial_constraints.h"

namespace hpo {

namespace {

const char* kind(const Distribution& d) {
  if (std::holds_alternative<FloatDistribution>(d)) return "a float";
  if (std::holds_alternative<IntDistribution>(d)) return "an int";
  return "a categorical";
}

// What differs between the parameters the source's trials hold and this
// study's space; empty when they match. Bounds and choices may differ: the
// trials outside today's domain are then skipped, not refused.
std::string space_difference(const std::vector<TrialRecord>& trials, const SearchSpace& space) {
  std::map<std::string, const Distribution*> theirs;
  for (const auto& t : trials) {
    for (const auto& p : t.params) theirs.emplace(p.name, &p.distribution);
  }
  if (theirs.empty()) return "";
  for (const auto& [name, dist] : theirs) {
    const auto it = std::find_if(space.begin(), space.end(),
                                 [&](const ParamSpec& s) { return s.name == name; });
    if (it == space.end()) return "its parameter '" + name + "' is not in this study's space";
    if (it->distribution.index() != dist->index()) {
      return "its parameter '" + name + "' is " + kind(*dist) + ", this study's is " +
             kind(it->distribution);
    }
  }
  for (const auto& s : space) {
    if (!s.condition && !theirs.count(s.name))
      return "it has no parameter '" + s.name + "' (this study's space has)";
  }
  return "";
}

// The trial as a prior observation, or nullopt when it does not fit.
std::optional<TrialView> carried(const TrialRecord& t, const SamplingSpace& space, int source) {
  if (t.state != TrialState::kComplete || !t.value || !std::isfinite(*t.value)) return std::nullopt;
  TrialView v = space.view(t);
  // What ran was not the point sampled (an OOM retry at a smaller batch
  // outside the space): for a sampler that is a FAIL, with nothing to carry.
  if (v.state != TrialState::kComplete) return std::nullopt;
  for (const auto& s : space.bounded()) {
    // A conditional parameter may be absent; a value outside the bounded
    // domain was dropped by view().
    const bool held = v.params.count(s.name) > 0;
    const bool stored = std::any_of(t.params.begin(), t.params.end(),
                                    [&](const StoredParam& p) { return p.name == s.name; });
    if ((!s.condition && !held) || (stored && !held)) return std::nullopt;
  }
  v.source = source;
  return v;
}

// A COMPLETE trial that breaks its study's constraints: its value is no
// good observation, however good it looks.
bool infeasible(const TrialRecord& t) { return !is_feasible(trial_constraints(t.system_attrs)); }

// Whether `url` names the database at `own` (a Storage's url()): the same
// SQLite file by any path, or the same URL.
bool same_database(const std::string& url, const std::string& own) {
  const auto a = sqlite_path(url), b = sqlite_path(own);
  if (!a || !b) return shown_url(url) == own;  // own's password, if any, is masked
  std::error_code ec;
  return std::filesystem::equivalent(*a, *b, ec);
}

// The metric the source study optimized, as hpo stored it; empty for a
// study hpo did not make.
std::string source_metric(Storage& db, int64_t study_id) {
  const Attrs attrs = db.study_user_attrs(study_id);
  const auto it = attrs.find(kObjectiveAttr);
  if (it == attrs.end() || !it->second.is_object()) return "";
  const auto metric = it->second.find("metric");
  return metric != it->second.end() && metric->is_string() ? metric->get<std::string>() : "";
}

bool database_missing(const std::string& url) {
  const auto path = sqlite_path(url);
  std::error_code ec;
  return path && !std::filesystem::exists(*path, ec);
}

}  // namespace

WarmStart load_warm_start(const StudyConfig& config, Storage& storage, const SamplingSpace& space) {
  WarmStart out;
  int source = 0;
  for (const auto& from : config.warm_start) {
    ++source;
    const std::string where = from.storage.empty() ? storage.url() : shown_url(from.storage);
    const std::string named = "'" + from.study + "' (" + where + ")";
    // One study named twice (by name and by URL, or by two paths to one
    // file) would carry its trials twice, and weigh them twice.
    for (size_t k = 0; k + 1 < static_cast<size_t>(source); ++k) {
      const WarmStartSource& earlier = config.warm_start[k];
      if (earlier.study != from.study) continue;
      const std::string url = from.storage.empty() ? storage.url() : from.storage;
      if (same_database(url, earlier.storage.empty() ? storage.url() : shown_url(earlier.storage)))
        throw ConfigError(config.path + ": warm_start: study " + named +
                          " is listed twice (entries " + std::to_string(k + 1) + " and " +
                          std::to_string(source) +
                          "): its trials would be carried over twice; list it once");
    }
    if (from.study == config.name && same_database(from.storage, storage.url())) {
      throw ConfigError(config.path + ": warm_start: " + from.study + "@" + where +
                        " is this study, in its own database: a study cannot warm-start from "
                        "itself (its trials are its sampler's already)");
    }
    if (!from.storage.empty() && database_missing(from.storage)) {
      out.notes.push_back("warm start: " + named + " does not exist yet (no such database): " +
                          "starting cold from it; run " + from.study + " first to carry its " +
                          "trials over");
      continue;
    }
    std::unique_ptr<Storage> other;
    if (!from.storage.empty()) other = open_storage(from.storage, OpenMode::kReadOnly);
    Storage& db = other ? *other : storage;
    const auto study = db.find_study(from.study);
    if (!study) {
      out.notes.push_back("warm start: study " + named + " does not exist yet: starting cold " +
                          "from it; run " + from.study + " first to carry its trials over");
      continue;
    }
    const std::string refused =
        config.path + ": warm_start: study " + named + " cannot warm-start this study: ";
    if (study->direction != config.objective.direction) {
      throw ConfigError(
          refused + "it was created to " +
          (study->direction == Direction::kMaximize ? "maximize" : "minimize") + ", this study " +
          (config.objective.direction == Direction::kMaximize ? "maximizes" : "minimizes"));
    }
    const size_t objectives = objective_directions(*study).size();
    if (objectives > 1) {
      throw ConfigError(refused + "it has " + std::to_string(objectives) +
                        " objectives, and a prior observation carries one value");
    }
    const std::string metric = source_metric(db, study->id);
    if (!metric.empty() && metric != config.objective.metric) {
      throw ConfigError(refused + "it optimized '" + metric + "', this study optimizes '" +
                        config.objective.metric +
                        "' (warm start carries a value of the same metric, measured at another "
                        "fidelity, say)");
    }
    const auto trials = db.trials(study->id);
    const std::string differs = space_difference(trials, space.declared());
    if (!differs.empty())
      throw ConfigError(refused + "another search space: " + differs + " (" + config.space.path +
                        ")");
    int n = 0, complete = 0, broke = 0;
    for (const auto& t : trials) {
      if (t.state != TrialState::kComplete) continue;
      if (infeasible(t)) {
        ++broke;
        continue;
      }
      ++complete;
      if (auto v = carried(t, space, source)) {
        out.prior.push_back(std::move(*v));
        ++n;
      }
    }
    std::string line = "warm start: " + std::to_string(n) + " trial(s) carried over from " + named;
    if (complete > n)
      line +=
          "; " + std::to_string(complete - n) + " COMPLETE trial(s) outside this space left out";
    if (broke > 0)
      line +=
          "; " + std::to_string(broke) + " infeasible trial(s) (breaking its constraints) left out";
    if (n == 0)
      line += complete + broke == 0 ? ": starting cold from it (it has no COMPLETE trial yet)"
                                    : ": starting cold from it (nothing it holds can be carried)";
    out.notes.push_back(line);
    out.record.push_back({{"study", from.study}, {"storage", where}, {"trials", n}});
  }
  return out;
}

}  // namespace hpo
