// `hpo status`, `hpo best` and `hpo studies`: read-only views of the database.
#include <iostream>
#include <memory>

#include "hpo/cli/at_least.h"
#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/selection_flags.h"
#include "hpo/cli/study_locator.h"
#include "hpo/config/config_error.h"
#include "hpo/report/pareto_view.h"
#include "hpo/report/status_table.h"
#include "hpo/report/study_view.h"
#include "hpo/report/trial_detail.h"
#include "hpo/report/trial_json.h"
#include "hpo/storage/open_storage.h"

namespace hpo {

namespace {

struct StudyFlags {
  std::string study;
  std::string storage;
  bool json = false;
  SelectionFlags selection;
};

StudyView open_view(const StudyFlags& flags, const std::string& command) {
  const StudyToRead study = find_study_to_read(flags.study, flags.storage, command);
  const auto& config = study.config;
  auto storage = open_storage(storage_url(flags.storage, config), OpenMode::kReadOnly);
  StudyView view = load_study_view(*storage, study.name);
  mark_orphans(*storage, view,
               config ? config->heartbeat_interval_s : StudyConfig{}.heartbeat_interval_s);
  return view;
}

void add_study_options(CLI::App* cmd, StudyFlags& flags) {
  cmd->add_option("--study", flags.study, "Study name or study file")->required();
  cmd->add_option(
      "--storage", flags.storage,
      "Study database URL (default: $HPO_STORAGE, else the study file's, else sqlite:///hpo.db)");
  cmd->add_flag("--json", flags.json, "Print JSON for scripts instead of a table");
}

}  // namespace

void add_status_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<StudyFlags>();
  CLI::App* cmd = app.add_subcommand(
      "status", "Show a study's trials: state, params, objective, metrics, duration");
  add_study_options(cmd, *flags);
  add_selection_options(cmd, flags->selection, false);
  cmd->footer(
      "Safe to run while `hpo run` is going: it reads a consistent snapshot and never blocks the "
      "run.\n"
      "--json adds \"selection\": the best trial's overfitting statistics "
      "(docs/overfitting.md).\n\n"
      "Example:\n  hpo status --study quick_sweep\n  hpo status --study quick_sweep --trial 3\n"
      "  hpo status --study quick_sweep --json | jq "
      ".best\n"
      "  hpo status --study quick_sweep --json | jq .selection.pbo.pbo");
  auto trial = std::make_shared<int>(-1);
  cmd->add_option("--trial", *trial,
                  "Everything about trial N: params, the config it ran with, metrics, curve, exit, "
                  "stderr tail and its files")
      ->check(at_least(0));
  cmd->callback([flags, trial, &exit_code] {
    const StudyView view = open_view(*flags, "hpo status");
    if (*trial >= 0) {
      const TrialRecord* t = find_trial(view, *trial);
      if (!t)
        throw ConfigError("--trial " + std::to_string(*trial) + ": study " + view.study.name +
                          " has no such trial (" + std::to_string(view.trials.size()) +
                          " trial(s))");
      std::cout << (flags->json ? trial_detail_json(*t).dump(2) + "\n" : trial_detail(view, *t));
      exit_code = kExitOk;
      return;
    }
    if (flags->json) {
      auto j = study_json(view);
      j["selection"] = selection_json(view, compute_selection(view, flags->selection.options()));
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << status_table(view);
    }
    exit_code = kExitOk;
  });
}

namespace {

// `hpo best` for several objectives: the (feasible) Pareto front.
int print_front(const StudyView& view, bool json) {
  const auto front = pareto_trials(view);
  if (json) {
    nlohmann::ordered_json j = {{"metrics", view.metrics},
                                {"pareto_front", nlohmann::ordered_json::array()}};
    for (const TrialRecord* t : front) j["pareto_front"].push_back(trial_json(*t));
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << front_summary(view)
              << (front.empty() ? ""
                                : "pick one with: hpo export --study " + view.study.name +
                                      " --knee (or --weights, or --trial N)\n");
  }
  return front.empty() ? kExitAllTrialsFailed : kExitOk;
}

}  // namespace

void add_best_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<StudyFlags>();
  CLI::App* cmd = app.add_subcommand("best", "Show a study's best trial, and how far to trust it");
  add_study_options(cmd, *flags);
  add_selection_options(cmd, flags->selection, true);
  cmd->footer(
      std::string(kSelectHelp) +
      "\nExamples:\n  hpo best --study full_sweep\n  hpo best --study full_sweep --select robust\n"
      "  hpo best --study full_sweep --json | jq .selection.dsr");
  cmd->callback([flags, &exit_code] {
    const StudyView view = open_view(*flags, "hpo best");
    if (is_multi_objective(view.study)) {
      exit_code = print_front(view, flags->json);
      return;
    }
    const Selection selection = compute_selection(view, flags->selection.options());
    const TrialRecord* chosen = selection.selected;
    if (flags->json) {
      if (!chosen) {
        std::cout << "null\n";
      } else {
        auto j = trial_json(*chosen);
        j["selection"] = selection_json(view, selection);
        std::cout << j.dump(2) << "\n";
      }
    } else {
      const std::string label = selection.rule == SelectRule::kRobust ? "robust" : "best";
      std::cout << (chosen ? trial_summary(view, *chosen, label) : best_summary(view));
      if (chosen) std::cout << selection_text(view, selection);
    }
    exit_code = chosen ? kExitOk : kExitAllTrialsFailed;
  });
}

void add_studies_command(CLI::App& app, int& exit_code) {
  auto storage_flag = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "studies", "List the studies in a database, with trial counts and best values");
  cmd->add_option("--storage", *storage_flag,
                  "Study database URL (default: $HPO_STORAGE, else sqlite:///hpo.db)");
  cmd->footer(
      "Read only: safe beside a running `hpo run`. A study file's own storage is not read here;\n"
      "name its database with --storage.\n\n"
      "Example:\n  hpo studies\n  hpo studies --storage sqlite:///runs/studies.db\n"
      "  hpo studies --storage postgresql://hpo:secret@db:5432/hpo");
  cmd->callback([storage_flag, &exit_code] {
    auto storage = open_storage(storage_url(*storage_flag, std::nullopt), OpenMode::kReadOnly);
    const auto studies = storage->list_studies();
    if (studies.empty()) std::cout << "no studies in " << storage->url() << "\n";
    for (const auto& s : studies) {
      int total = 0;
      for (const auto& [state, n] : s.counts) total += n;
      std::cout << s.study.name << ": " << total << " trial(s)";
      for (auto state :
           {TrialState::kComplete, TrialState::kFail, TrialState::kPruned, TrialState::kRunning}) {
        const auto it = s.counts.find(state);
        if (it != s.counts.end() && it->second > 0)
          std::cout << ", " << it->second << " " << to_string(state);
      }
      // Several objectives have no single best: say so rather than rank by the first.
      const auto found = storage->find_study(s.study.name);
      if (found && is_multi_objective(*found)) {
        std::cout << ", " << found->directions.size()
                  << " objectives (hpo best lists the Pareto front)\n";
        continue;
      }
      std::cout << ", best " << (s.best_value ? short_number(*s.best_value) : "-") << " ("
                << (s.study.direction == Direction::kMaximize ? "maximize" : "minimize") << ")\n";
    }
    exit_code = kExitOk;
  });
}

}  // namespace hpo
