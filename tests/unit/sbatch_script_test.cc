#include "hpo/slurm/sbatch_script.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "hpo/gpu/command_output.h"
#include "hpo/slurm/private_file.h"
#include "temp_dir.h"

namespace hpo {
namespace {

SbatchRequest request() {
  SbatchRequest r;
  r.study = "s";
  r.study_name = "s";
  r.workers = 3;
  r.trials_per_worker = 2;
  r.storage = "postgresql://u:p@db:5432/hpo";
  r.project_dir = "/proj";
  r.hpo = "/opt/hpo/bin/hpo";
  r.runs_dir = "/proj/runs";
  r.output_dir = "/proj/runs/s/slurm";
  r.env_file = "/proj/runs/s/slurm/hpo-s.env";
  return r;
}

std::vector<std::string> sbatch_lines(const std::string& script) {
  std::vector<std::string> lines;
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#SBATCH ", 0) == 0) lines.push_back(line.substr(8));
  }
  return lines;
}

// Runs the script's body with /bin/sh; returns what it printed.
std::string run_script(const std::string& script) {
  const CommandOutput out = run_command({"/bin/sh", "-c", script}, 10);
  CHECK(out.ok());
  return out.out;
}

TEST_CASE("the script is an array of one `hpo run` worker per task, output per task") {
  SbatchRequest r = request();
  r.partition = "gpu";
  r.gres = "gpu:1";
  r.time = "02:00:00";
  r.cpus_per_task = 8;
  r.extra = {"--qos=long"};
  const auto lines = sbatch_lines(sbatch_script(r));
  const std::vector<std::string> want = {
      "--job-name=hpo-s", "--array=0-2",       "--output=/proj/runs/s/slurm/%A_%a.out",
      "--ntasks=1",       "--partition=gpu",   "--gres=gpu:1",
      "--time=02:00:00",  "--cpus-per-task=8", "--qos=long"};
  CHECK(lines == want);
  const std::string script = sbatch_script(r);
  CHECK(script.rfind("#!/bin/sh\n", 0) == 0);
  CHECK(script.find(". /proj/runs/s/slurm/hpo-s.env || exit 1") != std::string::npos);
  CHECK(script.find("exec /opt/hpo/bin/hpo run --study s -n 2 --runs-dir /proj/runs\n") !=
        std::string::npos);
}

TEST_CASE("an --extra value with blanks or single quotes stays one word to sbatch") {
  // sbatch splits a #SBATCH line at blanks and strips quotes of both kinds:
  // "--comment=nightly sweep" failed on a stray "sweep", "it's" on an
  // unmatched quote.
  SbatchRequest r = request();
  r.partition = "it's";
  r.extra = {"--comment=nightly sweep",
             "--comment nightly  sweep",
             "--comment=it's",
             "--qos long",
             "--exclusive",
             "--comment=",
             "--begin= now"};
  const auto lines = sbatch_lines(sbatch_script(r));
  const std::vector<std::string> tail(lines.end() - 8, lines.end());
  const std::vector<std::string> want = {"--partition=\"it's\"",
                                         "--comment=\"nightly sweep\"",
                                         "--comment \"nightly  sweep\"",
                                         "--comment=\"it's\"",
                                         "--qos long",
                                         "--exclusive",
                                         "--comment=",
                                         "--begin=\" now\""};
  CHECK(tail == want);
}

TEST_CASE("the storage URL is in no worker's argv and not in the script") {
  SbatchRequest r = request();
  r.storage = "postgresql://u:pa's$w0rd@db:5432/hpo";
  const std::string script = sbatch_script(r);
  CHECK(script.find("pa") == std::string::npos);
  CHECK(script.find("postgresql") == std::string::npos);
  CHECK(storage_env_text(r.storage) ==
        "HPO_STORAGE='postgresql://u:pa'\\''s$w0rd@db:5432/hpo'\n"
        "export HPO_STORAGE\n");
}

TEST_CASE("private files are created 0600 whatever the umask, never over an existing path") {
  TempDir tmp;
  const mode_t old_umask = ::umask(0);
  const std::string path = tmp.path("secret.env");
  CHECK(write_private_file(path, "HPO_STORAGE=x\n") == 0);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(write_private_file(path, "again") == EEXIST);
  // A link planted where the file goes is not followed.
  const std::string planted = tmp.path("planted");
  REQUIRE(::symlink(tmp.path("theirs").c_str(), planted.c_str()) == 0);
  CHECK(write_private_file(planted, "secret") == EEXIST);
  CHECK_FALSE(std::filesystem::exists(tmp.path("theirs")));
  ::umask(old_umask);
}

TEST_CASE("a % in the runs directory is not taken for a job or task number") {
  SbatchRequest r = request();
  r.output_dir = "/data/100%/runs/s/slurm";
  const auto lines = sbatch_lines(sbatch_script(r));
  CHECK(lines[2] == "--output=/data/100%%/runs/s/slurm/%A_%a.out");
}

TEST_CASE("nasty names reach hpo run as the same arguments, and the worker starts in the project") {
  TempDir tmp;
  const std::string project = tmp.path("it's a $(touch pwned) `x` dir");
  // A stand-in for hpo that prints where it runs and its arguments, one a line.
  const std::string fake = tmp.write(
      "bin dir/fake hpo",
      "#!/bin/sh\npwd\nprintf '%s\\n' \"$HPO_STORAGE\"\nfor a; do printf '%s\\n' \"$a\"; done\n");
  REQUIRE(::chmod(fake.c_str(), 0755) == 0);
  REQUIRE(std::filesystem::create_directories(project));
  SbatchRequest r = request();
  r.study = "studies/my \"study\"; rm -rf ~.yaml";
  r.storage = "sqlite:///$HOME/a 'b'.db";
  r.project_dir = project;
  r.runs_dir = project + "/runs 'n' $(touch pwned)";
  r.hpo = fake;
  r.env_file = tmp.write("env 'dir'/$(touch pwned).env", storage_env_text(r.storage));
  const std::string out = run_script(sbatch_script(r));
  const std::string args = out.substr(out.find('\n') + 1);  // after the worker's banner
  CHECK(args == project + "\n" + r.storage + "\nrun\n--study\n" + r.study +
                    "\n-n\n2\n--runs-dir\n" + r.runs_dir + "\n");
  CHECK_FALSE(std::filesystem::exists(tmp.path("pwned")));
  CHECK_FALSE(std::filesystem::exists(project + "/pwned"));
}

TEST_CASE("values a #SBATCH line cannot carry are refused by name") {
  SbatchRequest r = request();
  CHECK(sbatch_request_problem(r) == "");
  r.partition = "gpu\n#SBATCH --account=someone_else";
  CHECK(sbatch_request_problem(r).find("--partition") == 0);
  r = request();
  r.mem = "32\"G";
  CHECK(sbatch_request_problem(r).find("--mem") == 0);
  r = request();
  r.output_dir = "/runs\n/s";
  CHECK(sbatch_request_problem(r).find("runs directory") != std::string::npos);
  r = request();
  r.extra = {"qos=long"};
  CHECK(sbatch_request_problem(r).find("--extra 'qos=long'") == 0);
  // sbatch would not expand %A_%a: every task would die without output.
  r = request();
  r.output_dir = "/runs\\x/s/slurm";
  CHECK(sbatch_request_problem(r).find("backslash") != std::string::npos);
}

TEST_CASE("--extra cannot name the nodes past the SQLite check") {
  SbatchRequest r = request();
  for (const char* extra : {"--nodelist=a,b", "--nodelist a,b", "--nodel=a,b", "--nodefile=f"}) {
    CAPTURE(extra);
    r.extra = {extra};
    CHECK(sbatch_request_problem(r).find("--nodelist") != std::string::npos);
  }
  r.extra = {"--nodes=1"};
  CHECK(sbatch_request_problem(r) == "");
}

TEST_CASE("--extra cannot set the array past the SQLite check") {
  SbatchRequest r = request();
  r.storage = "sqlite:///hpo.db";
  r.workers = 1;
  for (const char* extra : {"--array=0-7", "--array 0-7", "--arr=0-7", "--ar=0-7"}) {
    CAPTURE(extra);
    r.extra = {extra};
    CHECK(sqlite_array_problem(r).find("--nodelist NODE") != std::string::npos);
    CHECK(sbatch_request_problem(r) == "");  // a throttle (0-63%8) is any storage's right
  }
  r.nodelist = "gpu07";  // on one node, SQLite serves any array
  CHECK(sqlite_array_problem(r) == "");
  r.nodelist = "";
  r.extra = {"--account=x"};
  CHECK(sqlite_array_problem(r) == "");
  r.storage = "postgresql://u:p@db:5432/hpo";
  r.extra = {"--array=0-63%8"};
  CHECK(sqlite_array_problem(r) == "");
}

TEST_CASE("a value with a blank is quoted on its #SBATCH line") {
  SbatchRequest r = request();
  r.output_dir = "/my runs/s/slurm";
  CHECK(sbatch_lines(sbatch_script(r))[2] == "--output=\"/my runs/s/slurm/%A_%a.out\"");
}

TEST_CASE("one node is a plain host name; lists and ranges are several") {
  CHECK(names_one_node("gpu07"));
  CHECK(names_one_node("node-1.cluster"));
  CHECK_FALSE(names_one_node(""));
  CHECK_FALSE(names_one_node("a,b"));
  CHECK_FALSE(names_one_node("gpu[01-04]"));
  CHECK_FALSE(names_one_node("gpu[07]"));  // could be one, but is a range expression
  CHECK_FALSE(names_one_node("./nodes.txt"));  // sbatch reads a path as a file of hosts
  CHECK_FALSE(names_one_node("/etc/hosts.list"));
}

TEST_CASE("SQLite serves an array only on one node; PostgreSQL anywhere") {
  SbatchRequest r = request();
  CHECK(sqlite_array_problem(r) == "");
  r.storage = "sqlite:///studies.db";
  const std::string problem = sqlite_array_problem(r);
  CHECK(problem.find("--storage sqlite:///studies.db") == 0);
  CHECK(problem.find("PostgreSQL") != std::string::npos);
  CHECK(problem.find("--nodelist") != std::string::npos);
  r.nodelist = "gpu[01-02]";
  CHECK(sqlite_array_problem(r) != "");
  r.nodelist = "gpu01";
  CHECK(sqlite_array_problem(r) == "");
  r.nodelist = "";
  r.workers = 1;
  CHECK(sqlite_array_problem(r) == "");
}

}  // namespace
}  // namespace hpo
