// `hpo export`: the best configs as trainer-ready files, or every trial as
// CSV or JSON for analysis.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "hpo/cli/at_least.h"
#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/output_guard.h"
#include "hpo/cli/selection_flags.h"
#include "hpo/cli/study_locator.h"
#include "hpo/config/config_error.h"
#include "hpo/report/config_export.h"
#include "hpo/report/pareto_view.h"
#include "hpo/report/robust_select.h"
#include "hpo/report/selection.h"
#include "hpo/report/study_view.h"
#include "hpo/report/trial_json.h"
#include "hpo/run/atomic_file.h"
#include "hpo/slurm/shell_quote.h"
#include "hpo/storage/open_storage.h"
#include "hpo/storage/trial_constraints.h"
#include "hpo/storage/url_mask.h"
#include "hpo/text/ascii.h"

namespace hpo {

namespace fs = std::filesystem;

namespace {

struct ExportFlags {
  std::string study;
  std::string storage;
  int top = 1;
  std::string format;  // empty: from -o's extension, else json
  std::string output;
  bool trials = false;
  SelectionFlags selection;
  int trial = -1;  // --trial N
  bool knee = false;  // --knee
  std::string weights;  // --weights 0.7,0.3
};

// What a config printed to stdout calls its own file in its run line.
constexpr const char* kStdoutName = "THIS_FILE";

// "-o -" means stdout, as for other Unix tools.
bool to_stdout(const ExportFlags& flags) { return flags.output.empty() || flags.output == "-"; }

// An export is whole or absent; a path that cannot be written is bad input.
void write_file(const fs::path& path, const std::string& text) {
  try {
    write_file_atomically(path.string(), text);
  } catch (const std::runtime_error& e) {
    throw ConfigError(std::string("-o: ") + e.what());
  }
}

std::string trials_text(const StudyView& view, const std::string& format) {
  return format == "csv" ? trials_csv(view) : study_json(view).dump(2) + "\n";
}

// The extension of `output`'s name, in lower case (".yaml" for "best.YAML").
std::string extension_of(const std::string& output) {
  return ascii_lower(fs::path(output).extension().string());
}

// --format, else what -o's name says (best.yaml, trials.csv), else JSON:
// what the trainer protocol gives every trainer as {config}.
std::string export_format(const ExportFlags& flags) {
  if (!flags.format.empty()) return flags.format;
  const std::string ext = extension_of(flags.output);
  if (ext == ".yaml" || ext == ".yml") return "yaml";
  if (ext == ".csv") return "csv";
  return "json";
}

// The file as the printed command names it: absolute, so that the command
// runs from any directory.
std::string run_path(const std::string& file) {
  return fs::absolute(file).lexically_normal().string();
}

// A YAML config is for reading when its trainer reads only JSON, as the
// protocol has it (hpo-trainer reads both): this says what to run instead.
std::optional<std::string> json_to_run(const ExportFlags& flags, const StudyConfig* study,
                                       const TrialRecord& t) {
  if (flags.format != "yaml") return std::nullopt;
  return json_export_hint(study, flags.study, flags.storage, t);
}

// After writing `file`: where it came from and the command that runs it.
void tell_written(const ExportFlags& flags, const StudyConfig* study, const TrialRecord& t,
                  const std::string& file) {
  std::cout << "wrote " << file << " (trial " << t.number << ")\n";
  if (const auto hint = json_to_run(flags, study, t)) {
    std::cout << "  " << *hint << "\n";
    return;
  }
  const std::string line = trainer_command_line(study, t, run_path(file));
  if (!line.empty()) std::cout << "  run it with: " << line << "\n";
}

// YAML configs carry how to run them (with the file at `run_file`) and the
// selection's statistics in their header; JSON has no comments, so a
// written file's command is printed instead.
std::string config_text(const StudyView& view, const ExportFlags& flags, const StudyConfig* study,
                        const TrialRecord& t, const std::string& run_file,
                        const std::string& notes) {
  if (flags.format == "json") return config_json(t);
  if (const auto hint = json_to_run(flags, study, t))
    return config_yaml(view, t, *hint + "\n" + notes);
  return config_yaml(view, t, notes, trainer_command_line(study, t, run_file));
}

// -o names a directory: one that exists, or a name ending in '/'.
bool names_directory(const std::string& output) {
  return fs::is_directory(output) || output.back() == '/';
}

// A name with a config's or a table's extension: `--top 3 -o best.json`
// meant a file, and would otherwise make a directory of that name.
bool looks_like_a_file(const std::string& output) {
  const std::string ext = extension_of(output);
  return ext == ".json" || ext == ".yaml" || ext == ".yml" || ext == ".csv";
}

// "rank03_trial17.json": the name export gives the config of rank `rank`
// (ranks zero-padded to `width` digits, so that they sort as ranked).
std::string ranked_name(size_t rank, size_t width, int trial, const std::string& format) {
  std::string digits = std::to_string(rank);
  digits.insert(0, width > digits.size() ? width - digits.size() : 0, '0');
  return "rank" + digits + "_trial" + std::to_string(trial) + "." + format;
}

// Whether `name` is one ranked_name() gives, in any width and format.
bool is_ranked_name(const std::string& name) {
  static const std::regex kRanked(R"(rank[0-9]+_trial[0-9]+\.(json|yaml))");
  return std::regex_match(name, kRanked);
}

// Several configs: -o names a directory, one file per config, by rank.
// Ranked configs already there that this export did not write (an earlier
// export's, another study's) are left alone, but named: a loop over the
// directory would train them too. hpo cannot tell whose they are, so it
// deletes nothing.
void write_ranked(const StudyView& view, const StudyConfig* study,
                  const std::vector<const TrialRecord*>& best, const ExportFlags& flags,
                  const std::string& notes) {
  const fs::path dir(flags.output);
  const size_t width = std::to_string(best.size()).size();
  std::set<std::string> written;
  // All or none: an export that fails partway (a full disk) leaves no
  // ranking that looks whole but is not.
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t i = 0; i < best.size(); ++i) {
    const std::string name = ranked_name(i + 1, width, best[i]->number, flags.format);
    const std::string file = (dir / name).string();
    files.emplace_back(
        file, config_text(view, flags, study, *best[i], run_path(file), i == 0 ? notes : ""));
    written.insert(name);
  }
  try {
    write_files_atomically(files);
  } catch (const std::runtime_error& e) {
    throw ConfigError(std::string("-o: ") + e.what() + " (none of the " +
                      std::to_string(files.size()) + " configs was written)");
  }
  for (size_t i = 0; i < best.size(); ++i) tell_written(flags, study, *best[i], files[i].first);
  std::error_code ec;
  std::vector<std::string> others;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (is_ranked_name(name) && written.count(name) == 0) others.push_back(name);
  }
  if (!others.empty()) {
    std::sort(others.begin(), others.end());
    std::cerr << "hpo export: note: " << dir.string() << " also holds " << others.size()
              << " ranked config(s) this export did not write (" << others.front()
              << (others.size() > 1 ? ", ..." : "")
              << "): an earlier export's, or another study's; a loop over the directory would "
                 "train them too\n";
  }
}

// --weights 0.7,0.3: one number >= 0 per objective, not all 0.
std::vector<double> parse_weights(const StudyView& view, const std::string& text) {
  const std::string expected = "expected " + std::to_string(view.metrics.size()) +
                               " numbers >= 0 separated by commas, one per objective (" +
                               goals_text(view) + "), not all 0; got '" + text + "'";
  std::vector<double> weights;
  std::stringstream in(text);
  double sum = 0;
  // getline drops an empty last field: "0.7,0.3," would pass as two weights.
  if (!text.empty() && text.back() == ',') throw ConfigError("--weights: " + expected);
  for (std::string item; std::getline(in, item, ',');) {
    size_t used = 0;
    double w = -1;
    try {
      w = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    while (used < item.size() && item[used] == ' ') ++used;
    if (used == 0 || used != item.size() || !(w >= 0) || std::isinf(w))
      throw ConfigError("--weights: " + expected);
    weights.push_back(w);
    sum += w;
  }
  if (weights.size() != view.metrics.size() || !(sum > 0))
    throw ConfigError("--weights: " + expected);
  return weights;
}

// The trial --trial, --knee or --weights picks, and why; in a multi-objective
// study without them, the knee. Null trial: the selection rule picks.
FrontPick pick_trial(const StudyView& view, const ExportFlags& flags) {
  const int given = (flags.trial >= 0) + flags.knee + !flags.weights.empty();
  if (given > 1) throw ConfigError("--trial, --knee and --weights each pick the trial: give one");
  const bool multi = is_multi_objective(view.study);
  if (!multi && (flags.knee || !flags.weights.empty())) {
    throw ConfigError(std::string(flags.knee ? "--knee" : "--weights") + ": study '" +
                      view.study.name +
                      "' has one objective; --knee and --weights pick from the Pareto front of "
                      "a study with several (objectives: in its study file)");
  }
  if (given > 0 && flags.top != 1)
    throw ConfigError("--top: --trial, --knee and --weights export one trial");
  // --select is the rule that picks among the trials: with a trial already
  // picked, or no single objective to rank, it would be silently dropped.
  if (flags.selection.select == "robust" && (given > 0 || multi)) {
    throw ConfigError(given > 0 ? "--select robust: --trial, --knee and --weights pick the trial "
                                  "themselves: give one"
                                : "--select robust: study '" + view.study.name +
                                      "' has several objectives and robust ranks one; pick a "
                                      "trial of its front with --knee, --weights or --trial N");
  }
  if (multi && flags.top != 1) {
    throw ConfigError("--top: study '" + view.study.name +
                      "' has several objectives and no single ranking; pick a trial of its front "
                      "with --knee, --weights or --trial N");
  }
  if (flags.trial >= 0) {
    const auto it = std::find_if(view.trials.begin(), view.trials.end(),
                                 [&](const TrialRecord& t) { return t.number == flags.trial; });
    if (it == view.trials.end() || it->state != TrialState::kComplete || !it->value) {
      throw ConfigError("--trial " + std::to_string(flags.trial) + ": study '" + view.study.name +
                        "' has no COMPLETE trial with that number" +
                        (it == view.trials.end() ? std::string(" (it has no such trial)")
                                                 : " (trial " + std::to_string(flags.trial) +
                                                       " is " + to_string(it->state) + ")"));
    }
    const bool on_front = !multi || pareto_numbers(view).count(flags.trial) > 0;
    return {&*it, std::string("--trial ") + std::to_string(flags.trial) +
                      (on_front ? "" : " (not on the Pareto front)")};
  }
  if (!multi) return {};
  const auto front = pareto_trials(view);
  if (!flags.weights.empty()) return pick_weighted(view, front, parse_weights(view, flags.weights));
  FrontPick pick = pick_knee(view, front);
  if (!flags.knee) pick.why += "; the default without --knee, --weights or --trial";
  return pick;
}

// What export says of a picked trial, on stderr (stdout may be the config)
// and in a YAML config's header.
std::string pick_text(const StudyView& view, const FrontPick& pick) {
  std::string text = "picked trial " + std::to_string(pick.trial->number);
  if (is_multi_objective(view.study)) {
    const auto front = pareto_trials(view);
    const bool on_front = std::find(front.begin(), front.end(), pick.trial) != front.end();
    text += std::string(on_front ? " of" : ", not on") + " the Pareto front (" +
            std::to_string(front.size()) + " trial(s)): " + objectives_text(view, *pick.trial);
  }
  if (!is_feasible(trial_constraints(pick.trial->system_attrs)))
    text += " (infeasible: it breaks the study's constraints, and is not to be deployed)";
  return text + "\n  why: " + pick.why + "\n";
}

int export_study(ExportFlags flags) {
  flags.format = export_format(flags);
  if (flags.trials && flags.format == "yaml") {
    throw ConfigError(
        "--trials: every trial is written as json or csv, not yaml (--format, or "
        "-o's extension)");
  }
  // Every trial goes out: a flag that picks some would be silently dropped.
  if (flags.trials || flags.format == "csv") {
    const std::string picked = flags.trial >= 0                     ? "--trial"
                               : flags.knee                         ? "--knee"
                               : !flags.weights.empty()             ? "--weights"
                               : flags.top != 1                     ? "--top"
                               : flags.selection.select == "robust" ? "--select robust"
                                                                    : "";
    if (!picked.empty()) {
      throw ConfigError(picked + ": " + (flags.trials ? "--trials" : "a CSV export") +
                        " writes every trial; " + picked +
                        " picks configs to export as yaml or json, without --trials");
    }
  }
  if (flags.output == "-" && flags.top > 1 && !flags.trials && flags.format != "csv") {
    throw ConfigError(
        "-o -: --top " + std::to_string(flags.top) +
        " writes one file per config, so -o must name a directory; leave out -o to print "
        "the configs to stdout");
  }
  if (flags.top > 1 && !flags.output.empty() && flags.output != "-" &&
      !names_directory(flags.output) && looks_like_a_file(flags.output)) {
    throw ConfigError("-o " + flags.output + ": --top " + std::to_string(flags.top) +
                      " writes one file per config into a directory, and " + flags.output +
                      " is a file's name; name a directory (e.g. -o best_configs/)");
  }
  const auto config = try_load_study(flags.study);
  const std::string url = storage_url(flags.storage, config);
  if (!to_stdout(flags)) refuse_overwriting_inputs("-o", flags.output, study_inputs(config, url));
  auto storage = open_storage(url, OpenMode::kReadOnly);
  const StudyView view = load_study_view(*storage, config ? config->name : flags.study);
  const StudyConfig* study = config ? &*config : nullptr;

  if (flags.trials || flags.format == "csv") {
    const std::string text = trials_text(view, flags.format);
    if (to_stdout(flags))
      std::cout << text;
    else
      write_file(flags.output, text);
    return kExitOk;
  }

  SelectionOptions options = flags.selection.options();
  const FrontPick pick = pick_trial(view, flags);
  const auto best = pick.trial ? std::vector<const TrialRecord*>{pick.trial}
                               : ranked_trials(view, options.rule, static_cast<size_t>(flags.top));
  if (best.empty()) {
    std::cerr << "hpo export: study '" << view.study.name << "' has no "
              << (has_constraints(view.trials) ? "feasible " : "") << "COMPLETE trial to export\n";
    return kExitAllTrialsFailed;
  }
  std::string notes;
  if (pick.trial) {
    options.chosen = pick.trial;
    options.chosen_by = flags.trial >= 0 ? "trial" : flags.weights.empty() ? "knee" : "weights";
    notes = pick_text(view, pick);
    std::cerr << "hpo export: " << notes;
  }
  // The statistics judge the selected (rank 1) trial and the sweep.
  notes += selection_text(view, compute_selection(view, options));
  if (best.size() < static_cast<size_t>(flags.top)) {
    std::cerr << "hpo export: --top " << flags.top << ": study '" << view.study.name << "' has "
              << best.size() << (has_constraints(view.trials) ? " feasible" : "")
              << " COMPLETE trial(s); exporting those\n";
  }
  if (to_stdout(flags) && flags.format == "json" && flags.top > 1) {
    // One JSON document, an array in rank order, that a JSON reader takes whole.
    nlohmann::json configs = nlohmann::json::array();
    for (const TrialRecord* t : best) {
      configs.push_back(trial_run_config(*t));
      std::cerr << "hpo export: trial " << t->number << " to stdout\n";
    }
    std::cout << configs.dump(2) << "\n";
  } else if (to_stdout(flags)) {
    for (size_t i = 0; i < best.size(); ++i) {
      if (i > 0) std::cout << "---\n";  // YAML's next document
      std::cout << config_text(view, flags, study, *best[i], kStdoutName, i == 0 ? notes : "");
      std::cerr << "hpo export: trial " << best[i]->number << " to stdout\n";
    }
  } else if (flags.top == 1 && !names_directory(flags.output)) {
    write_file(flags.output,
               config_text(view, flags, study, *best.front(), run_path(flags.output), notes));
    tell_written(flags, study, *best.front(), flags.output);
  } else {
    write_ranked(view, study, best, flags, notes);
  }
  return kExitOk;
}

}  // namespace

void add_export_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<ExportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "export", "Export the best configs as trainer-ready files, or all trials for analysis");
  cmd->add_option("--study", flags->study, "Study name or study file")->required();
  cmd->add_option("--storage", flags->storage,
                  "Study database URL (default: $HPO_STORAGE, else the study file's, else "
                  "sqlite:///hpo.db)");
  cmd->add_option("--top", flags->top, "How many of the best configs to export (default 1)")
      ->check(at_least(1));
  cmd->add_option("--format", flags->format,
                  "json or yaml: trainer configs; csv: every trial (default: from -o's "
                  "extension, else json, the format the trainer protocol gives trainers)")
      ->check(CLI::IsMember({"yaml", "json", "csv"}));
  cmd->add_option("-o,--output", flags->output,
                  "Output file (one config, or --trials; - for stdout), or directory (--top > 1); "
                  "default stdout");
  cmd->add_flag("--trials", flags->trials,
                "Export every trial (params, state, metrics) as json or csv");
  add_selection_options(cmd, flags->selection, true);
  cmd->add_option("--trial", flags->trial, "Export trial N (a COMPLETE one)")->check(at_least(0));
  cmd->add_flag("--knee", flags->knee,
                "Several objectives: the trial of the Pareto front nearest the ideal point, "
                "each objective scaled to [0, 1] over the front (the default)");
  cmd->add_option("--weights", flags->weights,
                  "Several objectives: the trial of the Pareto front with the smallest weighted "
                  "sum of objectives scaled to [0, 1] (0 the best), e.g. 0.7,0.3");
  cmd->footer(
      "A config holds the trial's sampled values and the study's fixed values, exactly what its\n"
      "trainer read. hpo prints the command that runs it: the study's trainer command with the\n"
      "file as {config} (a YAML config has it in its header, with the sweep's overfitting\n"
      "statistics).\n\n" +
      std::string(kSelectHelp) +
      "\nExamples:\n"
      "  hpo export --study quick_sweep -o best.json\n"
      "  hpo export --study quick_sweep -o best.yaml            # YAML, by its name\n"
      "  hpo export --study quick_sweep --top 3 -o best_configs/\n"
      "  hpo export --study quick_sweep --format csv -o trials.csv\n"
      "  hpo export --study full_sweep --select robust -o robust.yaml\n"
      "  hpo export --study quick_pareto --knee -o knee.yaml\n"
      "  hpo export --study quick_pareto --weights 0.7,0.3 -o picked.yaml");
  cmd->callback([flags, &exit_code] { exit_code = export_study(*flags); });
}

}  // namespace hpo
