#include "trainer/panel.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <streambuf>
#include <string_view>
#include <unordered_map>

#include "hpo/posix/unique_fd.h"
#include "trainer/error.h"

namespace hpo::trainer {

namespace {

constexpr std::array<const char*, 7> kColumns = {"date", "ticker", "open",  "high",
                                                 "low",  "close",  "volume"};
enum Column { kDate, kTicker, kOpen, kHigh, kLow, kClose, kVolume };

constexpr const char* kOpenQuote =
    "a quoted field is not closed on this line (a field with a line break in it is not read)";

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return std::string(s.substr(b, e - b));
}

// Splits a CSV line into its fields, trimmed. A field may be quoted as
// RFC 4180 has it (pandas and spreadsheets quote a field that holds a comma
// or a quote): "Company, Inc." is one field, "" inside quotes is one quote,
// and a quoted "AAPL" is AAPL. Returns false for a quote left open: a field
// that runs on to the next line, which this reader does not join.
bool split_fields(const std::string& line, std::vector<std::string>* out) {
  out->clear();
  for (size_t i = 0;;) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string field;
    if (i < line.size() && line[i] == '"') {
      for (++i;; ++i) {
        if (i >= line.size()) return false;
        if (line[i] != '"') {
          field += line[i];
        } else if (i + 1 < line.size() && line[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          ++i;
          break;
        }
      }
    }
    // An unquoted field, or what follows a closing quote ("12" monitor: 12
    // monitor, as written), up to the next comma.
    const size_t comma = line.find(',', i);
    std::string_view rest = std::string_view(line).substr(i, comma - i);
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r'))
      rest.remove_suffix(1);
    field += rest;
    out->push_back(std::move(field));
    if (comma == std::string::npos) return true;
    i = comma + 1;
  }
}

struct Row {
  int64_t date;  // day number (dates.h)
  size_t ticker, line;
  std::array<double, 5> values;  // open, high, low, close, volume; NaN price: a missing day
};

// Interns ticker names to dense ids in order of first appearance.
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

// pandas writes a missing value as an empty field, or as `na_rep` ("NaN").
bool is_missing(const std::string& text) {
  return text.empty() || strcasecmp(text.c_str(), "nan") == 0;
}

// Says why, and for a relative path where it was looked for: the trainer
// runs in hpo's working directory, not the study's or the config's.
[[noreturn]] void cannot_open(const std::string& path, const std::string& why) {
  std::string where;
  char cwd[4096];
  if (!path.empty() && path.front() != '/' && ::getcwd(cwd, sizeof cwd))
    where = fmt::format(" (a relative path is read from the working directory, {})", cwd);
  throw UsageError(fmt::format("{}: cannot open the data file: {}{}", path, why, where));
}

// Throws cannot_open's error for a path that is missing or a directory,
// which a stream would open (a directory) or fail on without saying why.
void check_openable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) cannot_open(path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) cannot_open(path, "it is a directory");
}

// A read-only stream over bytes held elsewhere, to parse them without a copy.
class BytesBuf : public std::streambuf {
 public:
  explicit BytesBuf(std::string_view bytes) {
    char* p = const_cast<char*>(bytes.data());  // only read: no put area, no putback
    setg(p, p, p + bytes.size());
  }
};

class CsvReader {
 public:
  CsvReader(std::string path, std::string date_format)
      : path_(std::move(path)), date_format_(std::move(date_format)) {}

  Panel read() {
    check_openable(path_);
    std::ifstream in(path_);
    if (!in) cannot_open(path_, std::strerror(errno));
    return parse(in);
  }

  Panel parse(std::istream& in) {
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

  // Column names match in any case ("Date", "CLOSE"), quoted or not, after
  // the byte-order mark a spreadsheet's "CSV UTF-8" starts with.
  void read_header(std::string line) {
    if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    std::vector<std::string> names;
    if (!split_fields(line, &names)) fail(1, kOpenQuote);
    for (std::string& n : names)
      std::transform(n.begin(), n.end(), n.begin(),
                     [](unsigned char ch) { return std::tolower(ch); });
    for (size_t c = 0; c < kColumns.size(); ++c) {
      auto it = std::find(names.begin(), names.end(), kColumns[c]);
      if (it == names.end()) {
        const bool other_separator =
            line.find(';') != std::string::npos || line.find('\t') != std::string::npos;
        fail(1, fmt::format("missing column '{}' (need date,ticker,open,high,low,close,volume; the "
                            "header reads '{}'){}",
                            kColumns[c], trim(line.substr(0, 200)),
                            other_separator ? "; the file must be comma-separated" : ""));
      }
      if (std::find(it + 1, names.end(), kColumns[c]) != names.end())
        fail(1, fmt::format("column '{}' appears twice", kColumns[c]));
      pos_[c] = it - names.begin();
    }
    width_ = names.size();
  }

  double number(const std::string& text, Column c, size_t line) const {
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(begin, &end);
    // strtod also reads C's hexadecimal floats: in a data file "0x10" is a typo, not 16.
    const bool hexadecimal = text.find_first_of("xX") != std::string::npos;
    if (text.empty() || end != begin + text.size() || errno == ERANGE || !std::isfinite(v) ||
        hexadecimal)
      fail(line, fmt::format("unparsable number '{}' in column '{}'", text, kColumns[c]));
    return v;
  }

  int64_t date(const std::string& text, size_t line) const {
    if (text.empty()) fail(line, "empty date");
    if (std::optional<int64_t> day = parse_date(text, date_format_)) return *day;
    if (date_format_ == kIsoDate)
      fail(line, fmt::format("'{}' is not a date of the form YYYY-MM-DD (set date_format for "
                             "other spellings, e.g. date_format: \"%m/%d/%Y\")",
                             text));
    fail(line, fmt::format("'{}' is not a date of date_format '{}'", text, date_format_));
  }

  void read_row(const std::string& line, size_t line_no) {
    std::vector<std::string>& f = fields_;  // reused: a panel has millions of lines
    if (!split_fields(line, &f)) fail(line_no, kOpenQuote);
    if (f.size() != width_)
      fail(line_no, fmt::format("expected {} fields, found {}", width_, f.size()));
    const std::string& ticker = f[pos_[kTicker]];
    if (ticker.empty()) fail(line_no, "empty ticker");
    Row row{date(f[pos_[kDate]], line_no), tickers_.id(ticker), line_no, {}};
    bool missing_price = false;
    for (int c = kOpen; c <= kVolume; ++c) {
      double& v = row.values[c - kOpen];
      if (is_missing(f[pos_[c]])) {
        v = c == kVolume ? 0.0 : std::numeric_limits<double>::quiet_NaN();
        missing_price |= c != kVolume;
        summary_.missing_volumes += c == kVolume;
        continue;
      }
      v = number(f[pos_[c]], Column(c), line_no);
      if (c != kVolume && v <= 0)
        fail(line_no, fmt::format("non-positive price {} in column '{}'", v, kColumns[c]));
      if (c == kVolume && v < 0) fail(line_no, fmt::format("negative volume {}", v));
    }
    const double open = row.values[0], high = row.values[1], low = row.values[2],
                 close = row.values[3];
    if (!missing_price &&
        (high < low || open > high || open < low || close > high || close < low)) {
      if (summary_.inconsistent_rows++ == 0) summary_.first_inconsistent_line = line_no;
    }
    if (missing_price) {  // the whole row is a missing day, its volume too
      summary_.missing_volumes -= is_missing(f[pos_[kVolume]]);
      ++summary_.missing_price_rows;
    }
    ++summary_.rows;
    rows_.push_back(row);
  }

  // The distinct day numbers of the rows, ascending: the days of the grid.
  std::vector<int64_t> sorted_days() const {
    std::vector<int64_t> days;
    for (const Row& r : rows_) days.push_back(r.date);
    std::sort(days.begin(), days.end());
    days.erase(std::unique(days.begin(), days.end()), days.end());
    return days;
  }

  Panel build() {
    Panel p;
    const std::vector<int64_t> days = sorted_days();
    for (int64_t day : days) p.dates.push_back(iso_date(day));
    std::vector<size_t> ticker_of = tickers_.sort(&p.tickers);
    auto day_index = [&](int64_t day) {
      return size_t(std::lower_bound(days.begin(), days.end(), day) - days.begin());
    };
    p.allocate();
    std::vector<size_t> seen_at(p.close.size(), 0);  // line of the row already there
    std::array<std::vector<double>*, 5> fields = {&p.open, &p.high, &p.low, &p.close, &p.volume};
    for (const Row& r : rows_) {
      const size_t d = day_index(r.date), i = p.index(ticker_of[r.ticker], d);
      if (seen_at[i] != 0)
        fail(r.line, fmt::format("duplicate (date, ticker) ({}, {}), first at line {}", p.dates[d],
                                 p.tickers[ticker_of[r.ticker]], seen_at[i]));
      seen_at[i] = r.line;
      if (std::any_of(r.values.begin(), r.values.begin() + 4,
                      [](double v) { return std::isnan(v); }))
        continue;  // a missing price: a missing day, as if there were no row
      for (size_t k = 0; k < fields.size(); ++k) (*fields[k])[i] = r.values[k];
    }
    p.summary = summary_;
    count_jumps(p, seen_at);
    return p;
  }

  // DataSummary::price_jumps, from each name's closes in date order.
  static void count_jumps(Panel& p, const std::vector<size_t>& line_at) {
    const double factor = DataSummary::kJumpFactor;
    for (size_t t = 0; t < p.num_tickers(); ++t) {
      double previous = std::numeric_limits<double>::quiet_NaN();
      for (size_t d = 0; d < p.num_days(); ++d) {
        const size_t i = p.index(t, d);
        if (!p.present(t, d)) continue;
        if (p.close[i] > previous * factor || p.close[i] * factor < previous) {
          const size_t line = line_at[i];
          size_t& first = p.summary.first_jump_line;
          first = p.summary.price_jumps++ == 0 ? line : std::min(first, line);
        }
        previous = p.close[i];
      }
    }
  }

  std::string path_, date_format_;
  std::array<size_t, kColumns.size()> pos_{};
  size_t width_ = 0;
  std::vector<std::string> fields_;  // read_row's, kept for its capacity
  Interner tickers_;
  std::vector<Row> rows_;
  DataSummary summary_;
};

}  // namespace

void Panel::allocate() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto* f : {&open, &high, &low, &close, &volume}) f->assign(num_tickers() * num_days(), nan);
}

Panel read_panel_csv(const std::string& path, const std::string& date_format) {
  return CsvReader(path, date_format).read();
}

std::string read_data_file(const std::string& path) {
  check_openable(path);
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) cannot_open(path, std::strerror(errno));
  // To its end, not to the size fstat gives: a file still growing is read
  // whole. The size only reserves, so a large file is not copied as it grows.
  std::string bytes;
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0 && st.st_size > 0) bytes.reserve(size_t(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n > 0) {
      bytes.append(chunk, size_t(n));
    } else if (n == 0 || errno != EINTR) {
      if (n < 0) cannot_open(path, std::strerror(errno));
      return bytes;
    }
  }
}

Panel parse_panel_csv(const std::string& path, std::string_view bytes,
                      const std::string& date_format) {
  BytesBuf buf(bytes);
  std::istream in(&buf);
  return CsvReader(path, date_format).parse(in);
}

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
