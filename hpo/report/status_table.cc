#include "hpo/report/status_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "hpo/report/host_summary.h"
#include "hpo/report/pareto_view.h"
#include "hpo/run/progress.h"
#include "hpo/run/stderr_summary.h"
#include "hpo/run/trial_config.h"
#include "hpo/storage/trial_attrs.h"
#include "hpo/storage/trial_constraints.h"
#include "hpo/text/utf8.h"

namespace hpo {

namespace {

std::string cell_of(const nlohmann::json& j) {
  if (j.is_number()) return short_number(j.get<double>());
  if (j.is_string()) return j.get<std::string>();
  return j.dump();
}

using Row = std::vector<std::string>;

// Code points a terminal acts on rather than shows: the C1 controls (0x9b
// opens an escape sequence on some), and the line separators and bidi
// controls, which move or reorder what follows.
bool acts_on_terminal(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
         (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

// A cell on one line of the terminal: a newline in a categorical choice or a
// metric's text would break the table's rows, and an escape byte would reach
// the terminal. Control bytes are written as C escapes instead (\uXXXX for a
// control sent as UTF-8, \xNN for a byte that is not UTF-8), and a
// backslash as two.
std::string one_line(const std::string& cell) {
  std::string out;
  char hex[16];
  for (size_t i = 0; i < cell.size();) {
    const unsigned char c = static_cast<unsigned char>(cell[i]);
    if (c >= 0x80) {
      size_t skip = 1;
      const size_t len = utf8_char_at(cell, i, skip);
      if (len == 0) {
        std::snprintf(hex, sizeof hex, "\\x%02x", c);  // one byte at a time, each shown
        out += hex;
        i += 1;
      } else if (const char32_t cp = utf8_code_point(cell, i, len); acts_on_terminal(cp)) {
        std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned>(cp));
        out += hex;
        i += len;
      } else {
        out.append(cell, i, len);
        i += len;
      }
      continue;
    }
    ++i;
    if (c == '\\') {
      out += "\\\\";  // so that a typed "\n" and a newline read apart
    } else if (c >= 0x20 && c != 0x7f) {
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

// Columns as a terminal counts them: one per code point (every byte of a
// cell is valid UTF-8 or escaped by now), not one per byte.
size_t columns(const std::string& cell) {
  return static_cast<size_t>(std::count_if(cell.begin(), cell.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

std::string render(std::vector<Row> rows) {
  for (auto& row : rows) {
    for (auto& cell : row) cell = one_line(cell);
  }
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()), 0);
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], columns(row[i]));
  }
  std::ostringstream out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - columns(row[i]) + 2, ' ');
    }
    out << line << "\n";
  }
  return out.str();
}

// Per host: its trials by state and their mean duration. Said only when
// hpo ran the trials (they have hosts).
std::string hosts_text(const StudyView& view) {
  const auto summaries = host_summaries(view);
  if (summaries.empty() || (summaries.size() == 1 && summaries.front().host.empty())) return "";
  std::vector<Row> rows = {{"host", "trials", "mean duration"}};
  for (const auto& h : summaries) {
    std::string states;
    for (const auto& [state, n] : h.counts)
      states += (states.empty() ? "" : ", ") + std::to_string(n) + " " + to_string(state);
    rows.push_back({h.host.empty() ? "(not hpo's)" : h.host, states,
                    h.timed > 0 ? Progress::format_duration(h.mean_seconds) : "-"});
  }
  return "by host:\n" + render(rows) + "\n";
}

// Where a trial's time went, as its trainer reported it (hpo-trainer's final
// load_s, data_s, train_s, valid_s and test_s, and on CUDA cuda_init_s):
// "0.41/1.02/0.55/0.12/0.30", "" for a trainer that reports no split.
std::string time_split_cell(const TrialRecord& t) {
  std::string cell;
  for (const auto& [key, seconds] : time_split(t)) {
    if (key == "cuda_init_s")
      cell += " (CUDA " + fixed_number(seconds, 2) + ")";
    else
      cell += (cell.empty() ? "" : "/") + fixed_number(seconds, 2);
  }
  return cell;
}

}  // namespace

std::string status_table(const StudyView& view) {
  std::vector<std::string> params;
  std::set<std::string> seen;
  for (const auto& t : view.trials) {
    for (const auto& p : t.params) {
      if (seen.insert(p.name).second) params.push_back(p.name);
    }
  }
  Row header = {"#", "state", "host", "slot"};
  header.insert(header.end(), params.begin(), params.end());
  const bool multi = is_multi_objective(view.study);
  const auto front = pareto_numbers(view);
  header.insert(header.end(), view.metrics.begin(), view.metrics.end());
  if (multi) header.push_back("pareto");
  header.insert(header.end(), view.record.begin(), view.record.end());
  // GPU use, when any trial ran on a GPU (stored by the run as "hpo:gpu").
  const bool gpu_column =
      std::any_of(view.trials.begin(), view.trials.end(),
                  [](const TrialRecord& t) { return t.system_attrs.count(kGpuUseAttr) > 0; });
  if (gpu_column) header.push_back("gpu util/mem");
  const bool time_column =
      std::any_of(view.trials.begin(), view.trials.end(),
                  [](const TrialRecord& t) { return !time_split_cell(t).empty(); });
  if (time_column) header.push_back("load/data/train/valid/test s");
  header.push_back("duration");
  header.push_back("note");
  std::vector<Row> rows = {header};
  for (const auto& t : view.trials) {
    const std::string host = trial_host(t), slot = trial_slot(t);
    Row row = {std::to_string(t.number), state_text(view, t), host.empty() ? "-" : host,
               slot.empty() ? "-" : slot};
    const auto ran = params_as_run(t);
    for (const auto& name : params) {
      const auto it =
          std::find_if(ran.begin(), ran.end(), [&](const auto& p) { return p.first == name; });
      row.push_back(it == ran.end() ? "" : to_short_string(it->second));
    }
    for (size_t k = 0; k < view.metrics.size(); ++k) {
      const bool known = multi ? k < t.values.size() : t.value.has_value();
      row.push_back(known ? short_number(multi ? t.values[k] : *t.value) : "-");
    }
    if (multi) row.push_back(front.count(t.number) ? "*" : "");
    for (const auto& m : view.record) {
      const auto it = t.user_attrs.find(m);
      row.push_back(it == t.user_attrs.end() ? "-" : cell_of(it->second));
    }
    if (gpu_column) {
      const auto g = t.system_attrs.find(kGpuUseAttr);
      row.push_back(g == t.system_attrs.end() || !g->second.is_object()
                        ? "-"
                        : "gpu" + std::to_string(g->second.value("gpu", -1)) + " " +
                              short_number(g->second.value("mean_util_pct", 0.0)) + "% " +
                              short_number(g->second.value("mean_mem_mib", 0.0)) + " MiB");
    }
    if (time_column) {
      const std::string split = time_split_cell(t);
      row.push_back(split.empty() ? "-" : split);
    }
    const double seconds = trial_seconds(t);
    row.push_back(seconds >= 0 ? Progress::format_duration(seconds) : "-");
    // What the trainer said last, where the reason is only an exit code.
    std::string note =
        with_last_line(system_attr_text(t, kFailReasonAttr), system_attr_text(t, kStderrTailAttr));
    const auto bad = t.system_attrs.find(kInvalidReportLinesAttr);
    if (bad != t.system_attrs.end() && bad->second.is_number_integer() &&
        bad->second.get<int>() > 0)
      note += (note.empty() ? "" : "; ") + std::to_string(bad->second.get<int>()) +
              " bad report line(s)";
    if (t.state == TrialState::kPruned) {
      // hpo records the step; a trial Optuna pruned has only its curve.
      std::string step = system_attr_text(t, kPrunedAtStepAttr);
      if (step.empty() && !t.intermediate.empty())
        step = std::to_string(t.intermediate.rbegin()->first);
      note = step.empty() ? "pruned" : "pruned at step " + step;
    }
    if (t.system_attrs.count(kRanOutsideSpaceAttr)) {
      note += (note.empty() ? "" : "; ") +
              std::string("the sampled point ran out of memory; ran outside the space");
    }
    if (t.state == TrialState::kComplete && !trial_feasible(t))
      note += (note.empty() ? "" : "; ") + std::string("infeasible (violates its constraints)");
    if (t.state == TrialState::kRunning && !t.intermediate.empty()) {
      note = "epoch " + std::to_string(t.intermediate.rbegin()->first) + ": " +
             short_number(t.intermediate.rbegin()->second);
    }
    row.push_back(note);
    rows.push_back(std::move(row));
  }
  std::string text = "study " + view.study.name + " (" + goals_text(view) + "), " +
                     std::to_string(view.trials.size()) + " trial(s)\n\n" + render(rows);
  return text + "\n" + hosts_text(view) + best_summary(view);
}

namespace {

// With constraints, a COMPLETE trial may be there and still not count.
std::string no_best_text(const StudyView& view) {
  return has_constraints(view.trials) ? "no feasible COMPLETE trial yet\n"
                                      : "no COMPLETE trial yet\n";
}

}  // namespace

std::string best_summary(const StudyView& view) {
  if (is_multi_objective(view.study)) return front_summary(view);
  const auto best = best_trials(view, 1);
  if (best.empty()) return no_best_text(view);
  return trial_summary(view, *best.front(), "best");
}

std::string front_summary(const StudyView& view) {
  const auto front = pareto_trials(view);
  if (front.empty()) return no_best_text(view);
  std::string text = "Pareto front" +
                     std::string(has_constraints(view.trials) ? " (feasible trials)" : "") + ": " +
                     std::to_string(front.size()) + " trial(s)\n";
  for (const TrialRecord* t : front) {
    text += "  trial " + std::to_string(t->number) + ": " + objectives_text(view, *t) + "\n";
    text += "    params:";
    for (const auto& [name, value] : params_as_run(*t))
      text += " " + one_line(name + "=" + to_string(value));
    text += "\n";
  }
  return text;
}

std::string trial_summary(const StudyView& view, const TrialRecord& t, const std::string& label) {
  std::string text = label + ": trial " + std::to_string(t.number) + ", " + view.metric + " = " +
                     short_number(*t.value);
  for (const auto& m : view.record) {
    const auto it = t.user_attrs.find(m);
    if (it != t.user_attrs.end()) text += ", " + m + " = " + one_line(cell_of(it->second));
  }
  text += "\n  params:";
  for (const auto& [name, value] : params_as_run(t))
    text += " " + one_line(name + "=" + to_string(value));
  return text + "\n";
}

}  // namespace hpo
