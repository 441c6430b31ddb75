#include "hpo/run/progress.h"

#include <cerrno>
#include <cmath>
#include <cstdio>

#include "samplers/param_value.h"

namespace hpo {

Progress::Progress(std::ostream& out, bool tty, int total, std::string metric, Direction direction)
    : out_(out),
      tty_(tty),
      total_(total),
      metric_(std::move(metric)),
      direction_(direction),
      start_(std::chrono::steady_clock::now()) {}

std::string Progress::format_duration(double seconds) {
  const auto s = static_cast<long>(std::llround(std::max(0.0, seconds)));
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

void Progress::expect_more(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  total_ += n;
}

void Progress::seed_best(double value, int number) {
  std::lock_guard<std::mutex> lock(mu_);
  best_ = value;
  best_number_ = number;
}

void Progress::trial_started(int number, const std::string& params) {
  std::lock_guard<std::mutex> lock(mu_);
  ++running_;
  print_line("trial " + std::to_string(number) + " started: " + params);
}

void Progress::several_objectives(std::vector<std::string> metrics) {
  std::lock_guard<std::mutex> lock(mu_);
  metrics_ = std::move(metrics);
}

namespace {

// A COMPLETE trial's note when it breaks its study's constraints.
constexpr const char* kInfeasible = " (infeasible: breaks a constraint)";

}  // namespace

void Progress::trial_finished(int number, TrialState state, std::optional<double> value,
                              const std::string& reason, double seconds,
                              const std::vector<double>& values, bool feasible) {
  std::lock_guard<std::mutex> lock(mu_);
  --running_;
  if (state == TrialState::kRunning) {  // stopped by the user: neither done nor failed
    print_line("trial " + std::to_string(number) + " interrupted after " +
               format_duration(seconds) + "; left RUNNING for the next run to resume");
    return;
  }
  ++done_;
  std::string line = "trial " + std::to_string(number) + " " + to_string(state);
  if (state == TrialState::kComplete && !metrics_.empty()) {
    for (size_t k = 0; k < metrics_.size() && k < values.size(); ++k)
      line += " " + metrics_[k] + "=" + short_number(values[k]);
    if (!feasible) line += kInfeasible;
    if (!reason.empty()) line += " (" + reason + ")";
  } else if (state == TrialState::kComplete && value) {
    line += " " + metric_ + "=" + short_number(*value);
    const bool better =
        !best_ || (direction_ == Direction::kMaximize ? *value > *best_ : *value < *best_);
    if (!feasible) {
      line += kInfeasible;
    } else if (better) {
      best_ = value;
      best_number_ = number;
      line += " (new best)";
    }
    if (!reason.empty()) line += " (" + reason + ")";  // e.g. OOM retries
  } else {
    (state == TrialState::kPruned ? pruned_ : failed_) += 1;
    if (state == TrialState::kPruned && value) line += " " + metric_ + "=" + short_number(*value);
    if (!reason.empty()) line += ": " + reason;
  }
  line += " in " + format_duration(seconds);
  print_line(line);
}

void Progress::trial_gone(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  --running_;
  print_line(text);
}

void Progress::trial_waits() {
  std::lock_guard<std::mutex> lock(mu_);
  --running_;
}

void Progress::note(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  print_line(text);
}

void Progress::tick() {
  if (!tty_) return;
  std::lock_guard<std::mutex> lock(mu_);
  begin_write();
  out_ << "\r\033[K" << status_line() << std::flush;
  status_shown_ = true;
  check_output();
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (tty_ && status_shown_) out_ << "\r\033[K" << status_line() << "\n" << std::flush;
  status_shown_ = false;
}

std::string Progress::status_line() const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string s = std::to_string(done_) + "/" + std::to_string(total_) + " done, " +
                  std::to_string(running_) + " running, " +
                  (pruned_ ? std::to_string(pruned_) + " pruned, " : "") + std::to_string(failed_) +
                  " failed";
  if (metrics_.empty()) {
    s += " | best " + metric_ + " ";
    s += best_ ? short_number(*best_) + " (trial " + std::to_string(best_number_) + ")" : "-";
  }
  s += " | " + format_duration(elapsed) + " elapsed";
  if (done_ > 0 && done_ < total_) {
    // Elapsed time already reflects the parallelism, so scale it directly.
    s += ", ETA " + format_duration(elapsed / done_ * (total_ - done_));
  }
  return s;
}

void Progress::begin_write() {
  // A stream that failed before progress watched it (hpo's first lines) is
  // tried again: this write's errno then says why (a broken pipe, a full
  // disk), where the stream's failed state alone would not.
  if (!output_lost_) out_.clear();
  errno = 0;  // so that check_output() sees this write's failure, or none
}

void Progress::print_line(const std::string& text) {
  begin_write();
  if (tty_) {
    out_ << "\r\033[K" << text << "\n" << status_line() << std::flush;
    status_shown_ = true;
  } else {
    out_ << text << " | " << status_line() << "\n" << std::flush;
  }
  check_output();
}

void Progress::on_output_lost(std::function<void(int)> callback) {
  std::lock_guard<std::mutex> lock(mu_);
  on_output_lost_ = std::move(callback);
}

void Progress::check_output() {
  // errno is the failed write's, or 0 where the stream failed without one.
  const int err = errno;
  if (out_ || output_lost_) return;
  output_lost_ = true;
  if (on_output_lost_) on_output_lost_(err);
}

}  // namespace hpo
