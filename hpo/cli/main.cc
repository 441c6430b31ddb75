// hpo: hyperparameter optimization for training jobs. The command line only
// parses flags and reports errors; each subcommand lives in its own file.
#include <iostream>

#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/parse_error.h"
#include "hpo/config/config_error.h"
#include "hpo/run/heap_settings.h"
#include "hpo/run/runs_dir_error.h"
#include "hpo/storage/storage.h"

int main(int argc, char** argv) {
  hpo::keep_freed_heap();
  CLI::App app{
      "hpo: hyperparameter optimization for training jobs.\n"
      "Samples trial configs from a YAML search space, runs your trainer on each (any program "
      "that\n"
      "follows the trainer protocol; see the README), and keeps every trial in an "
      "Optuna-compatible\n"
      "SQLite database, so studies resume after a crash and open in Optuna.",
      "hpo"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "hpo 0.1.0");
  app.footer(
      "Run `hpo COMMAND --help` for a command's options.\n"
      "Exit codes: 0 ok; 1 no trial completed; 2 bad input; 3 database error; 4 internal error;\n"
      "5 stopped by --max-failures; 6 the trainer cannot use its GPU slot;\n"
      "7 a trial's directory could not be written (a full or read-only disk);\n"
      "8 stopped because its output could not be written (a full disk under `> log`);\n"
      "130/143/129 stopped by SIGINT/SIGTERM/SIGHUP; 141 stopped because its output's reader\n"
      "is gone (`hpo run | head`).");
  int exit_code = hpo::kExitOk;
  hpo::add_run_command(app, exit_code);
  hpo::add_status_command(app, exit_code);
  hpo::add_best_command(app, exit_code);
  hpo::add_export_command(app, exit_code);
  hpo::add_html_report_command(app, exit_code);
  hpo::add_studies_command(app, exit_code);
  hpo::add_gpu_command(app, exit_code);
  hpo::add_doctor_command(app, exit_code);
  hpo::add_db_command(app, exit_code);
  hpo::add_slurm_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string command;
    const std::vector<std::string> args(argv + 1, argv + argc);
    std::cerr << "hpo: error: " << hpo::parse_error_message(app, e, args, &command) << "\n"
              << "Run `" << command << " --help` for "
              << (command == app.get_name() ? "the commands" : "its options") << ".\n";
    return hpo::kExitBadInput;
  } catch (const hpo::ConfigError& e) {
    std::cerr << "hpo: error: " << e.what() << "\n";
    return hpo::kExitBadInput;
  } catch (const hpo::StorageError& e) {
    std::cerr << "hpo: database error: " << e.what() << "\n";
    return hpo::kExitStorage;
  } catch (const hpo::RunsDirError& e) {
    std::cerr << "hpo: runs directory error: " << e.what() << "\n";
    return hpo::kExitRunsDir;
  } catch (const std::exception& e) {
    std::cerr << "hpo: internal error: " << e.what() << "\n";
    return hpo::kExitInternal;
  }
  return exit_code;
}
