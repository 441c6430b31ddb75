// The subcommands of `hpo`, each registering itself on the app. A command's
// callback stores its exit code in `exit_code`; errors are thrown (see main).
#ifndef HPO_CLI_COMMANDS_H_
#define HPO_CLI_COMMANDS_H_

#include <CLI/CLI.hpp>

namespace hpo {

void add_run_command(CLI::App& app, int& exit_code);
void add_status_command(CLI::App& app, int& exit_code);
void add_best_command(CLI::App& app, int& exit_code);
void add_export_command(CLI::App& app, int& exit_code);
void add_studies_command(CLI::App& app, int& exit_code);
void add_gpu_command(CLI::App& app, int& exit_code);
void add_calibrate_command(CLI::App& gpu, int& exit_code);  // `hpo gpu calibrate`
void add_doctor_command(CLI::App& app, int& exit_code);
void add_db_command(CLI::App& app, int& exit_code);
void add_slurm_command(CLI::App& app, int& exit_code);
void add_html_report_command(CLI::App& app, int& exit_code);

}  // namespace hpo

#endif  // HPO_CLI_COMMANDS_H_
