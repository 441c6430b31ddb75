// The trial's hyperparameters: a flat JSON or YAML object (yaml-cpp reads
// both). Every key is optional; unknown keys and wrong types are errors that
// name the file and the key.
#ifndef HPO_TRAINER_CONFIG_H_
#define HPO_TRAINER_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace hpo::trainer {

struct TrainerConfig {
  // Model.
  std::string model = "tcn";  // "tcn" | "mlp"
  int hidden_size = 64;
  int layers = 3;  // TCN residual blocks / MLP hidden layers
  int kernel_size = 3;  // TCN only
  double dropout = 0.1;
  int lookback = 20;  // days of features per sample
  // Optimization.
  int batch_size = 512;
  int grad_accum = 1;  // optimizer step every k batches, loss divided by k
  double lr = 1e-3;
  double weight_decay = 1e-4;
  double warmup_epochs = 0.5;  // linear warm-up, then cosine decay to 0
  double grad_clip = 1.0;  // max global grad norm; 0 disables
  int epochs = 5;
  int patience = 3;  // early stop after this many epochs without a better val RankIC
  int64_t max_train_samples = 32768;  // per epoch, a fresh random subset; 0 = all
  int64_t max_valid_samples =
      32768;  // validate on every k-th valid date to stay under this; 0 = all
  // 0: 512 on the CPU (2,048 where the TCN's windows share their series), 4096
  // on CUDA (trainer.cc says why)
  int eval_batch_size = 0;
  uint64_t seed = 0;
  // Data.
  std::string data;  // CSV path; empty = the built-in synthetic panel
  std::string date_format = "%Y-%m-%d";  // the data's date spelling (dates.h)
  // Dates traded by fewer names are dropped (calendar.h); days with fewer
  // samples are neither trained on nor scored.
  int min_names = 5;
  int horizon = 1;  // days the label's position is held
  std::string label_entry = "next_open";  // where it is entered: next_open | next_close | close
  double train_frac = 0.6;
  double valid_frac = 0.2;
  int synthetic_tickers = 500;
  int synthetic_days = 1500;
  uint64_t synthetic_seed = 7;
  // The built-in panel's planted signal: a preset (easy | realistic | noise)
  // or a number (synthetic.h).
  std::string signal_strength = "easy";
  // Validation (docs/hpo-trainer-validation.md). A config may also give these
  // as one map: cv: {scheme: walk_forward, folds: 4, embargo_days: 5}.
  std::string cv_scheme = "none";  // none | walk_forward | purged_kfold
  int cv_folds = 4;
  int cv_embargo_days = 5;
  double cost_bps = 10;
  // The first share of each validation block's days that picks the epoch;
  // val_* and the valid series come from the rest (selection.h). 0: the same
  // days do both.
  double epoch_select_frac = 0;  // trading cost per unit of turnover, in basis points (one-way)
  // Runtime.
  std::string device = "auto";  // "auto" | "cpu" | "cuda"
};

// The cross-validation the config asks for (cv.h).
struct CvSpec;
CvSpec cv_spec(const TrainerConfig& config);

// Reads and validates a config file; throws UsageError.
TrainerConfig load_config(const std::string& path);

// Checks ranges (positive sizes, fractions in range, ...); throws UsageError
// naming `source` (the file).
void validate(const TrainerConfig& config, const std::string& source);

// The keys load_config accepts.
std::vector<std::string> config_keys();

// Every key with its default and meaning, for --help.
std::string config_help();

// Every key with its value, one "key=value" line each. A checkpoint records
// it, so a resume can tell whether the checkpoint was written for this config.
std::string config_text(const TrainerConfig& config);

// The keys whose values differ between two config_text()s, as
// "batch_size 512 -> 256, grad_accum 1 -> 2"; empty when none do.
std::string config_text_diff(const std::string& before, const std::string& after);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_CONFIG_H_
