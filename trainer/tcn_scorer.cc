#include "trainer/tcn_scorer.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace hpo::trainer {

namespace F = torch::nn::functional;

namespace {

constexpr auto kChannelsLast = torch::MemoryFormat::ChannelsLast;

// The most a chunk's series may hold, and the most names a chunk has: they
// bound a pass's memory whatever the panel's size, and leave a chunk enough
// windows that its one padded batch is a small share of its work (2,048-row
// batches, 128 names of the default panel's test window: 36,000 windows).
constexpr int64_t kChunkBytes = int64_t(64) << 20;
constexpr int64_t kMaxChunkTickers = 128;

// Activations are [n, channels, 1, steps] channels-last, as Tcn::forward's
// on the CPU. The series' convolutions: causal, dilated, along the steps.
torch::Tensor conv_series(const torch::Tensor& x, const torch::Tensor& weight,
                          const torch::Tensor& bias, int64_t dilation) {
  const int64_t reach = (weight.size(2) - 1) * dilation;
  return F::conv2d(F::pad(x, F::PadFuncOptions({reach, 0})).contiguous(kChannelsLast),
                   weight.unsqueeze(2), F::Conv2dFuncOptions().bias(bias).dilation({1, dilation}));
}

// Channels-last activations [n, channels, 1, steps] as rows [n * steps,
// channels], one per name and day, without a copy.
torch::Tensor as_rows(const torch::Tensor& x) {
  return x.permute({0, 2, 3, 1}).reshape({-1, x.size(1)});
}

// A window's convolution as one matrix product.
//
// A window's own steps are few (1 to 4 for the default TCN), and oneDNN's
// convolutions over a batch of such short rows ran at 7 to 28 G
// multiply-adds a second on 2 cores, where whole windows ran at 45. With
// each output step's `kernel` input steps side by side in one row of
// kernel * in values (gather_taps below), the same work is a 1x1 convolution over
// one wide image, which oneDNN runs as a GEMM (Debian's LibTorch has no fast
// matmul; see models.h's Dense): 26 to 50 G a second on the same shapes, and
// 60 to 70 since the rows are copied once, by hand, rather than padded,
// concatenated and copied again by LibTorch's strided copies.
struct StepConv {
  torch::Tensor weight;  // [out, kernel * in, 1, 1], the taps in input-step order
  torch::Tensor bias;
};

StepConv step_conv(const torch::Tensor& weight, const torch::Tensor& bias) {
  const int64_t out = weight.size(0), in = weight.size(1), kernel = weight.size(2);
  return {weight.permute({0, 2, 1}).reshape({out, kernel * in, 1, 1}).contiguous(), bias};
}

// Rows [m, kernel * in] through the convolution: rows [m, out].
//
// Straight to oneDNN: with one thread, LibTorch's conv2d sends a 1x1
// convolution of one image to its own unfold-and-matmul convolution, which
// with Debian's reference BLAS scored the default TCN's test window in 20 s
// instead of 0.7 s; hpo gives trials one thread each where they share a
// small machine.
torch::Tensor product(const torch::Tensor& rows, const StepConv& c) {
  const torch::Tensor image =
      rows.view({1, rows.size(0), 1, rows.size(1)}).permute({0, 3, 1, 2});  // channels-last
  if (!at::hasMKLDNN())
    return as_rows(F::conv2d(image, c.weight, F::Conv2dFuncOptions().bias(c.bias)));
  return as_rows(at::mkldnn_convolution(image, c.weight, c.bias, {0, 0}, {1, 1}, {1, 1}, 1));
}

// A table of rows by name and day: the feature store, or a chunk's series.
struct SeriesRows {
  const float* data = nullptr;
  int64_t first_ticker = 0, first_day = 0, days = 0;

  const float* at(int64_t ticker, int64_t day, int64_t channels) const {
    return data + ((ticker - first_ticker) * days + (day - first_day)) * channels;
  }
};

// One activation of a batch of windows: each window's own steps as rows of
// `own` (window-major), the steps it takes from `series` looked up by name
// and day.
struct Activation {
  const LayerSteps* steps = nullptr;
  int64_t channels = 0;
  SeriesRows series;
  torch::Tensor own;  // [windows * steps->own, channels]; undefined when steps->own == 0
};

// Windows per task of gather_taps' copies: up to a few hundred KB of rows.
constexpr int64_t kCopyGrain = 32;

// Rows [windows * count, taps * channels] of `in`: row (w, i) holds steps
// first + i * stride + j, j < taps, of window w side by side, oldest first,
// with zeros for steps before the window's first (the causal padding).
// Each step is copied once, from the window's own rows or from the series,
// so that no padded, concatenated or gathered copy of `in` is made first.
torch::Tensor gather_taps(const Activation& in, const std::vector<Sample>& batch, int64_t first,
                          int64_t count, int64_t stride, int64_t taps) {
  const LayerSteps& steps = *in.steps;
  const int64_t last = first + (count - 1) * stride + taps - 1;
  if (last >= steps.kept || (last >= steps.own && in.series.data == nullptr))
    throw std::logic_error("TcnScorer: a window reads a step that its plan does not keep");
  const int64_t n = int64_t(batch.size()), c = in.channels;
  torch::Tensor rows = torch::empty({n * count, taps * c});
  float* to = rows.data_ptr<float>();
  const torch::Tensor own_rows = in.own.defined() ? in.own.contiguous() : in.own;
  const float* own = own_rows.defined() ? own_rows.data_ptr<float>() : nullptr;
  at::parallel_for(0, n, kCopyGrain, [&](int64_t begin, int64_t end) {
    for (int64_t w = begin; w < end; ++w) {
      const Sample& s = batch[size_t(w)];
      float* row = to + w * count * taps * c;
      for (int64_t i = 0; i < count; ++i)
        for (int64_t j = 0; j < taps; ++j, row += c) {
          const int64_t step = first + i * stride + j;
          if (step < 0) {
            std::fill_n(row, c, 0.0f);
            continue;
          }
          const float* from =
              step < steps.own ? own + (w * steps.own + step) * c
                               : in.series.at(s.ticker, int64_t(s.day) - steps.days_back(step), c);
          std::memcpy(row, from, size_t(c) * sizeof(float));
        }
    }
  });
  return rows;
}

}  // namespace

// A block's weights, normalized once per scoring pass: as [out, in, kernel]
// for the series and as matrix rows for the windows' own steps.
struct TcnScorer::BlockWeights {
  torch::Tensor conv1, bias1, conv2, bias2;
  torch::Tensor downsample, bias_down;  // none when the block's input is as wide as its output
  StepConv steps1, steps2, steps_down;
};

// The series of names [first_ticker, first_ticker + tickers) over days
// [first_day, first_day + days): per block, rows [tickers * days, hidden] of
// its first convolution's output and of its own.
struct TcnScorer::Chunk {
  int64_t first_ticker = 0, first_day = 0, days = 0;
  std::vector<torch::Tensor> mid, out;

  // Block b's first convolution's output (mid) or its own (out), by name and day.
  SeriesRows rows(const std::vector<torch::Tensor>& of, size_t b) const {
    if (b >= of.size()) return {};
    return {of[b].data_ptr<float>(), first_ticker, first_day, days};
  }
};

TcnScorer::TcnScorer(Tcn& model, const FeatureSet& fs, int lookback, int64_t shared_blocks)
    : model_(model),
      fs_(fs),
      plan_(plan_scoring(int64_t(model.blocks().size()), model.kernel(), lookback, shared_blocks)),
      hidden_(model.blocks().front()->conv1()->bias().size(0)) {
  // from_blob wants a non-const pointer; the store is only read.
  store_ = torch::from_blob(const_cast<float*>(fs.values.data()),
                            {int64_t(fs.num_tickers * fs.num_days), int64_t(fs.num_features)});
  for (const TemporalBlock& block : model.blocks()) {
    BlockWeights w;
    w.conv1 = block->conv1()->weight();
    w.bias1 = block->conv1()->bias();
    w.conv2 = block->conv2()->weight();
    w.bias2 = block->conv2()->bias();
    w.steps1 = step_conv(w.conv1, w.bias1);
    w.steps2 = step_conv(w.conv2, w.bias2);
    if (block->downsample()) {
      w.downsample = block->downsample()->weight;
      w.bias_down = block->downsample()->bias;
      w.steps_down = step_conv(w.downsample, w.bias_down);
    }
    weights_.push_back(std::move(w));
  }
}

TcnScorer::~TcnScorer() = default;

int64_t TcnScorer::chunk_tickers(int64_t days) const {
  const int64_t per_ticker =
      std::max<int64_t>(1, days * hidden_ * int64_t(sizeof(float)) * 2 * plan_.series_blocks);
  const int64_t most = std::min(kMaxChunkTickers, std::max<int64_t>(1, int64_t(fs_.num_tickers)));
  return std::clamp(kChunkBytes / per_ticker, int64_t(1), most);
}

namespace {

// The indices of `samples` name by name, each name's in pass order (a
// counting sort). Batches in this order read the days of a few names, which
// stay in cache, rather than of every name (the passes come day by day):
// 0.05 s less of the default TCN's test window, and 0.02 s of its
// validation window scored window by window.
std::vector<size_t> by_name(const std::vector<Sample>& samples, size_t tickers) {
  std::vector<size_t> next(tickers + 1, 0), order(samples.size());
  for (const Sample& s : samples) ++next[s.ticker + 1];
  std::partial_sum(next.begin(), next.end(), next.begin());
  for (size_t i = 0; i < samples.size(); ++i) order[next[samples[i].ticker]++] = i;
  return order;
}

// The pass's days: from the first window's first day to the last window's last.
std::pair<int64_t, int64_t> day_span(const std::vector<Sample>& samples, int64_t lookback) {
  uint32_t lo = samples.front().day, hi = lo;
  for (const Sample& s : samples) {
    lo = std::min(lo, s.day);
    hi = std::max(hi, s.day);
  }
  return {int64_t(lo) - (lookback - 1), int64_t(hi) - int64_t(lo) + lookback};
}

}  // namespace

TcnScorer::Chunks TcnScorer::chunks(const std::vector<Sample>& samples) const {
  Chunks c;
  std::tie(c.first_day, c.days) = day_span(samples, plan_.lookback);
  c.tickers = chunk_tickers(c.days);
  c.count = (fs_.num_tickers + size_t(c.tickers) - 1) / size_t(c.tickers);
  std::vector<bool> used(c.count, false);
  for (const Sample& s : samples) used[c.of(s.ticker)] = true;
  c.used = std::count(used.begin(), used.end(), true);
  return c;
}

double TcnScorer::work(const std::vector<Sample>& samples) const {
  const int64_t features = int64_t(fs_.num_features);
  const double windows = double(samples.size()) * double(plan_.own_macs(features, hidden_));
  if (samples.empty() || plan_.series_blocks == 0) return windows;
  // The series runs over every name of each chunk with samples (run_series).
  const Chunks c = chunks(samples);
  const double names = double(c.tickers * c.used);
  return windows + names * double(c.days) * double(plan_.series_macs_per_day(features, hidden_));
}

int64_t TcnScorer::batch_rows(const std::vector<Sample>& samples, int64_t fewest,
                              int64_t most) const {
  const int64_t chunks =
      plan_.series_blocks > 0 && !samples.empty() ? this->chunks(samples).used : 1;
  int64_t rows = most;
  while (rows / 2 >= fewest && chunks * rows / 2 > int64_t(samples.size()) / 32) rows /= 2;
  return std::max(rows, fewest);
}

TcnScorer::Chunk TcnScorer::run_series(int64_t first_ticker, int64_t tickers, int64_t first_day,
                                       int64_t days) const {
  Chunk c;
  c.first_ticker = first_ticker;
  c.first_day = first_day;
  c.days = days;
  const int64_t per = chunk_tickers(days), features = int64_t(fs_.num_features);
  // Every chunk has `per` names (the last padded with zeros), so that every
  // series is computed by the same kernels.
  torch::Tensor x = store_.view({int64_t(fs_.num_tickers), int64_t(fs_.num_days), features})
                        .narrow(0, first_ticker, tickers)
                        .narrow(1, first_day, days);
  if (tickers < per) x = F::pad(x, F::PadFuncOptions({0, 0, 0, 0, 0, per - tickers}));
  torch::Tensor h = x.permute({0, 2, 1}).unsqueeze(2).contiguous(kChannelsLast);
  for (int64_t b = 0; b < plan_.series_blocks; ++b) {
    const BlockWeights& w = weights_[size_t(b)];
    const int64_t dilation = int64_t(1) << b;
    torch::Tensor mid = conv_series(h, w.conv1, w.bias1, dilation).relu_();
    torch::Tensor y = conv_series(mid, w.conv2, w.bias2, dilation).relu_();
    torch::Tensor skip = w.downsample.defined() ? conv_series(h, w.downsample, w.bias_down, 1) : h;
    h = y.add_(skip).relu_();
    c.mid.push_back(as_rows(mid).contiguous());  // rows read by pointer (SeriesRows)
    c.out.push_back(as_rows(h).contiguous());
  }
  return c;
}

torch::Tensor TcnScorer::predict_batch(const Chunk& chunk, const std::vector<Sample>& batch) const {
  const int64_t k = plan_.kernel;
  // The first block's input: the window's days, all from the store.
  Activation in{&plan_.input,
                int64_t(fs_.num_features),
                {fs_.values.data(), 0, 0, int64_t(fs_.num_days)},
                {}};
  for (size_t b = 0; b < weights_.size(); ++b) {
    const BlockWeights& w = weights_[b];
    const BlockPlan& p = plan_.blocks[b];
    // Each convolution computes the window's own steps, reading the input
    // padded as WeightNormConv1d pads it; the other steps are the series'.
    Activation mid{&plan_.mid[b], hidden_, chunk.rows(chunk.mid, b), {}};
    if (mid.steps->own > 0) {
      const int64_t first = plan_.mid_first(b);
      mid.own = product(gather_taps(in, batch, first, mid.steps->own, 1, k), w.steps1).relu_();
    }
    Activation out{&plan_.out[b], hidden_, chunk.rows(chunk.out, b), {}};
    if (out.steps->own > 0) {
      const int64_t first = plan_.out_first(b);
      torch::Tensor y =
          product(gather_taps(mid, batch, first, out.steps->own, p.out_stride, k), w.steps2)
              .relu_();
      torch::Tensor skip =
          gather_taps(in, batch, plan_.skip_first(b), out.steps->own, p.out_stride, 1);
      if (w.downsample.defined()) skip = product(skip, w.steps_down);
      out.own = y.add_(skip).relu_();
    }
    in = std::move(out);
  }
  return model_.head(gather_taps(in, batch, in.steps->count - 1, 1, 1, 1));
}

void TcnScorer::predict_some(const Chunk& chunk, const std::vector<Sample>& samples,
                             const std::vector<size_t>& which, int64_t rows,
                             std::vector<float>* pred) const {
  std::vector<Sample> batch;
  for (size_t begin = 0; begin < which.size(); begin += size_t(rows)) {
    const size_t n = std::min(which.size() - begin, size_t(rows));
    batch.clear();
    for (size_t j = 0; j < n; ++j) batch.push_back(samples[which[begin + j]]);
    batch.resize(size_t(rows), batch.front());  // padding rows, dropped below
    const torch::Tensor out = predict_batch(chunk, batch).contiguous();
    const float* p = out.data_ptr<float>();
    for (size_t j = 0; j < n; ++j) (*pred)[which[begin + j]] = p[j];
  }
}

std::vector<float> TcnScorer::predict(const std::vector<Sample>& samples, int64_t rows) {
  if (model_.is_training()) throw std::logic_error("TcnScorer: the model is in training mode");
  std::vector<float> pred(samples.size());
  if (samples.empty()) return pred;
  if (plan_.series_blocks == 0) {  // no series: one pass over every name
    predict_some(Chunk(), samples, by_name(samples, fs_.num_tickers), rows, &pred);
    return pred;
  }
  const Chunks c = chunks(samples);
  // Each chunk's samples, name by name.
  std::vector<std::vector<size_t>> members(c.count);
  for (size_t i : by_name(samples, fs_.num_tickers)) members[c.of(samples[i].ticker)].push_back(i);
  for (size_t k = 0; k < members.size(); ++k) {
    if (members[k].empty()) continue;
    const int64_t first_ticker = int64_t(k) * c.tickers;
    const Chunk chunk =
        run_series(first_ticker, std::min(c.tickers, int64_t(fs_.num_tickers) - first_ticker),
                   c.first_day, c.days);
    predict_some(chunk, samples, members[k], rows, &pred);
  }
  return pred;
}

}  // namespace hpo::trainer
