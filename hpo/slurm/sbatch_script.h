// The sbatch job-array script of `hpo slurm`: one `hpo run` worker per
// array task, all on the same study and storage, each task's output in its
// own file. Pure functions: the CLI gathers the request, checks it, writes
// the script and runs sbatch.
#ifndef HPO_SLURM_SBATCH_SCRIPT_H_
#define HPO_SLURM_SBATCH_SCRIPT_H_

#include <string>
#include <vector>

namespace hpo {

struct SbatchRequest {
  std::string study;  // passed to `hpo run --study` (a name or a path)
  std::string study_name;  // the study's name: the job is named hpo-NAME
  int workers = 1;  // array tasks
  int trials_per_worker = 1;
  std::string storage;  // the URL every worker uses: not in the script (see storage_env_text)
  std::string env_file;  // absolute; holds storage_env_text(storage), sourced by each task
  std::string project_dir;  // absolute; workers start here, as `hpo slurm` did
  std::string runs_dir;  // absolute; the workers' --runs-dir
  std::string hpo;  // absolute path of the hpo binary the workers run
  std::string output_dir;  // absolute; per-task output goes to JOB_TASK.out here
  // sbatch options, each left out when empty (cpus_per_task when 0).
  std::string partition, gres, time, nodelist, mem, account;
  int cpus_per_task = 0;
  std::vector<std::string> extra;  // further #SBATCH lines, e.g. "--qos=long"
  std::string written_at;  // a timestamp for the script's header comment
};

// The first value that cannot go into the script, as "--partition: ..."; ""
// when all can. A #SBATCH line ends at a newline and sbatch reads no escape
// for a double quote, so neither may appear in an option's value; a
// backslash in --output makes sbatch leave %A and %a unexpanded, so it may
// not appear in the runs directory. An --extra that names nodes
// (--nodelist, --nodefile, or a prefix sbatch takes for one) is refused too:
// it would override --nodelist after the SQLite check has trusted it.
std::string sbatch_request_problem(const SbatchRequest& request);

// True when `nodelist` names exactly one node ("gpu07"; not "a,b", a range
// such as "gpu[01-04]", nor a path, which sbatch reads as a file of hosts).
bool names_one_node(const std::string& nodelist);

// Why SQLite storage cannot serve this array, or "" when it can: SQLite's
// locks and WAL work only among processes of one machine, so the array
// must be pinned to one node (or be a single task, with no --extra that
// sets the array: --array, or a prefix sbatch takes for it).
std::string sqlite_array_problem(const SbatchRequest& request);

// The script; `sbatch_request_problem(request)` must be "". It holds no
// storage URL: each task reads $HPO_STORAGE from `env_file` (which the CLI
// writes mode 0600), so the password is neither in a worker's argv, where
// every user of the node sees it in `ps`, nor in the script Slurm keeps.
std::string sbatch_script(const SbatchRequest& request);

// The text of the env file: sets and exports HPO_STORAGE to `storage`, which
// `hpo run` takes before the study file's storage.
std::string storage_env_text(const std::string& storage);

}  // namespace hpo

#endif  // HPO_SLURM_SBATCH_SCRIPT_H_
