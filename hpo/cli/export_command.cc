// `hpo export`: the best configs as trainer-ready files, or every trial as
// CSV or JSON for analysis.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/selection_flags.h"
#include "hpo/cli/study_locator.h"
#include "hpo/config/config_error.h"
#include "hpo/report/config_export.h"
#include "hpo/report/robust_select.h"
#include "hpo/report/selection.h"
#include "hpo/report/study_view.h"
#include "hpo/report/trial_json.h"
#include "hpo/run/atomic_file.h"
#include "hpo/storage/open_storage.h"

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
};

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

// --format, else what -o's name says (best.yaml, trials.csv), else JSON:
// what the trainer protocol gives every trainer as {config}.
std::string export_format(const ExportFlags& flags) {
  if (!flags.format.empty()) return flags.format;
  const std::string ext = fs::path(flags.output).extension().string();
  if (ext == ".yaml" || ext == ".yml") return "yaml";
  if (ext == ".csv") return "csv";
  return "json";
}

// YAML configs carry how to run them and the selection's statistics in
// their header; JSON has no comments, so a written file's command is
// printed instead.
std::string config_text(const StudyView& view, const StudyConfig* study, const TrialRecord& t,
                        const std::string& format, const std::string& file,
                        const std::string& notes) {
  return format == "json" ? config_json(t)
                          : config_yaml(view, t, notes, trainer_command_line(study, t, file));
}

// After writing `file`: where it came from and the command that runs it.
void tell_written(const StudyConfig* study, const TrialRecord& t, const std::string& file) {
  std::cout << "wrote " << file << " (trial " << t.number << ")\n";
  const std::string line = trainer_command_line(study, t, file);
  if (!line.empty()) std::cout << "  run it with: " << line << "\n";
}

int export_study(ExportFlags flags) {
  flags.format = export_format(flags);
  if (flags.trials && flags.format == "yaml") {
    throw ConfigError(
        "--trials: every trial is written as json or csv, not yaml (--format, or "
        "-o's extension)");
  }
  if (flags.format == "csv" && !flags.trials && flags.top != 1) {
    throw ConfigError("--top: CSV exports every trial; --top applies to yaml and json configs");
  }
  if (flags.output == "-" && flags.top > 1 && !flags.trials && flags.format != "csv") {
    throw ConfigError(
        "-o -: --top " + std::to_string(flags.top) +
        " writes one file per config, so -o must name a directory; leave out -o to print "
        "the configs to stdout");
  }
  const auto config = try_load_study(flags.study);
  auto storage = open_storage(storage_url(flags.storage, config), OpenMode::kMustExist);
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

  const SelectionOptions options = flags.selection.options();
  const auto best = ranked_trials(view, options.rule, static_cast<size_t>(flags.top));
  if (best.empty()) {
    std::cerr << "hpo export: study '" << view.study.name << "' has no COMPLETE trial to export\n";
    return kExitAllTrialsFailed;
  }
  // The statistics judge the selected (rank 1) trial and the sweep.
  const std::string notes = selection_text(view, compute_selection(view, options));
  if (to_stdout(flags)) {
    for (size_t i = 0; i < best.size(); ++i) {
      if (i > 0) std::cout << (flags.format == "json" ? "\n" : "---\n");
      std::cout << config_text(view, study, *best[i], flags.format, "THIS_FILE",
                               i == 0 ? notes : "");
    }
  } else if (best.size() == 1 && !fs::is_directory(flags.output)) {
    write_file(flags.output,
               config_text(view, study, *best.front(), flags.format, flags.output, notes));
    tell_written(study, *best.front(), flags.output);
  } else {
    // Several configs: -o names a directory, one file per config, by rank.
    for (size_t i = 0; i < best.size(); ++i) {
      const fs::path file =
          fs::path(flags.output) / ("rank" + std::to_string(i + 1) + "_trial" +
                                    std::to_string(best[i]->number) + "." + flags.format);
      write_file(file, config_text(view, study, *best[i], flags.format, file.string(),
                                   i == 0 ? notes : ""));
      tell_written(study, *best[i], file.string());
    }
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
                  "Study database URL (default: $HPO_STORAGE, else the study file's)");
  cmd->add_option("--top", flags->top, "How many of the best configs to export (default 1)")
      ->check(CLI::PositiveNumber);
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
      "  hpo export --study full_sweep --select robust -o robust.yaml");
  cmd->callback([flags, &exit_code] { exit_code = export_study(*flags); });
}

}  // namespace hpo
