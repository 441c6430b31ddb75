// The one thread that starts every trainer. A trainer asks the kernel for a
// signal when its parent dies (PR_SET_PDEATHSIG), so that it does not outlive
// a killed hpo; but the kernel's "parent" is the thread that started it, and
// hpo's worker threads come and go (TBB ends idle ones). This thread lives
// as long as the process, so the signal comes only when hpo itself ends.
#ifndef HPO_LAUNCH_LAUNCHER_THREAD_H_
#define HPO_LAUNCH_LAUNCHER_THREAD_H_

#include <functional>

namespace hpo {

// Runs `fn` on the launcher thread and returns once it has run, rethrowing
// what it threw. The thread has every signal blocked: a child started by
// vfork runs on hpo's memory until exec, and no handler of hpo's may run
// there. Starts the thread on first use; safe from any thread, but not in
// the child of a fork(), which has no launcher thread.
void run_on_launcher_thread(const std::function<void()>& fn);

}  // namespace hpo

#endif  // HPO_LAUNCH_LAUNCHER_THREAD_H_
