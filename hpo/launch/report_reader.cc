#include "hpo/launch/report_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <tuple>

#include "hpo/launch/trainer_text.h"
#include "hpo/posix/unique_fd.h"

namespace hpo {

namespace {

// Lines longer than this are garbage, not reports; reading them whole would
// let a broken trainer exhaust hpo's memory.
constexpr size_t kMaxLineBytes = 1 << 20;

ReportEvent invalid(int line, const std::string& problem) {
  ReportEvent e;
  e.line = line;
  // The JSON parser's messages quote the line cut anywhere, even inside a
  // character: stored as the trial's reason, they too must be text.
  e.problem = valid_utf8(problem);
  return e;
}

// JSON has no NaN or Infinity; trainers written in Python emit them anyway
// (json.dumps does), so accept those spellings as numbers.
std::optional<double> metric_number(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

// Python's json.dumps writes NaN, Infinity and -Infinity bare, which strict
// JSON rejects; quote them (outside strings) so they parse as strings that
// metric_number() understands.
std::string quote_nonfinite_literals(const std::string& line) {
  std::string out;
  out.reserve(line.size() + 8);
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < line.size())
        out.push_back(line[++i]);
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const char* word : {"-Infinity", "Infinity", "NaN"}) {
      const size_t len = std::char_traits<char>::length(word);
      if (line.compare(i, len, word) == 0) {
        out += '"' + std::string(word) + '"';
        i += len - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back(c);
  }
  return out;
}

// YYYY-MM-DD with a month 01-12 and a day 01-31.
bool iso_date(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  const int month = std::stoi(s.substr(5, 2)), day = std::stoi(s.substr(8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

// A `series` line: validated whole, so that what is stored is usable.
ReportEvent parse_series(const nlohmann::json& j, int line_number) {
  auto bad = [line_number](const std::string& problem) {
    ReportEvent e = invalid(line_number, "series line: " + problem);
    e.fails_trial = true;
    return e;
  };
  ReportEvent event;
  event.kind = ReportEvent::Kind::kSeries;
  event.line = line_number;
  DailySeries& s = event.series;
  const auto split = j.find("split");
  if (split == j.end() || !split->is_string() || (*split != "valid" && *split != "test")) {
    return bad("\"split\" must be \"valid\" or \"test\"");
  }
  s.split = split->get<std::string>();
  const auto dates = j.find("dates");
  if (dates == j.end() || !dates->is_array() || dates->empty()) {
    return bad("\"dates\" must be a non-empty array of ISO dates (YYYY-MM-DD)");
  }
  for (const auto& d : *dates) {
    if (!d.is_string() || !iso_date(d.get_ref<const std::string&>())) {
      return bad("dates[" + std::to_string(s.dates.size()) + "] = " + d.dump() +
                 " is not an ISO date (YYYY-MM-DD)");
    }
    if (!s.dates.empty() && !(s.dates.back() < d.get_ref<const std::string&>())) {
      return bad("dates must be strictly increasing; dates[" + std::to_string(s.dates.size()) +
                 "] = " + d.dump() + " follows \"" + s.dates.back() + "\"");
    }
    s.dates.push_back(d.get<std::string>());
  }
  for (const auto& [key, out, nan_ok] :
       {std::tuple{"returns", &s.returns, false}, std::tuple{"rank_ic", &s.rank_ic, true}}) {
    const auto array = j.find(key);
    if (array == j.end() || !array->is_array())
      return bad(std::string("\"") + key + "\" must be an array of numbers");
    for (const auto& v : *array) {
      const auto x = metric_number(v);
      const std::string at = std::string(key) + "[" + std::to_string(out->size()) + "]";
      if (!x) return bad(at + " = " + v.dump() + " is not a number");
      if (std::isinf(*x) || (std::isnan(*x) && !nan_ok)) {
        return bad(at + " is " + v.dump() + "; expected a finite number" +
                   (nan_ok ? " or NaN" : ""));
      }
      out->push_back(*x);
    }
    if (out->size() != s.dates.size()) {
      return bad(std::string("\"") + key + "\" has " + std::to_string(out->size()) +
                 " values for " + std::to_string(s.dates.size()) + " dates; expected one per date");
    }
  }
  return event;
}

}  // namespace

ReportEvent parse_report_line(const std::string& bytes, int line_number) {
  // Names, messages and errors below quote the line: make it text first.
  const std::string line = valid_utf8(bytes);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(quote_nonfinite_literals(line));
  } catch (const nlohmann::json::parse_error& e) {
    return invalid(line_number, std::string("not JSON: ") + e.what());
  }
  if (!j.is_object()) return invalid(line_number, "not a JSON object");
  const auto type = j.find("type");
  if (type == j.end() || !type->is_string()) return invalid(line_number, "missing \"type\"");
  ReportEvent event;
  event.line = line_number;
  const auto& t = type->get_ref<const std::string&>();
  if (t == "epoch") {
    const auto step = j.find("step");
    if (step == j.end() || !step->is_number_integer() || step->get<int64_t>() < 0 ||
        step->get<int64_t>() > std::numeric_limits<int>::max()) {
      return invalid(line_number, "epoch line needs \"step\": a non-negative integer");
    }
    event.kind = ReportEvent::Kind::kEpoch;
    event.step = step->get<int>();
  } else if (t == "final") {
    event.kind = ReportEvent::Kind::kFinal;
  } else if (t == "series") {
    return parse_series(j, line_number);
  } else {
    return invalid(line_number,
                   "unknown type \"" + t + "\" (expected \"epoch\", \"final\" or \"series\")");
  }
  const auto metrics = j.find("metrics");
  if (metrics == j.end() || !metrics->is_object()) {
    return invalid(line_number, "missing \"metrics\" object");
  }
  for (const auto& [name, value] : metrics->items()) {
    const auto number = metric_number(value);
    if (!number) return invalid(line_number, "metric \"" + name + "\" is not a number");
    event.metrics[name] = *number;
  }
  return event;
}

std::vector<ReportEvent> ReportReader::read_new(bool at_eof) {
  std::vector<ReportEvent> events;
  // Plain open/pread: this runs several times per trial, and a std::ifstream
  // (locale, buffer) cost more than the reading.
  const UniqueFd fd(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return events;  // not created yet
  char buf[65536];
  while (true) {
    const ssize_t got = ::pread(fd.get(), buf, sizeof buf, static_cast<off_t>(offset_));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    const auto n = static_cast<size_t>(got);
    offset_ += n;
    for (size_t i = 0; i < n; ++i) {
      if (buf[i] != '\n') {
        if (partial_.size() < kMaxLineBytes) partial_.push_back(buf[i]);
        continue;
      }
      ++line_number_;
      if (partial_.size() >= kMaxLineBytes) {
        events.push_back(invalid(line_number_, "line longer than 1 MiB"));
      } else if (partial_.find_first_not_of(" \t\r") != std::string::npos) {
        events.push_back(parse_report_line(partial_, line_number_));
      }
      partial_.clear();
    }
  }
  if (at_eof && partial_.find_first_not_of(" \t\r") != std::string::npos) {
    events.push_back(parse_report_line(partial_, ++line_number_));
    partial_.clear();
  }
  return events;
}

}  // namespace hpo
