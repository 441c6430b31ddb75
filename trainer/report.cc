#include "trainer/report.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "trainer/error.h"

namespace hpo::trainer {

namespace {

// The protocol promises finite numbers; a NaN (an empty split, a diverged
// model) is reported as 0 rather than as invalid JSON.
nlohmann::json to_json(const Metrics& metrics) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : metrics) out[name] = std::isfinite(value) ? value : 0.0;
  return out;
}

}  // namespace

ReportWriter::ReportWriter(const std::string& path) : path_(path) {
  if (path.empty()) return;
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw UsageError(fmt::format("{}: cannot open report file for appending", path));
}

ReportWriter::~ReportWriter() {
  if (file_) std::fclose(file_);
}

void ReportWriter::epoch(int step, const Metrics& metrics) {
  nlohmann::json line = {{"type", "epoch"}, {"step", step}, {"metrics", to_json(metrics)}};
  write_line(line.dump());
}

void ReportWriter::series(const std::string& split, const std::vector<std::string>& dates,
                          const std::vector<double>& returns, const std::vector<double>& rank_ic,
                          const std::vector<std::string>& skipped) {
  nlohmann::json ic = nlohmann::json::array();
  for (double v : rank_ic)
    ic.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr));
  nlohmann::json line = {{"type", "series"},   {"split", split}, {"dates", dates},
                         {"returns", returns}, {"rank_ic", ic},  {"skipped", skipped}};
  write_line(line.dump());
}

void ReportWriter::final(const Metrics& metrics) {
  nlohmann::json line = {{"type", "final"}, {"metrics", to_json(metrics)}};
  write_line(line.dump());
}

void ReportWriter::write_line(const std::string& line) {
  if (!file_) return;
  std::fputs(line.c_str(), file_);
  std::fputc('\n', file_);
  std::fflush(file_);
}

}  // namespace hpo::trainer
