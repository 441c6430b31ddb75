#include "hpo/slurm/sbatch_script.h"

#include <utility>

#include "hpo/slurm/shell_quote.h"

namespace hpo {

namespace {

// The output file pattern: sbatch replaces %A (job) and %a (task); a % of
// the directory's own is written %%.
std::string output_pattern(const std::string& dir) {
  std::string escaped;
  for (char c : dir) escaped += c == '%' ? std::string("%%") : std::string(1, c);
  return escaped + "/%A_%a.out";
}

// A value on a #SBATCH line. sbatch splits the line at blanks and strips
// quotes, single or double, so a value with a blank or a single quote goes in
// double quotes (values holding a double quote are refused).
std::string sbatch_value(const std::string& value) {
  if (value.find_first_of(" \t'") == std::string::npos) return value;
  return "\"" + value + "\"";
}

// An --extra line as sbatch should read it: the option's name, then its value
// (after '=' or blanks) as one word, so "--comment=nightly sweep" sets the
// comment instead of failing on a stray "sweep".
std::string extra_line(const std::string& line) {
  const size_t end = line.find_first_of("= \t");
  if (end == std::string::npos) return line;
  const size_t value = line[end] == '=' ? end + 1 : line.find_first_not_of(" \t", end);
  if (value == std::string::npos) return line.substr(0, end);
  return line.substr(0, end) + (line[end] == '=' ? "=" : " ") + sbatch_value(line.substr(value));
}

// The #SBATCH options in the order they are written: (flag, value).
std::vector<std::pair<std::string, std::string>> sbatch_options(const SbatchRequest& r) {
  std::vector<std::pair<std::string, std::string>> options = {
      {"--job-name", "hpo-" + r.study_name},
      {"--array", "0-" + std::to_string(r.workers - 1)},
      {"--output", output_pattern(r.output_dir)},
      {"--ntasks", "1"},
  };
  const std::pair<const char*, const std::string*> optional[] = {
      {"--partition", &r.partition}, {"--account", &r.account}, {"--nodelist", &r.nodelist},
      {"--gres", &r.gres},           {"--time", &r.time},       {"--mem", &r.mem},
  };
  for (const auto& [flag, value] : optional) {
    if (!value->empty()) options.emplace_back(flag, *value);
  }
  if (r.cpus_per_task > 0) options.emplace_back("--cpus-per-task", std::to_string(r.cpus_per_task));
  return options;
}

std::string line_problem(const std::string& what, const std::string& value) {
  if (value.find_first_of("\n\r") != std::string::npos) return what + ": holds a line break";
  if (value.find('"') != std::string::npos)
    return what + ": holds a double quote, which a #SBATCH line cannot carry";
  return "";
}

// Whether an --extra line sets `option`: sbatch (getopt_long) takes any
// unambiguous prefix of a long option, down to `shortest` letters (--nodel
// and --nodef, --ar).
bool sets_option(const std::string& line, const std::string& option, size_t shortest) {
  const std::string name = line.substr(2, line.find_first_of("= \t") - 2);
  return name.size() >= shortest && option.rfind(name, 0) == 0;
}

std::string extra_problem(const std::string& line) {
  std::string problem = line_problem("--extra '" + line + "'", line);
  if (!problem.empty()) return problem;
  if (line.rfind("--", 0) != 0)
    return "--extra '" + line + "': expected an sbatch option such as --qos=long";
  if (sets_option(line, "nodelist", 5) || sets_option(line, "nodefile", 5))
    return "--extra '" + line + "': name the nodes with hpo slurm's own --nodelist";
  return "";
}

}  // namespace

std::string sbatch_request_problem(const SbatchRequest& request) {
  for (const auto& [flag, value] : sbatch_options(request)) {
    const std::string what = flag == "--output" ? "the runs directory '" + request.output_dir + "'"
                                                : flag + " '" + value + "'";
    const std::string problem = line_problem(what, value);
    if (!problem.empty()) return problem;
  }
  if (request.output_dir.find('\\') != std::string::npos) {
    return "the runs directory '" + request.output_dir +
           "': holds a backslash, with which sbatch would not expand the output file's "
           "%A_%a (every task would die without output); use --runs-dir DIR without one";
  }
  for (const auto& line : request.extra) {
    std::string problem = extra_problem(line);
    if (!problem.empty()) return problem;
  }
  return "";
}

bool names_one_node(const std::string& nodelist) {
  // A value with a '/' is a file of host names to sbatch: any number of them.
  return !nodelist.empty() && nodelist.find_first_of(",[ /") == std::string::npos;
}

std::string sqlite_array_problem(const SbatchRequest& request) {
  if (request.storage.rfind("sqlite:", 0) != 0) return "";
  if (names_one_node(request.nodelist)) return "";
  // A second --array (a throttle such as 0-7%2, say) overrides the one
  // --workers writes: one worker may then be many.
  for (const auto& line : request.extra) {
    if (line.rfind("--", 0) == 0 && sets_option(line, "array", 2)) {
      return "--extra '" + line + "' with --storage " + request.storage +
             ": the array may run on different nodes, and SQLite works only among processes "
             "of one machine; pin it to one node with --nodelist NODE, or use PostgreSQL";
    }
  }
  if (request.workers == 1) return "";
  return "--storage " + request.storage + ": " + std::to_string(request.workers) +
         " workers may run on different nodes, and SQLite works only among processes of one "
         "machine "
         "(its locks and WAL do not reach over a network file system); use PostgreSQL "
         "(--storage postgresql://user:pass@host:5432/db), or pin the array to one node with "
         "--nodelist NODE";
}

std::string sbatch_script(const SbatchRequest& r) {
  std::string text = "#!/bin/sh\n";
  text += "# Written by hpo slurm" + (r.written_at.empty() ? "" : " at " + r.written_at) + ": " +
          std::to_string(r.workers) + " worker(s) of study " + r.study_name + ", " +
          std::to_string(r.trials_per_worker) + " trial(s) each.\n";
  for (const auto& [flag, value] : sbatch_options(r))
    text += "#SBATCH " + flag + "=" + sbatch_value(value) + "\n";
  for (const auto& line : r.extra) text += "#SBATCH " + extra_line(line) + "\n";
  text += "\n";
  text +=
      "echo \"hpo worker: task ${SLURM_ARRAY_TASK_ID} of job ${SLURM_ARRAY_JOB_ID} on "
      "$(hostname)\"\n";
  text += "cd " + shell_quote(r.project_dir) + " || exit 1\n";
  text += ". " + shell_quote(r.env_file) + " || exit 1  # sets HPO_STORAGE\n";
  text += "exec " + shell_quote(r.hpo) + " run --study " + shell_quote(r.study) + " -n " +
          std::to_string(r.trials_per_worker) + " --runs-dir " + shell_quote(r.runs_dir) + "\n";
  return text;
}

std::string storage_env_text(const std::string& storage) {
  return "HPO_STORAGE=" + shell_quote(storage) + "\nexport HPO_STORAGE\n";
}

}  // namespace hpo
