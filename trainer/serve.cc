#include "trainer/serve.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "hpo/posix/unique_fd.h"
#include "trainer/error.h"
#include "trainer/panel_memo.h"
#include "trainer/process_defaults.h"
#include "trainer/stop.h"

namespace hpo::trainer {

namespace {

struct Request {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  std::string stdout_path, stderr_path;
};

// Parses one request line; throws std::runtime_error saying what is wrong.
Request parse_request(const std::string& line) {
  const nlohmann::json j = nlohmann::json::parse(line);  // throws on bad JSON
  if (!j.is_object()) throw std::runtime_error("a request must be a JSON object");
  Request r;
  const auto& argv = j.at("argv");
  if (!argv.is_array() || argv.empty())
    throw std::runtime_error("\"argv\" must be a non-empty array of strings");
  for (const auto& a : argv) r.argv.push_back(a.get<std::string>());
  if (j.contains("env")) {
    if (!j["env"].is_object()) throw std::runtime_error("\"env\" must be an object of strings");
    for (const auto& [k, v] : j["env"].items()) {
      if (k.empty() || k.find('=') != std::string::npos)
        throw std::runtime_error("\"env\": '" + k + "' is not a variable name");
      r.env[k] = v.get<std::string>();
    }
  }
  r.stdout_path = j.at("stdout").get<std::string>();
  r.stderr_path = j.at("stderr").get<std::string>();
  return r;
}

// The environment a request asks for, on top of the server's: a variable one
// request set and the next does not goes back to its value at server start.
class RequestEnv {
 public:
  void apply(const std::map<std::string, std::string>& env) {
    for (auto it = original_.begin(); it != original_.end(); ++it)
      if (!env.count(it->first)) restore(it->first, it->second);
    for (const auto& [name, value] : env) {
      if (!original_.count(name)) {
        const char* was = std::getenv(name.c_str());
        original_[name] = was ? std::optional<std::string>(was) : std::nullopt;
      }
      setenv(name.c_str(), value.c_str(), 1);
    }
  }

 private:
  static void restore(const std::string& name, const std::optional<std::string>& value) {
    if (value)
      setenv(name.c_str(), value->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
  std::map<std::string, std::optional<std::string>> original_;
};

void flush_all() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
}

// Writes all of `text` to `fd`; false if it could not.
bool write_all(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

// The server's own file descriptors, taken before anything prints.
struct ServerFds {
  int reply = -1;  // the original stdout: replies to hpo
  int log = -1;  // the original stderr: the server log
  int null = -1;  // fd 1 between trials, so stray prints cannot corrupt replies

  ServerFds() {
    reply = fcntl(1, F_DUPFD_CLOEXEC, 3);
    log = fcntl(2, F_DUPFD_CLOEXEC, 3);
    null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (reply < 0 || log < 0 || null < 0 || dup2(null, 1) < 0)
      throw std::runtime_error(std::string("serve: cannot set up its fds: ") + strerror(errno));
  }
  ServerFds(const ServerFds&) = delete;
  ServerFds& operator=(const ServerFds&) = delete;

  // Points fds 1 and 2 at the trial's files (appending); false if either
  // cannot be opened, with the reason in `why`.
  bool to_trial(const Request& r, std::string* why) const {
    const UniqueFd out(open_append(r.stdout_path, why));
    const UniqueFd err(out.valid() ? open_append(r.stderr_path, why) : -1);
    const bool ok = err.valid() && dup2(out.get(), 1) >= 0 && dup2(err.get(), 2) >= 0;
    if (!ok) back_to_server();
    return ok;
  }

  void back_to_server() const {
    dup2(null, 1);
    dup2(log, 2);
  }

  void say(const std::string& line) const { write_all(log, "hpo-trainer serve: " + line + "\n"); }

 private:
  static int open_append(const std::string& path, std::string* why) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) *why = path + ": " + strerror(errno);
    return fd;
  }
};

// Lines from stdin. A SIGTERM while idle does not end the wait (see serve()).
class LineReader {
 public:
  enum class Got { kLine, kEof };

  Got next(std::string* line) {
    for (;;) {
      if (const size_t end = buffer_.find('\n'); end != std::string::npos) {
        *line = buffer_.substr(0, end);
        buffer_.erase(0, end + 1);
        return Got::kLine;
      }
      char chunk[4096];
      const ssize_t n = read(0, chunk, sizeof chunk);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) return Got::kEof;  // a last line without '\n' is not a whole request
      buffer_.append(chunk, size_t(n));
    }
  }

 private:
  std::string buffer_;
};

std::vector<char*> c_argv(std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (std::string& a : argv) out.push_back(a.data());
  out.push_back(nullptr);
  return out;
}

// Runs one request's trial with fds 1 and 2 on its files; its exit code, or
// 2 when the files cannot be opened.
int run_request(const ServerFds& fds, const ProcessDefaults& defaults, const TrialRunner& run_trial,
                Request* request, std::optional<std::chrono::steady_clock::time_point> arrived) {
  std::string why;
  flush_all();
  if (!fds.to_trial(*request, &why)) {
    fds.say("cannot open the trial's output: " + why);
    return kExitUsage;
  }
  restore_process_defaults(defaults);
  std::vector<char*> argv = c_argv(request->argv);
  const int code = run_trial(int(request->argv.size()), argv.data(), arrived);
  flush_all();
  fds.back_to_server();
  return code;
}

}  // namespace

int serve(const TrialRunner& run_trial) {
  const ServerFds fds;
  // Trials see the environment a trial run on its own would: no HPO_SERVE.
  unsetenv("HPO_SERVE");
  // The trial's own variables are each request's alone. hpo starts a server
  // with its first trial's (so that a trainer that does not serve runs that
  // trial); kept, they would come back for every later request that does not
  // set them: the first trial's HPO_RESUME would make every trial a resume.
  for (const char* name : {"HPO_CONFIG", "HPO_REPORT_FILE", "HPO_TRIAL_DIR", "HPO_TRIAL_NUMBER",
                           "HPO_TRIAL_ID", "HPO_RESUME"})
    unsetenv(name);
  install_stop_handler();
  set_panel_memo(true);
  const ProcessDefaults defaults = process_defaults();
  RequestEnv env;
  LineReader reader;
  bool first = true;
  for (std::string line;;) {
    const LineReader::Got got = reader.next(&line);
    if (got != LineReader::Got::kLine) return 0;  // hpo closed our stdin
    const auto arrived = std::chrono::steady_clock::now();
    // hpo signals a trial only after it sent its request, and reads the
    // reply only after its trainer has ended: a SIGTERM that came before this
    // request was read is a late one for the trial before (pruned as it
    // finished, say). It must not stop this trial, nor end the server, which
    // hpo would then find gone as it sends the next trial.
    clear_stop();
    Request request;
    try {
      request = parse_request(line);
    } catch (const std::exception& e) {
      fds.say("malformed request (" + std::string(e.what()) + "): " + line);
      return kExitUsage;
    }
    env.apply(request.env);
    const int code = run_request(fds, defaults, run_trial, &request,
                                 first ? std::nullopt : std::optional(arrived));
    first = false;
    if (!write_all(fds.reply, nlohmann::json{{"exit", code}}.dump() + "\n")) return 1;
    // A trial that diverged ended cleanly, as a bad config does: serve on.
    if (code != kExitOk && code != kExitUsage && code != kExitStopped && code != kExitDiverged)
      return code;
  }
}

}  // namespace hpo::trainer
