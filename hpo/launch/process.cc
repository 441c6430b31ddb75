#include "hpo/launch/process.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// Boost 1.74 offers vfork only where the headers predate POSIX.1-2008 (which
// dropped vfork from the standard); glibc still has it, so say so. Starting
// a trainer with fork copies hpo's page tables and then takes a
// copy-on-write fault per page touched; vfork costs neither.
#define BOOST_POSIX_HAS_VFORK 1
#include <algorithm>
#include <boost/process.hpp>
#include <boost/process/extend.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "hpo/launch/launcher_thread.h"
#include "hpo/posix/unique_fd.h"

namespace bp = boost::process;

namespace hpo {

std::string ExitStatus::describe() const {
  if (!signaled) return "exit code " + std::to_string(code);
  const char* name = sigabbrev_np(signal);
  return "killed by signal " + std::to_string(signal) +
         (name ? std::string(" (SIG") + name + ")" : std::string());
}

struct Process::Impl {
  bp::child child;
  // Held while the child is reaped and while it is signalled: once reaped,
  // its pid may name another process, which must never get our signals.
  std::mutex mu;
  std::optional<ExitStatus> status;
  // Readable once the child has ended (Linux 5.3+); -1 where unsupported,
  // and wait_for() then sleeps instead.
  UniqueFd pidfd;
  UniqueFd request_fd, reply_fd;  // LaunchSpec::pipes: hpo's ends
};

namespace {

ExitStatus decode_wait_status(int raw) {
  ExitStatus s;
  if (WIFSIGNALED(raw)) {
    s.signaled = true;
    s.signal = WTERMSIG(raw);
  } else {
    s.code = WEXITSTATUS(raw);
  }
  return s;
}

std::string errno_text() { return std::strerror(errno); }

// Runs in the child between vfork and exec. A process group of its own (see
// the header), and no inherited descriptors: hpo's database, other trials'
// logs and report files must not leak into a trainer. Marking them
// close-on-exec (rather than closing them) keeps Boost's exec-error
// reporting working, which boost::process::limit_handles breaks in 1.74.
void prepare_child(pid_t hpo) {
  ::setpgid(0, 0);
  // Killed when hpo dies, however it dies (see launcher_thread.h). Should hpo
  // have died before this line, the child was already handed to init and no
  // signal will come: then it stops here.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != hpo) ::_exit(127);
  // Signals hpo handles go back to their defaults (the child's dispositions
  // are its own even under vfork). Ignoring first drops any still pending:
  // a Ctrl-C that reached the child while it was in hpo's group was meant
  // for hpo, which handles it by signalling the trainer itself.
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction sa;
    if (::sigaction(sig, nullptr, &sa) != 0) continue;
    const bool handled =
        (sa.sa_flags & SA_SIGINFO) || (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
    if (!handled) continue;
    ::signal(sig, SIG_IGN);
    ::signal(sig, SIG_DFL);
  }
  // The trainer starts with nothing blocked, whatever the launching thread
  // had blocked: hpo's SIGTERM must always reach it.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  const long max_fd = std::min(::sysconf(_SC_OPEN_MAX), 65536L);
  for (int fd = 3; fd < max_fd; ++fd) {
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
}

// The trainer's environment: hpo's own, with the spec's variables set on
// top (later ones win). Built as an envp array that points into environ
// and owns only the overrides: copying and parsing the whole environment
// (as boost::process::environment does) cost more than the rest of a launch.
class ChildEnvironment {
 public:
  explicit ChildEnvironment(const std::vector<std::pair<std::string, std::string>>& overrides) {
    std::map<std::string, std::string> set;  // name -> "NAME=value", last one wins
    for (const auto& [key, value] : overrides) set[key] = key + "=" + value;
    for (char** e = ::environ; e && *e; ++e) {
      const char* eq = std::strchr(*e, '=');
      const std::string name = eq ? std::string(*e, static_cast<size_t>(eq - *e)) : std::string(*e);
      if (set.count(name) == 0) envp_.push_back(*e);
    }
    for (auto& [key, entry] : set) owned_.push_back(std::move(entry));
    for (auto& entry : owned_) envp_.push_back(entry.data());
    envp_.push_back(nullptr);
  }

  char** envp() { return envp_.data(); }

 private:
  std::vector<std::string> owned_;
  std::vector<char*> envp_;
};

}  // namespace

Process::Process(const LaunchSpec& spec) : impl_(std::make_unique<Impl>()) {
  if (spec.argv.empty()) throw LaunchError("empty command");
  ChildEnvironment env(spec.env);
  const std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
  // The child's ends of its stdin and stdout pipes, when it has them. All
  // four ends are close-on-exec: no other trainer holds one (a served
  // trainer sees the end of its stdin only once every write end is closed).
  UniqueFd child_in, child_out, child_err;
  UniqueFd request, reply;
  if (spec.pipes) {
    // Appended to: the log of a slot's servers, which hpo processes running
    // the same study at once share.
    child_err.reset(
        ::open(spec.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (!child_err.valid())
      throw LaunchError("cannot open " + spec.stderr_path + ": " + errno_text());
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0) throw LaunchError("cannot make a pipe: " + errno_text());
    child_in.reset(in[0]);
    request.reset(in[1]);
    if (::pipe2(out, O_CLOEXEC) != 0) throw LaunchError("cannot make a pipe: " + errno_text());
    reply.reset(out[0]);
    child_out.reset(out[1]);
  }
  std::error_code ec;
  const pid_t hpo = ::getpid();
  // Started by the thread that lives as long as hpo, which has every signal
  // blocked: the vfork child runs on hpo's memory until exec, and a handler
  // running there would act on hpo's data (its stop flag, say).
  const int in = child_in.get(), out = child_out.get(), err = child_err.get();
  run_on_launcher_thread([&] {
    if (spec.pipes) {
      // dup2 leaves the copies on 0 and 1 open across exec.
      impl_->child = bp::child(
          bp::exe = spec.argv[0], bp::args = args,
          bp::extend::on_setup = [&env](auto& exec) { exec.env = env.envp(); },
          bp::extend::on_exec_setup =
              [hpo, in, out, err](auto&) {
                prepare_child(hpo);
                ::dup2(in, 0);
                ::dup2(out, 1);
                ::dup2(err, 2);
              },
          bp::posix::use_vfork, ec);
    } else {
      impl_->child = bp::child(
          bp::exe = spec.argv[0], bp::args = args,
          bp::extend::on_setup = [&env](auto& exec) { exec.env = env.envp(); },
          bp::std_in<bp::null, bp::std_out> spec.stdout_path, bp::std_err > spec.stderr_path,
          bp::extend::on_exec_setup = [hpo](auto&) { prepare_child(hpo); }, bp::posix::use_vfork,
          ec);
    }
  });
  if (ec) {
    throw LaunchError("cannot start '" + spec.argv[0] + "': " + ec.message());
  }
  // The child's ends close as this returns: only the child holds them now.
  impl_->request_fd = std::move(request);
  impl_->reply_fd = std::move(reply);
  // Close-on-exec by definition: no other trainer inherits it.
  impl_->pidfd.reset(static_cast<int>(::syscall(SYS_pidfd_open, impl_->child.id(), 0)));
}

Process::~Process() {
  if (!impl_ || impl_->status || !impl_->child.valid()) return;
  signal_group(SIGKILL);
  std::error_code ec;
  impl_->child.wait(ec);
}

int Process::pid() const { return impl_->child.id(); }

int Process::request_fd() const { return impl_->request_fd.get(); }

int Process::reply_fd() const { return impl_->reply_fd.get(); }

void Process::close_requests() { impl_->request_fd.reset(); }

std::optional<ExitStatus> Process::poll() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->status) return impl_->status;
  // Look without reaping: until it is reaped the trainer's pid, which names
  // its group, cannot be reused, so what is left in the group is the
  // trainer's own (a shell's background job, a data-loader worker). Nothing
  // else would end those, so they go now, however the trainer ended.
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid()), &info, WEXITED | WNOHANG | WNOWAIT) == 0) {
    if (info.si_pid == 0) return std::nullopt;  // still running
    ::kill(-pid(), SIGKILL);
  }
  std::error_code ec;
  if (impl_->child.running(ec)) return std::nullopt;
  // running() reaped the child and stored its raw wait status.
  impl_->status = decode_wait_status(impl_->child.native_exit_code());
  return impl_->status;
}

std::optional<ExitStatus> Process::wait_for(std::chrono::microseconds timeout) {
  if (impl_->pidfd.valid()) {
    wait_readable(impl_->pidfd.get(), timeout);
  } else {
    std::this_thread::sleep_for(timeout);
  }
  return poll();
}

void Process::signal_group(int sig) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->status) return;
  // The group id is the child's pid (setpgid(0, 0) above). Should the child
  // not have reached setpgid yet, signal it directly as well.
  ::kill(-pid(), sig);
  ::kill(pid(), sig);
}

void wait_readable(int fd, std::chrono::microseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  const auto us = timeout.count();
  const timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
  ::ppoll(&p, 1, &ts, nullptr);  // an interruption just returns early
}

}  // namespace hpo
