// The trainer protocol's report: JSON lines appended to HPO_REPORT_FILE (or
// --report), flushed after each line so the orchestrator can tail it.
#ifndef HPO_TRAINER_REPORT_H_
#define HPO_TRAINER_REPORT_H_

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace hpo::trainer {

using Metrics = std::map<std::string, double>;

class ReportWriter {
 public:
  // An empty path disables reporting.
  explicit ReportWriter(const std::string& path);
  ~ReportWriter();
  ReportWriter(const ReportWriter&) = delete;
  ReportWriter& operator=(const ReportWriter&) = delete;

  // {"type": "epoch", "step": N, "metrics": {...}}
  void epoch(int step, const Metrics& metrics);
  // {"type": "series", "split": SPLIT, "dates": [...], "returns": [...],
  // "rank_ic": [...], "skipped": [...]}: one trading day each, dates ISO and
  // ascending; a non-finite RankIC is written as null; `skipped` lists the
  // dates the book was held through without being scored (portfolio.h).
  void series(const std::string& split, const std::vector<std::string>& dates,
              const std::vector<double>& returns, const std::vector<double>& rank_ic,
              const std::vector<std::string>& skipped = {});
  // {"type": "final", "metrics": {...}}
  void final(const Metrics& metrics);

 private:
  void write_line(const std::string& line);
  std::FILE* file_ = nullptr;
  std::string path_;
};

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_REPORT_H_
