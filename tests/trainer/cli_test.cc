// Runs the hpo-trainer binary as hpo does: exit codes and SIGTERM.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "tests/trainer/test_util.h"
#include "trainer/error.h"

namespace hpo::trainer {
namespace {

using testing::TempDir;

std::string tiny_config(int epochs) {
  return "{\"synthetic_tickers\": 30, \"synthetic_days\": 220, \"lookback\": 5, \"hidden_size\": "
         "8, \"layers\": 2,"
         " \"batch_size\": 64, \"max_train_samples\": 512, \"patience\": 100, \"epochs\": " +
         std::to_string(epochs) + "}";
}

// Starts the trainer with `args`, stdout and stderr to `log`, and `env` set
// on top of the test's environment (without HPO_REPORT_FILE).
pid_t spawn(const std::vector<std::string>& args, const std::string& log,
            const std::vector<std::pair<std::string, std::string>>& env = {}) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> argv;
    std::string bin = HPO_TRAINER_BIN;
    argv.push_back(bin.data());
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    unsetenv("HPO_REPORT_FILE");
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run(const std::vector<std::string>& args, const std::string& log) {
  return wait_exit(spawn(args, log));
}

TEST_CASE("cli: a bad config exits 2 naming the file and key") {
  TempDir dir;
  std::string config = dir.write("config.json", "{\"hiden_size\": 8}");
  CHECK(run({"--config", config, "--out", dir.file("trial")}, dir.file("log")) == 2);
  std::string log = testing::read_file(dir.file("log"));
  CHECK(log.find(config + ": unknown key 'hiden_size' (did you mean 'hidden_size'?)") !=
        std::string::npos);
}

TEST_CASE("cli: a bad data file exits 2 naming the line") {
  TempDir dir;
  std::string data =
      dir.write("p.csv", "date,ticker,open,high,low,close,volume\n2020-01-02,A,1,1,1,x,1\n");
  std::string config = dir.write("config.json", "{\"data\": \"" + data + "\"}");
  CHECK(run({"--config", config}, dir.file("log")) == 2);
  CHECK(testing::read_file(dir.file("log"))
            .find(data + ":2: unparsable number 'x' in column 'close'") != std::string::npos);
}

TEST_CASE("cli: SIGTERM exits 75 with a usable checkpoint; --resume finishes") {
  TempDir dir;
  std::string config = dir.write("config.json", tiny_config(40));
  std::string report = dir.file("report.jsonl");
  std::vector<std::string> args = {"--config",        config,     "--out",
                                   dir.file("trial"), "--report", report};
  pid_t pid = spawn(args, dir.file("log"));
  // Wait for the first epoch line, then stop it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (testing::read_file(report).find("\"epoch\"") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(pid, SIGTERM);
  CHECK(wait_exit(pid) == 75);
  CHECK(std::filesystem::exists(dir.file("trial/checkpoint.pt")));
  CHECK(testing::read_file(report).find("\"final\"") == std::string::npos);

  args.push_back("--resume");
  CHECK(run(args, dir.file("log2")) == 0);
  CHECK(testing::read_file(dir.file("log2")).find("resumed from") != std::string::npos);
  std::string text = testing::read_file(report);
  CHECK(text.rfind("{\"metrics\"") ==
        text.rfind('\n', text.size() - 2) + 1);  // the final line is last
  CHECK(text.find("\"type\":\"final\"") != std::string::npos);
}

TEST_CASE("cli: HPO_RESUME=1, as hpo sets it for a trial run again, resumes without --resume") {
  TempDir dir;
  std::string config = dir.write("config.json", tiny_config(2));
  std::vector<std::string> args = {"--config",        config,     "--out",
                                   dir.file("trial"), "--report", dir.file("r.jsonl")};
  REQUIRE(run(args, dir.file("log")) == 0);
  CHECK(wait_exit(spawn(args, dir.file("log2"), {{"HPO_RESUME", "1"}})) == 0);
  CHECK(testing::read_file(dir.file("log2")).find("resumed from") != std::string::npos);
  CHECK(testing::read_file(dir.file("log2")).find("epoch 0:") ==
        std::string::npos);  // nothing retrained
  // Without HPO_RESUME (or with 0) a run starts over.
  CHECK(wait_exit(spawn(args, dir.file("log3"), {{"HPO_RESUME", "0"}})) == 0);
  CHECK(testing::read_file(dir.file("log3")).find("resumed from") == std::string::npos);
}

TEST_CASE("cli: a diverged model fails the trial rather than scoring NaN predictions") {
  // lr 1e20 without clipping: the loss is inf in the first epoch. Before, the
  // report turned it into 0.0 and ranked NaN predictions into a rank IC, and
  // the trial ended COMPLETE with a plausible score.
  TempDir dir;
  std::string text = tiny_config(2);
  text.insert(text.size() - 1, ", \"model\": \"mlp\", \"lr\": 1e20, \"grad_clip\": 0");
  const std::string config = dir.write("config.json", text);
  CHECK(run({"--config", config, "--out", dir.file("trial"), "--report", dir.file("r.jsonl")},
            dir.file("log")) == kExitDiverged);
  const std::string log = testing::read_file(dir.file("log"));
  CHECK(log.find("hpo-trainer: diverged: epoch 0: the loss is not finite (lr 1e+20") !=
        std::string::npos);
  // No epoch line either: its scores would be of NaN predictions.
  CHECK(testing::read_file(dir.file("r.jsonl")).find("\"type\":") == std::string::npos);
}

TEST_CASE("cli: an unreadable checkpoint is not resumed; the trial starts fresh") {
  // A checkpoint torn by a crash: a resumed trial (hpo sets HPO_RESUME=1 on
  // every retry) crashed on it again and again.
  TempDir dir;
  const std::string config = dir.write("config.json", tiny_config(1));
  std::filesystem::create_directories(dir.file("trial"));
  dir.write("trial/checkpoint.pt", "not a zip archive");
  CHECK(run({"--config", config, "--out", dir.file("trial"), "--resume"}, dir.file("log")) == 0);
  const std::string log = testing::read_file(dir.file("log"));
  CHECK(log.find("is not a readable checkpoint (") != std::string::npos);
  CHECK(log.find("frame #") == std::string::npos);
  CHECK(log.find("epoch 0:") != std::string::npos);
}

TEST_CASE("cli: a checkpoint is not resumed on data that changed since") {
  // The same path, new contents (a corrected price file): before, the resumed
  // run kept the old data's validation scores beside the new data's others.
  TempDir dir;
  const std::string data = dir.file("panel.csv");
  const auto make = [&](const char* seed) {
    return run({"--make-data", data, "--tickers", "20", "--days", "300", "--seed", seed},
               dir.file("make.log"));
  };
  REQUIRE(make("1") == 0);
  std::string text = tiny_config(2);
  text.insert(text.size() - 1, ", \"data\": \"" + data + "\"");
  const std::string config = dir.write("config.json", text);
  const std::vector<std::string> args = {"--config", config, "--out", dir.file("trial"),
                                         "--resume"};
  REQUIRE(run(args, dir.file("log")) == 0);
  CHECK(run(args, dir.file("log2")) == 0);  // the same data: resumed, nothing retrained
  CHECK(testing::read_file(dir.file("log2")).find("resumed from") != std::string::npos);
  REQUIRE(make("2") == 0);
  CHECK(run(args, dir.file("log3")) == 0);
  const std::string log = testing::read_file(dir.file("log3"));
  CHECK(log.find("was written for other data (the data changed since); starting fresh") !=
        std::string::npos);
  CHECK(log.find("resumed from") == std::string::npos);
}

TEST_CASE("cli: a validation block of a few days is trained on, with a warning") {
  TempDir dir;
  std::string text = tiny_config(1);
  text.insert(text.size() - 1, ", \"train_frac\": 0.75, \"valid_frac\": 0.02");
  const std::string config = dir.write("config.json", text);
  CHECK(run({"--config", config, "--out", dir.file("trial")}, dir.file("log")) == 0);
  const std::string log = testing::read_file(dir.file("log"));
  CHECK(log.find("warning: the validation block is ") != std::string::npos);
  CHECK(log.find("warning: the test block is") == std::string::npos);  // 23% of the days: enough
}

TEST_CASE("cli: a directory as --config, or a file as --out, is a usage error (exit 2)") {
  TempDir dir;
  CHECK(run({"--config", dir.file(""), "--out", dir.file("trial")}, dir.file("log")) == 2);
  CHECK(testing::read_file(dir.file("log")).find("is a directory; expected a config file") !=
        std::string::npos);
  const std::string config = dir.write("config.json", tiny_config(1));
  const std::string file = dir.write("taken", "");
  CHECK(run({"--config", config, "--out", file}, dir.file("log2")) == 2);
  CHECK(testing::read_file(dir.file("log2")).find("--out " + file + ": cannot create the trial") !=
        std::string::npos);
}

// hpo sets HPO_CACHE_DIR for every trial: a data path that is a directory
// must be the same clear usage error with it as without it, not a crash.
TEST_CASE("cli: a directory as data exits 2 naming it, with the feature cache on too") {
  TempDir dir;
  const std::string data = dir.file("ddir");
  std::filesystem::create_directory(data);
  const std::string config = dir.write("config.json", "{\"data\": \"" + data + "\"}");
  const std::string expected = data + ": cannot open the data file: it is a directory";
  CHECK(run({"--config", config}, dir.file("log")) == 2);
  CHECK(testing::read_file(dir.file("log")).find(expected) != std::string::npos);
  CHECK(wait_exit(spawn({"--config", config}, dir.file("log2"),
                        {{"HPO_CACHE_DIR", dir.file("cache")}})) == 2);
  const std::string log = testing::read_file(dir.file("log2"));
  CHECK_MESSAGE(log.find(expected) != std::string::npos, log);
}

#ifndef HPO_TORCH_CUDA
// A CPU-only build on hpo's GPU slot fails with no_cuda before it reads its
// data: with a data file that does not exist, no_cuda is the error, not the
// missing file (it once built the features first, for nothing).
TEST_CASE("cli: a GPU slot on a CPU-only build fails before the data is read") {
  TempDir dir;
  const std::string config =
      dir.write("config.json", "{\"data\": \"" + dir.file("no_such.csv") + "\"}");
  CHECK(wait_exit(spawn({"--config", config}, dir.file("log"), {{"HPO_DEVICE", "cuda"}})) == 2);
  const std::string log = testing::read_file(dir.file("log"));
  CHECK_MESSAGE(log.find("no_cuda: HPO_DEVICE=cuda (hpo's GPU slot)") != std::string::npos, log);
  CHECK_MESSAGE(log.find("no_such.csv") == std::string::npos, log);
}
#endif

TEST_CASE("cli: HPO_CONFIG and HPO_REPORT_FILE as hpo passes them") {
  TempDir dir;
  std::string config = dir.write("config.json", tiny_config(1));
  std::vector<std::pair<std::string, std::string>> env = {
      {"HPO_CONFIG", config},
      {"HPO_REPORT_FILE", dir.file("hpo.jsonl")},
      {"HPO_TRIAL_DIR", dir.file("trial")}};
  CHECK(wait_exit(spawn({"--report", dir.file("ignored.jsonl")}, dir.file("log"), env)) == 0);
  CHECK(testing::read_file(dir.file("hpo.jsonl")).find("\"type\":\"final\"") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.file("ignored.jsonl")));
  CHECK(std::filesystem::exists(dir.file("trial/checkpoint.pt")));
}

TEST_CASE("cli: --make-data writes the panel and prints the oracle") {
  TempDir dir;
  CHECK(run({"--make-data", dir.file("p.csv"), "--tickers", "20", "--days", "200"},
            dir.file("log")) == 0);
  CHECK(testing::read_file(dir.file("log")).find("oracle (true expected return") !=
        std::string::npos);
  CHECK(
      testing::read_file(dir.file("p.csv")).rfind("date,ticker,open,high,low,close,volume\n", 0) ==
      0);
}

}  // namespace
}  // namespace hpo::trainer
