// Reads a trainer's report channel: JSON lines appended to a file named in
// HPO_REPORT_FILE. Read incrementally while the trainer runs, so per-epoch
// values reach the database (and `hpo status`) live.
//
//   {"type": "epoch", "step": 0, "metrics": {"val_rank_ic": 0.031, ...}}
//   {"type": "final", "metrics": {"val_rank_ic": 0.045, "val_sharpe": 1.1}}
//   {"type": "series", "split": "valid", "dates": ["2021-03-01", ...],
//    "returns": [...], "rank_ic": [...]}   (daily, for hpo/stats; issue #15)
#ifndef HPO_LAUNCH_REPORT_READER_H_
#define HPO_LAUNCH_REPORT_READER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hpo {

using Metrics = std::map<std::string, double>;

// One split's daily series: ISO dates, strictly increasing; net long-short
// returns (finite) and cross-sectional RankIC (NaN allowed) per date.
struct DailySeries {
  std::string split;  // "valid" or "test"
  std::vector<std::string> dates;
  std::vector<double> returns;
  std::vector<double> rank_ic;
};

struct ReportEvent {
  enum class Kind { kEpoch, kFinal, kSeries, kInvalid };
  Kind kind = Kind::kInvalid;
  int step = 0;  // kEpoch
  Metrics metrics;  // kEpoch, kFinal; non-finite values are kept
  int line = 0;  // 1-based line in the report file
  std::string problem;  // kInvalid: what was wrong with the line
  DailySeries series;  // kSeries
  // kInvalid: a broken series line, which fails the trial (other invalid
  // lines are counted and skipped).
  bool fails_trial = false;
};

// Parses one line of the report channel: any bytes, taken as UTF-8 with
// each invalid sequence read as U+FFFD (see trainer_text.h).
ReportEvent parse_report_line(const std::string& bytes, int line_number);

class ReportReader {
 public:
  explicit ReportReader(std::string path) : path_(std::move(path)) {}

  // Events from the lines completed since the last call. A last line with no
  // newline yet is held back until it is complete, or until `at_eof` says
  // the writer is gone.
  std::vector<ReportEvent> read_new(bool at_eof = false);

 private:
  std::string path_;
  uint64_t offset_ = 0;
  int line_number_ = 0;
  std::string partial_;
};

}  // namespace hpo

#endif  // HPO_LAUNCH_REPORT_READER_H_
