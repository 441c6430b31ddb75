#include "trainer/panel.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <unordered_map>

#include "trainer/error.h"

namespace hpo::trainer {

namespace {

constexpr std::array<const char*, 7> kColumns = {"date", "ticker", "open",  "high",
                                                 "low",  "close",  "volume"};
enum Column { kDate, kTicker, kOpen, kHigh, kLow, kClose, kVolume };

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t comma = line.find(',', start);
    out.push_back(trim(std::string_view(line).substr(start, comma - start)));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

struct Row {
  size_t date, ticker, line;
  std::array<double, 5> values;  // open, high, low, close, volume
};

// Interns strings to dense ids in order of first appearance.
class Interner {
 public:
  size_t id(const std::string& s) {
    auto [it, inserted] = ids_.emplace(s, names_.size());
    if (inserted) names_.push_back(s);
    return it->second;
  }
  // Sorts the names; returns old id -> new id.
  std::vector<size_t> sort(std::vector<std::string>* sorted) const {
    *sorted = names_;
    std::sort(sorted->begin(), sorted->end());
    std::vector<size_t> remap(names_.size());
    for (size_t i = 0; i < names_.size(); ++i)
      remap[i] = std::lower_bound(sorted->begin(), sorted->end(), names_[i]) - sorted->begin();
    return remap;
  }

 private:
  std::unordered_map<std::string, size_t> ids_;
  std::vector<std::string> names_;
};

class CsvReader {
 public:
  explicit CsvReader(std::string path) : path_(std::move(path)) {}

  Panel read() {
    std::ifstream in(path_);
    if (!in) throw UsageError(fmt::format("{}: cannot open data file", path_));
    std::string line;
    if (!std::getline(in, line))
      throw UsageError(fmt::format("{}: empty file, expected a header line", path_));
    read_header(line);
    size_t line_no = 1;
    while (std::getline(in, line)) {
      ++line_no;
      if (trim(line).empty()) continue;
      read_row(line, line_no);
    }
    if (rows_.empty()) throw UsageError(fmt::format("{}: no data rows", path_));
    return build();
  }

 private:
  [[noreturn]] void fail(size_t line, const std::string& what) const {
    throw UsageError(fmt::format("{}:{}: {}", path_, line, what));
  }

  void read_header(const std::string& line) {
    std::vector<std::string> names = split_fields(line);
    for (size_t c = 0; c < kColumns.size(); ++c) {
      auto it = std::find(names.begin(), names.end(), kColumns[c]);
      if (it == names.end())
        fail(1, fmt::format("missing column '{}' (need date,ticker,open,high,low,close,volume)",
                            kColumns[c]));
      pos_[c] = it - names.begin();
    }
    width_ = names.size();
  }

  double number(const std::string& text, Column c, size_t line) const {
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(begin, &end);
    if (text.empty() || end != begin + text.size() || errno == ERANGE || !std::isfinite(v))
      fail(line, fmt::format("unparsable number '{}' in column '{}'", text, kColumns[c]));
    return v;
  }

  void read_row(const std::string& line, size_t line_no) {
    std::vector<std::string> f = split_fields(line);
    if (f.size() != width_)
      fail(line_no, fmt::format("expected {} fields, found {}", width_, f.size()));
    const std::string& date = f[pos_[kDate]];
    const std::string& ticker = f[pos_[kTicker]];
    if (date.empty()) fail(line_no, "empty date");
    if (ticker.empty()) fail(line_no, "empty ticker");
    Row row{dates_.id(date), tickers_.id(ticker), line_no, {}};
    for (int c = kOpen; c <= kVolume; ++c) {
      double v = number(f[pos_[c]], Column(c), line_no);
      if (c != kVolume && v <= 0)
        fail(line_no, fmt::format("non-positive price {} in column '{}'", v, kColumns[c]));
      if (c == kVolume && v < 0) fail(line_no, fmt::format("negative volume {}", v));
      row.values[c - kOpen] = v;
    }
    rows_.push_back(row);
  }

  Panel build() {
    Panel p;
    std::vector<size_t> date_of = dates_.sort(&p.dates);
    std::vector<size_t> ticker_of = tickers_.sort(&p.tickers);
    p.allocate();
    std::vector<size_t> seen_at(p.close.size(), 0);  // line of the row already there
    std::array<std::vector<double>*, 5> fields = {&p.open, &p.high, &p.low, &p.close, &p.volume};
    for (const Row& r : rows_) {
      size_t i = p.index(ticker_of[r.ticker], date_of[r.date]);
      if (seen_at[i] != 0)
        fail(r.line,
             fmt::format("duplicate (date, ticker) ({}, {}), first at line {}",
                         p.dates[date_of[r.date]], p.tickers[ticker_of[r.ticker]], seen_at[i]));
      seen_at[i] = r.line;
      for (size_t k = 0; k < fields.size(); ++k) (*fields[k])[i] = r.values[k];
    }
    return p;
  }

  std::string path_;
  std::array<size_t, kColumns.size()> pos_{};
  size_t width_ = 0;
  Interner dates_, tickers_;
  std::vector<Row> rows_;
};

}  // namespace

void Panel::allocate() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto* f : {&open, &high, &low, &close, &volume}) f->assign(num_tickers() * num_days(), nan);
}

Panel read_panel_csv(const std::string& path) { return CsvReader(path).read(); }

void write_panel_csv(const Panel& p, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw UsageError(fmt::format("{}: cannot write data file", path));
  out << "date,ticker,open,high,low,close,volume\n";
  for (size_t d = 0; d < p.num_days(); ++d)
    for (size_t t = 0; t < p.num_tickers(); ++t) {
      if (!p.present(t, d)) continue;
      size_t i = p.index(t, d);
      out << fmt::format("{},{},{:.8g},{:.8g},{:.8g},{:.8g},{:.0f}\n", p.dates[d], p.tickers[t],
                         p.open[i], p.high[i], p.low[i], p.close[i], p.volume[i]);
    }
  if (!out.flush()) throw UsageError(fmt::format("{}: write failed", path));
}

}  // namespace hpo::trainer
