#include "trainer/tcn_scorer.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "trainer/batcher.h"

// After the torch headers: glog (pulled in by LibTorch) defines its own CHECK.
#include <doctest/doctest.h>

namespace hpo::trainer {
namespace {

// A store of random features: `tickers` names over `days` days.
FeatureSet random_store(size_t tickers, size_t days, size_t features, uint64_t seed) {
  FeatureSet fs;
  fs.num_tickers = tickers;
  fs.num_days = days;
  fs.num_features = features;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  fs.values.resize(tickers * days * features);
  for (float& v : fs.values) v = normal(rng);
  fs.target.assign(tickers * days, 0.0f);
  return fs;
}

// Samples of every name on days [first, last], shuffled, less a few.
std::vector<Sample> samples_between(const FeatureSet& fs, uint32_t first, uint32_t last,
                                    uint64_t seed) {
  std::vector<Sample> samples;
  for (uint32_t t = 0; t < fs.num_tickers; ++t)
    for (uint32_t d = first; d <= last; ++d) samples.push_back(Sample{t, d});
  std::mt19937_64 rng(seed);
  std::shuffle(samples.begin(), samples.end(), rng);
  samples.resize(samples.size() - samples.size() / 7);
  return samples;
}

// Tcn::forward of each sample's own window, 64 rows a forward (the padding
// Loop::evaluate gives its forwards).
std::vector<float> window_predictions(Tcn& model, const FeatureSet& fs, int lookback,
                                      const std::vector<Sample>& samples) {
  constexpr int64_t kRows = 64;
  const int64_t features = int64_t(fs.num_features);
  std::vector<float> pred;
  for (size_t begin = 0; begin < samples.size(); begin += kRows) {
    const size_t n = std::min(samples.size() - begin, size_t(kRows));
    torch::Tensor x = torch::zeros({kRows, features, lookback});
    torch::Tensor y = torch::empty({kRows});
    fill_batch(fs, lookback, &samples[begin], n, x.data_ptr<float>(), y.data_ptr<float>());
    torch::Tensor out = model.forward(x).contiguous();
    pred.insert(pred.end(), out.data_ptr<float>(), out.data_ptr<float>() + n);
  }
  return pred;
}

TEST_CASE("tcn scorer: the default TCN computes 13 of a window's 29 hidden steps itself") {
  const ScoringPlan plan = plan_scoring(3, 3, 20, 3);
  // Activation by activation: (own, kept) steps of (count).
  CHECK(plan.input.kept == 4);  // of 20 days, the window reads its first 4 from the store
  CHECK(plan.mid[0].own == 2);
  CHECK(plan.mid[0].kept == 4);
  CHECK(plan.out[0].own == 2);
  CHECK(plan.out[0].kept == 6);
  CHECK(plan.mid[1].own == 4);
  CHECK(plan.mid[1].kept == 6);
  CHECK(plan.out[1].own == 3);
  CHECK(plan.out[1].kept == 5);
  CHECK(plan.mid[2].own == 3);  // the top block reaches 29 days: all its steps are own
  CHECK(plan.out[2].own == 1);
  CHECK(plan.series_blocks == 2);
  int64_t own = 0, all = 0;
  for (size_t b = 0; b < 3; ++b) {
    own += (b > 0 ? plan.mid[b].own : 0) + plan.out[b].own;
    all += (b > 0 ? plan.mid[b].count : 0) + plan.out[b].count;
  }
  CHECK(own == 13);
  CHECK(all == 29);
  // Unshared, a window computes every step of models.h's plan itself.
  const ScoringPlan alone = plan_scoring(3, 3, 20, 0);
  CHECK(alone.series_blocks == 0);
  CHECK(alone.input.kept == 20);
  for (size_t b = 0; b < 3; ++b) {
    CHECK(alone.mid[b].own == alone.blocks[b].mid_count);
    CHECK(alone.out[b].own == alone.blocks[b].out_count);
  }
  CHECK(plan.own_macs(19, 64) < alone.own_macs(19, 64) / 2);
  // Block 0's two convolutions and residual for 2 steps each, then 4 + 3
  // steps of block 1 and 3 + 1 of block 2, each of 3 taps; and the head.
  CHECK(plan.own_macs(19, 64) ==
        2 * 3 * 19 * 64 + 2 * 3 * 64 * 64 + 2 * 19 * 64 + (4 + 3 + 3 + 1) * 3 * 64 * 64 + 64);
  // Block 0 shared, blocks 1 and 2 computed by each window: block 0's steps
  // as in the shared plan, every step of the blocks above.
  const ScoringPlan lower = plan_scoring(3, 3, 20, 1);
  CHECK(lower.series_blocks == 1);
  CHECK(lower.mid[0].own == 2);
  CHECK(lower.out[0].own == 2);
  CHECK(lower.out[0].kept == 10);  // block 1 reads all of block 0's steps
  for (size_t b = 1; b < 3; ++b) {
    CHECK(lower.mid[b].own == alone.mid[b].own);
    CHECK(lower.out[b].own == alone.out[b].own);
  }
  CHECK(lower.series_macs_per_day(19, 64) < plan.series_macs_per_day(19, 64) / 2);
}

TEST_CASE("tcn scorer: a field inside the window leaves each window only the head") {
  // 2 blocks of kernel 2 read 7 days.
  const ScoringPlan plan = plan_scoring(2, 2, 7, 2);
  CHECK(plan.out[1].field == 7);
  CHECK(plan.out[1].own == 0);
  CHECK(plan.series_blocks == 2);
  CHECK(plan.own_macs(5, 8) == 8);
  // One day shorter, the top step is each window's own again.
  CHECK(plan_scoring(2, 2, 6, 2).out[1].own == 1);
}

// The windows' own steps are summed in another order than Tcn::forward's
// (tcn_scorer.cc, StepConv), so the predictions agree to float rounding:
// a few units in the last place of sums of up to a few hundred products.
TEST_CASE("tcn scorer: the predictions are each window's forward, to float rounding") {
  torch::manual_seed(11);
  torch::InferenceMode inference;
  const FeatureSet fs = random_store(37, 90, 5, 1);  // two chunks, the second padded
  int configs = 0;
  for (int layers : {1, 2, 3, 4})
    for (int kernel : {2, 3, 5})
      for (int lookback : {1, 2, 3, 8, 20, 33})
        for (int hidden : {5, 12}) {  // 5: no downsample in block 0
          CAPTURE(layers);
          CAPTURE(kernel);
          CAPTURE(lookback);
          CAPTURE(hidden);
          TrainerConfig config;
          config.layers = layers;
          config.kernel_size = kernel;
          config.lookback = lookback;
          config.hidden_size = hidden;
          Tcn model(int64_t(fs.num_features), config);
          model.use_channels_last(true);
          model.eval();
          const std::vector<Sample> samples =
              samples_between(fs, uint32_t(40), uint32_t(40 + 2 * configs % 17), uint64_t(configs));
          const std::vector<float> want = window_predictions(model, fs, lookback, samples);
          for (int64_t shared = 0; shared <= layers; ++shared) {  // blocks the series runs
            CAPTURE(shared);
            const std::vector<float> got =
                TcnScorer(model, fs, lookback, shared).predict(samples, 64);
            REQUIRE(got.size() == want.size());
            double worst = 0;
            for (size_t i = 0; i < got.size(); ++i)
              worst = std::max(worst, std::abs(double(got[i]) - want[i]) /
                                          std::max(1.0, std::abs(double(want[i]))));
            CHECK(worst < 2e-6);
          }
          ++configs;
        }
}

TEST_CASE("tcn scorer: sharing is less work where windows of a name share days, not otherwise") {
  TrainerConfig config;  // the default TCN
  const FeatureSet fs = random_store(64, 400, 19, 2);
  Tcn model(19, config);
  model.eval();
  const TcnScorer shared(model, fs, config.lookback, 3);
  const TcnScorer lower(model, fs, config.lookback, 1);  // block 0 alone
  const TcnScorer alone(model, fs, config.lookback, 0);
  std::vector<Sample> daily, weekly, monthly;
  for (uint32_t t = 0; t < 64; ++t)
    for (uint32_t d = 100; d < 400; ++d) {
      daily.push_back(Sample{t, d});
      if (d % 5 == 0) weekly.push_back(Sample{t, d});
      if (d % 21 == 0) monthly.push_back(Sample{t, d});
    }
  // Every name on every day: the series' days are about the windows'.
  CHECK(shared.work(daily) < 0.6 * alone.work(daily));
  CHECK(shared.work(daily) < lower.work(daily));
  // Every fifth day: block 1's series costs more than the windows save by
  // it, block 0's less.
  CHECK(lower.work(weekly) < shared.work(weekly));
  CHECK(lower.work(weekly) < 0.85 * alone.work(weekly));
  // A window every 21 days: the series computes 21 days for each.
  CHECK(shared.work(monthly) > alone.work(monthly));
  // Unshared, the work is the windows' alone: models.h's plan of steps for
  // 20 days (block 0: 20 and 10, block 1: 10 and 5, block 2: 3 and 1), the
  // residual's 1x1 convolution and the head.
  const double per_window =
      20 * 19 * 64 * 3 + 10 * 64 * 64 * 3 + 10 * 19 * 64 + (10 + 5 + 3 + 1) * 64 * 64 * 3 + 64;
  CHECK(alone.work(daily) == doctest::Approx(double(daily.size()) * per_window));
}

TEST_CASE("tcn scorer: a pass takes large batches only where their padding is a small share") {
  TrainerConfig config;
  const FeatureSet fs = random_store(300, 400, 19, 6);  // three chunks of 128 names
  Tcn model(19, config);
  model.eval();
  const TcnScorer shared(model, fs, config.lookback, 3);
  const TcnScorer alone(model, fs, config.lookback, 0);
  for (uint32_t every : {1, 3, 5, 21, 97}) {
    CAPTURE(every);
    std::vector<Sample> samples;
    for (uint32_t d = 100; d < 400; d += every)
      for (uint32_t t = 0; t < 300; ++t) samples.push_back(Sample{t, d});
    const int64_t n = int64_t(samples.size());
    for (const TcnScorer* scorer : {&shared, &alone}) {
      const int64_t chunks = scorer == &shared ? 3 : 1;
      const int64_t rows = scorer->batch_rows(samples, 64, 2048);
      CAPTURE(rows);
      CHECK(rows >= 64);
      CHECK(rows <= 2048);
      // Larger than the fewest only while the padding stays within 1/32...
      if (rows > 64) CHECK(chunks * rows / 2 <= n / 32);
      // ...and as large as that allows.
      if (rows < 2048) CHECK(chunks * rows > n / 32);
    }
  }
  // The default panel's test window: 500 names on 283 days, in four chunks.
  const FeatureSet panel = random_store(500, 320, 19, 7);
  std::vector<Sample> test;
  for (uint32_t d = 30; d < 30 + 283; ++d)
    for (uint32_t t = 0; t < 500; ++t) test.push_back(Sample{t, d});
  CHECK(TcnScorer(model, panel, config.lookback, 3).batch_rows(test, 512, 2048) == 2048);
}

// The operators dispatched on this thread while the callback is registered.
std::set<std::string>& ops_seen() {
  static std::set<std::string> seen;
  return seen;
}

std::unique_ptr<at::ObserverContext> note_op(const at::RecordFunction& fn) {
  ops_seen().insert(fn.name());
  return nullptr;
}

// LibTorch sends a 1x1 convolution of a single image to its own slow
// convolution rather than oneDNN when it has one thread ("THNN is faster when
// single-threaded"), and each window's matrix product is such a convolution:
// with OMP_NUM_THREADS=1, as hpo gives trials that share a small machine, the
// default TCN's test window took 20 s to score instead of 0.7 s.
TEST_CASE("tcn scorer: with one thread, the matrix products still run in oneDNN") {
  TrainerConfig config;  // the default TCN
  const FeatureSet fs = random_store(20, 120, 19, 4);
  Tcn model(19, config);
  model.use_channels_last(true);
  model.eval();
  torch::InferenceMode inference;
  const std::vector<Sample> samples = samples_between(fs, 60, 119, 5);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  for (int64_t shared : {0, 1, 3}) {
    CAPTURE(shared);
    ops_seen().clear();
    const at::CallbackHandle handle =
        at::addThreadLocalCallback(at::RecordFunctionCallback(note_op));
    TcnScorer(model, fs, config.lookback, shared).predict(samples, 64);
    at::removeCallback(handle);
    CHECK(ops_seen().count("aten::mkldnn_convolution") == 1);
    for (const std::string& op : ops_seen()) {
      CAPTURE(op);
      CHECK(op.find("slow_conv") == std::string::npos);
      CHECK(op.find("thnn") == std::string::npos);
    }
  }
  at::set_num_threads(threads);
}

TEST_CASE("tcn scorer: scoring in training mode is refused") {
  // Dropout would be left out: a mistake in the caller.
  TrainerConfig config;
  const FeatureSet fs = random_store(4, 60, 19, 3);
  Tcn model(19, config);
  model.train();
  TcnScorer scorer(model, fs, config.lookback, 3);
  CHECK_THROWS_AS(scorer.predict({Sample{0, 40}}, 64), std::logic_error);
}

}  // namespace
}  // namespace hpo::trainer
