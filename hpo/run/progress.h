// Live progress of `hpo run`: trials done, running and failed out of N, the
// best objective so far, elapsed time and ETA. On a terminal it is one line
// redrawn in place (finished trials scroll above it); otherwise, for logs
// and CI, plain lines as trials start and end.
#ifndef HPO_RUN_PROGRESS_H_
#define HPO_RUN_PROGRESS_H_

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "samplers/trial_view.h"

namespace hpo {

class Progress {
 public:
  Progress(std::ostream& out, bool tty, int total, std::string metric, Direction direction);

  // `n` more trials to run than the total given: orphans found to resume.
  void expect_more(int n);

  // The best COMPLETE value of earlier runs of the study, if any.
  void seed_best(double value, int number);

  // A study with several objectives: a finished trial shows each of
  // `metrics` (`values`, in that order) and no "best", there being none.
  void several_objectives(std::vector<std::string> metrics);

  void trial_started(int number, const std::string& params);
  // An infeasible trial (it breaks its study's constraints) is never the best.
  void trial_finished(int number, TrialState state, std::optional<double> value,
                      const std::string& reason, double seconds,
                      const std::vector<double>& values = {}, bool feasible = true);
  // A trial no longer this run's to end (another worker took it over, or
  // another client ended it): not running here, and neither done nor
  // failed by this run. Prints `text`.
  void trial_gone(const std::string& text);
  // A trial that stopped, to start again later in this run (its worker was
  // cut off from the database): not running until then, nor done or failed.
  void trial_waits();
  // A line of its own (warnings, notices), kept clear of the status line.
  void note(const std::string& text);
  // Redraws the status line (elapsed time moves on); no-op without a TTY.
  void tick();
  // Ends the status line so that later output starts on a fresh line.
  void finish();

  // Called once, with errno, the first time a line cannot be written: the
  // reader of `hpo run | head` is gone, say. Without it, the run would go
  // on to its end with nobody seeing it.
  void on_output_lost(std::function<void(int)> callback);

  // "1h02m", "3m07s", "12s": for durations in messages.
  static std::string format_duration(double seconds);

 private:
  std::string status_line() const;  // needs mu_ held
  void begin_write();  // needs mu_ held; before each write
  void print_line(const std::string& text);  // needs mu_ held
  void check_output();  // needs mu_ held; after each write

  std::ostream& out_;
  const bool tty_;
  int total_;
  const std::string metric_;
  const Direction direction_;
  const std::chrono::steady_clock::time_point start_;
  mutable std::mutex mu_;
  int done_ = 0, running_ = 0, pruned_ = 0, failed_ = 0;
  std::vector<std::string> metrics_;  // several objectives' names; empty for one
  std::optional<double> best_;
  int best_number_ = -1;
  bool status_shown_ = false;
  std::function<void(int)> on_output_lost_;
  bool output_lost_ = false;
};

}  // namespace hpo

#endif  // HPO_RUN_PROGRESS_H_
