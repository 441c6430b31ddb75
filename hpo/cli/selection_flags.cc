#include "hpo/cli/selection_flags.h"

namespace hpo {

const char* const kSelectHelp =
    "--select robust picks the COMPLETE trial with the best mean objective over its\n"
    "cross-validation folds less one standard error (mean - std / sqrt(K), from the\n"
    "fold_<k>_<objective> metrics; a trial without folds counts its objective), so a\n"
    "trial that was lucky on one fold does not win. --select best (the default) picks\n"
    "the best objective. Either way, when trials reported daily series, the selected\n"
    "trial comes with its Deflated Sharpe Ratio, the sweep's Probability of Backtest\n"
    "Overfitting (CSCV over --cscv-blocks S blocks of dates) and the validation-to-test\n"
    "carry-over; see docs/overfitting.md.\n";

SelectionOptions SelectionFlags::options() const {
  SelectionOptions o;
  o.rule = *parse_select_rule(select);  // checked by CLI::IsMember
  o.cscv_blocks = cscv_blocks;
  return o;
}

void add_selection_options(CLI::App* cmd, SelectionFlags& flags, bool with_select) {
  if (with_select) {
    cmd->add_option("--select", flags.select,
                    "Which trial: best (best objective, default) or robust (see below)")
        ->check(CLI::IsMember({"best", "robust"}));
  }
  cmd->add_option("--cscv-blocks", flags.cscv_blocks,
                  "Blocks S of dates for the PBO's cross-validation: even, 2 to 20 (default 16)")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            int n = 0;
            try {
              n = std::stoi(s);
            } catch (const std::exception&) {
              n = -1;
            }
            // C(S, S/2) combinations: 12870 at 16, 184756 at 20.
            return n >= 2 && n <= 20 && n % 2 == 0
                       ? ""
                       : "expected an even number from 2 to 20, got " + s;
          },
          "EVEN 2..20"));
}

}  // namespace hpo
