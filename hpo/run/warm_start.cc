#include "hpo/run/warm_start.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "hpo/config/config_error.h"
#include "hpo/storage/open_storage.h"

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
    const auto trials = db.trials(study->id);
    const std::string differs = space_difference(trials, space.declared());
    if (!differs.empty())
      throw ConfigError(refused + "another search space: " + differs + " (" + config.space.path +
                        ")");
    int n = 0, complete = 0;
    for (const auto& t : trials) {
      complete += t.state == TrialState::kComplete;
      if (auto v = carried(t, space, source)) {
        out.prior.push_back(std::move(*v));
        ++n;
      }
    }
    std::string line = "warm start: " + std::to_string(n) + " trial(s) carried over from " + named;
    if (complete > n)
      line +=
          "; " + std::to_string(complete - n) + " COMPLETE trial(s) outside this space left out";
    if (n == 0) line += ": starting cold from it (it has no COMPLETE trial yet)";
    out.notes.push_back(line);
    out.record.push_back({{"study", from.study}, {"storage", where}, {"trials", n}});
  }
  return out;
}

}  // namespace hpo
