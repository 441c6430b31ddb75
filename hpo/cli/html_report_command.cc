// `hpo report`: the study as one offline HTML page (hpo/report/html/).
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>

#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/output_guard.h"
#include "hpo/cli/study_locator.h"
#include "hpo/config/config_error.h"
#include "hpo/config/did_you_mean.h"
#include "hpo/report/html/page.h"
#include "hpo/report/html/report_data.h"
#include "hpo/report/study_view.h"
#include "hpo/run/atomic_file.h"
#include "hpo/storage/open_storage.h"

namespace hpo {

namespace {

struct ReportFlags {
  std::string study;
  std::string storage;
  std::string output = "report.html";
  std::vector<std::string> params;  // --params: the parameters to draw
  std::string objective;  // --objective: the one sections 1 to 8 show
};

// --objective NAME: the index of NAME among the study's objectives; the
// first objective when none is named.
size_t objective_index(const StudyView& view, const std::string& name) {
  if (name.empty()) return 0;
  for (size_t k = 0; k < view.metrics.size(); ++k)
    if (view.metrics[k] == name) return k;
  throw ConfigError("--objective: study '" + view.study.name + "' has no objective '" + name + "'" +
                    did_you_mean(name, view.metrics) +
                    "; its objectives: " + join_names(view.metrics));
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// When the page was made, in the reader's local time with its zone.
std::string local_time_text(double unix_seconds) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm local{};
  localtime_r(&t, &local);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M %Z", &local);
  return text;
}

// -o names a file in a directory that exists: a directory, or a path whose
// directories are missing (a typo, most likely), is refused before anything
// is written, rather than written around.
void check_output_path(const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(output, ec))
    throw ConfigError("-o: " + output + ": is a directory; name the file, e.g. " +
                      (fs::path(output) / "report.html").string());
  const fs::path parent = fs::path(output).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    throw ConfigError("-o: " + output + ": directory " + parent.string() +
                      " does not exist (hpo report does not create it)");
}

int write_report(const ReportFlags& flags) {
  const auto [config, name, file] = find_study_to_read(flags.study, flags.storage, "hpo report");
  const std::string url = storage_url(flags.storage, config);
  if (flags.output != "-") {
    auto inputs = study_inputs(config, url);
    inputs.push_back({file, "the study file"});  // also when it did not parse
    refuse_overwriting_inputs("-o", flags.output, inputs);
  }
  auto storage = open_storage(url, OpenMode::kReadOnly);
  StudyView loaded = load_study_view(*storage, name);
  const size_t objective = objective_index(loaded, flags.objective);
  StudyView view = on_objective(std::move(loaded), objective);
  // The rule hpo status uses, heartbeats included: a RUNNING trial whose
  // owner died here, or whose owner elsewhere stopped beating, is no run.
  mark_orphans(*storage, view,
               config ? config->heartbeat_interval_s : StudyConfig{}.heartbeat_interval_s);
  const double now = now_seconds();
  const std::string page =
      report_page(report_data(view, now, {}, flags.params, config ? &*config : nullptr),
                  "from " + storage->url() + ", " + std::to_string(view.trials.size()) +
                      " trial(s), generated " + local_time_text(now));
  if (flags.output == "-") {
    std::cout << page;
    return kExitOk;
  }
  check_output_path(flags.output);
  try {
    write_file_atomically(flags.output, page);
  } catch (const std::runtime_error& e) {
    throw ConfigError(std::string("-o: ") + e.what());
  }
  std::cout << "wrote " << flags.output << " (" << view.trials.size()
            << " trial(s); open it in a browser)\n";
  return kExitOk;
}

}  // namespace

void add_html_report_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write a study's report: charts, importance, failures, one offline HTML file");
  cmd->add_option("--study", flags->study, "Study name or study file")->required();
  cmd->add_option(
      "--storage", flags->storage,
      "Study database URL (default: $HPO_STORAGE, else the study file's, else sqlite:///hpo.db)");
  cmd->add_option("-o,--output", flags->output,
                  "The HTML file to write (- for stdout; default report.html)");
  cmd->add_option("--params", flags->params,
                  "Parameters the parallel coordinates and slice plots draw, comma-separated "
                  "(default: all, or the 10 most important when there are more)")
      ->delimiter(',');
  cmd->add_option("--objective", flags->objective,
                  "With several objectives, the one the history, curves, parallel coordinates, "
                  "slices, importance and metrics sections show (default: the first)");
  cmd->footer(
      "The page holds everything it needs (Plotly.js is inlined): it opens offline, makes no\n"
      "network request, and can be mailed or attached as it is. Sections: optimization history,\n"
      "learning curves, parallel coordinates, slice plots, parameter importance, recorded "
      "metrics,\n"
      "timeline per slot and host, failures with their stderr, the best trial's config, and\n"
      "overfitting (Deflated Sharpe Ratio and PBO). The page's parameter picker changes which\n"
      "parameters are drawn; --params sets them when the page is written.\n"
      "Safe to run while `hpo run` is going: it reads a consistent snapshot.\n\n"
      "Examples:\n"
      "  hpo report --study quick_sweep\n"
      "  hpo report --study full_sweep -o full_sweep.html\n"
      "  hpo report --study full_sweep --params lr,hidden_size,model\n"
      "  hpo report --study quick_pareto --objective val_turnover -o turnover.html\n"
      "  hpo report --study s --storage postgresql://hpo@db.example/hpo -o s.html");
  cmd->callback([flags, &exit_code] { exit_code = write_report(*flags); });
}

}  // namespace hpo
