// A synthetic daily panel with a planted, learnable signal, so the trainer
// runs on a fresh machine with nothing to download.
//
// Daily log return of ticker i from day t to t+1:
//   r[t+1,i] = beta_i * m[t+1] + k * g[t,i] + sigma_i * eps[t+1,i]
// where m is a market factor (N(2e-4, 0.01)), eps is N(0,1) noise, sigma_i is
// the ticker's idiosyncratic volatility (U(0.012, 0.03)) and g[t,i] is the
// planted signal, known at the close of day t from the price history alone:
//   g = zscore_cs( -zscore_cs(r5) + 0.7 * zscore_cs(r20) )
// with r5 and r20 the 5- and 20-day log returns (short-term reversal plus
// medium-term momentum) and zscore_cs the z-score across tickers on the date.
// k = signal * 0.021 (0.021 is the mean sigma), so `signal` is roughly the
// information coefficient of the true expected return. The open of day t+1
// gaps from the close of day t by noise alone, so a position entered at the
// next open (the trainer's default label) still earns the signal. Volumes follow
// |return| surprises; about 0.3% of rows are dropped to exercise missing days.
#ifndef HPO_TRAINER_SYNTHETIC_H_
#define HPO_TRAINER_SYNTHETIC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trainer/panel.h"

namespace hpo::trainer {

struct SyntheticSpec {
  int tickers = 500;
  int days = 1500;
  uint64_t seed = 7;
  double signal = 0.12;
  double missing_rate = 0.003;
};

struct SyntheticPanel {
  Panel panel;
  // tickers x days: the planted signal g known at the close of each day, NaN
  // before it is defined. The true expected next-day return is signal *
  // 0.021 * g: the same ranking, so the oracle's scores (all rank- or
  // scale-free) are those of the expected return; with signal 0 (the noise
  // preset) g still ranks the names, and earns nothing.
  std::vector<float> planted_score;
};

SyntheticPanel make_synthetic_panel(const SyntheticSpec& spec);

// The `signal` of a signal_strength preset or number; nullopt for anything
// else (a negative number, an unknown name). The presets, with their oracle's
// scores on the default 500 x 1500 panel in docs/hpo-trainer-validation.md:
//   easy      0.12   today's panel: oracle RankIC about 0.10, Sharpe about 33
//   realistic 0.035  like a good equity signal: RankIC about 0.03, net Sharpe
//                    about 3 at 10 bps (tests/trainer/presets_test.cc)
//   noise     0      nothing to learn: any RankIC is luck
std::optional<double> signal_named(const std::string& name);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_SYNTHETIC_H_
