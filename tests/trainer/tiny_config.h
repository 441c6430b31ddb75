// The config of the tests that train: a model and panel small enough for a
// run to take about a second.
#ifndef HPO_TESTS_TRAINER_TINY_CONFIG_H_
#define HPO_TESTS_TRAINER_TINY_CONFIG_H_

#include "trainer/config.h"

namespace hpo::trainer::testing {

inline TrainerConfig tiny_config() {
  TrainerConfig c;
  c.synthetic_tickers = 30;
  c.synthetic_days = 220;
  c.lookback = 5;
  c.hidden_size = 8;
  c.layers = 2;
  c.batch_size = 64;
  c.grad_accum = 2;
  c.max_train_samples = 512;  // 8 batches, 4 optimizer steps per epoch
  c.max_valid_samples = 0;
  c.epochs = 3;
  c.patience = 10;
  c.lr = 3e-3;
  c.dropout = 0.2;  // dropout draws from the RNG, which a resume must restore
  return c;
}

}  // namespace hpo::trainer::testing

#endif  // HPO_TESTS_TRAINER_TINY_CONFIG_H_
