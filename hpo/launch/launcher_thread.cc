#include "hpo/launch/launcher_thread.h"

#include <pthread.h>
#include <signal.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace hpo {

namespace {

class LauncherThread {
 public:
  LauncherThread() {
    // The thread inherits the mask in force when it is created.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    std::thread([this] { loop(); }).detach();
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  }

  void run(const std::function<void()>& fn) {
    Job job{&fn, nullptr, false};
    std::unique_lock<std::mutex> lock(mu_);
    jobs_.push_back(&job);
    queued_.notify_one();
    done_.wait(lock, [&job] { return job.done; });
    if (job.error) std::rethrow_exception(job.error);
  }

 private:
  // Lives on the stack of the caller waiting for it. The launcher thread
  // touches it only under mu_, which, like the condition variables, is never
  // destroyed: once `done` is set the caller may return at once.
  struct Job {
    const std::function<void()>* fn;
    std::exception_ptr error;
    bool done = false;
  };

  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      queued_.wait(lock, [this] { return !jobs_.empty(); });
      Job* job = jobs_.front();
      jobs_.pop_front();
      lock.unlock();
      std::exception_ptr error;
      try {
        (*job->fn)();
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      job->error = error;
      job->done = true;
      done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable queued_;
  std::condition_variable done_;  // some job is done: each caller checks its own
  std::deque<Job*> jobs_;
};

}  // namespace

void run_on_launcher_thread(const std::function<void()>& fn) {
  // Never destroyed, and its thread never joined: ending it would signal
  // every running trainer. The process's exit ends both.
  static LauncherThread* const thread = new LauncherThread;
  thread->run(fn);
}

}  // namespace hpo
