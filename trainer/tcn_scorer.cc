#include "trainer/tcn_scorer.h"

#include <algorithm>
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

// Steps [begin, begin + n) of x, zeros before step 0 (the causal padding).
torch::Tensor steps(const torch::Tensor& x, int64_t begin, int64_t n) {
  if (begin >= 0) return x.narrow(3, begin, n);
  return F::pad(x, F::PadFuncOptions({-begin, 0})).narrow(3, 0, n);
}

// Rows [n * steps, channels] (one per name and day, or window and step) as
// channels-last activations [n, channels, 1, steps], without a copy.
torch::Tensor as_activation(const torch::Tensor& rows, int64_t n, int64_t steps) {
  return rows.view({n, steps, rows.size(1)}).permute({0, 2, 1}).unsqueeze(2);
}

// The other way: channels-last activations [n, channels, 1, steps] as rows.
torch::Tensor as_rows(const torch::Tensor& x) {
  return x.permute({0, 2, 3, 1}).reshape({-1, x.size(1)});
}

// The convolution of activations x [n, in, 1, steps] with stride `stride`,
// [n, out, 1, (steps - kernel) / stride + 1], as one matrix product.
//
// A window's own steps are few (1 to 4 for the default TCN), and oneDNN's
// convolutions over a batch of such short rows ran at 7 to 28 G
// multiply-adds a second on 2 cores, where whole windows ran at 45. With
// each output step's `kernel` input steps side by side in one row of
// kernel * in values, the same work is a 1x1 convolution over one wide
// image, which oneDNN runs as a GEMM (Debian's LibTorch has no fast matmul;
// see models.h's Dense): 26 to 50 G a second on the same shapes.
struct StepConv {
  torch::Tensor weight;  // [out, kernel * in, 1, 1], the taps in input-step order
  torch::Tensor bias;
  int64_t kernel = 1;
};

StepConv step_conv(const torch::Tensor& weight, const torch::Tensor& bias) {
  const int64_t out = weight.size(0), in = weight.size(1), kernel = weight.size(2);
  return {weight.permute({0, 2, 1}).reshape({out, kernel * in, 1, 1}).contiguous(), bias, kernel};
}

torch::Tensor conv_steps(const torch::Tensor& x, const StepConv& c, int64_t stride) {
  const torch::Tensor dense = x.contiguous(kChannelsLast);  // [n, steps, in] in memory
  const int64_t n = x.size(0), in = x.size(1), steps = x.size(3);
  const int64_t out_steps = (steps - c.kernel) / stride + 1, width = c.kernel * in;
  // Output step j reads input steps [j * stride, j * stride + kernel): one
  // stretch of memory, which the reshape copies into its row.
  const torch::Tensor taps =
      dense.as_strided({n, out_steps, width}, {steps * in, stride * in, 1}, dense.storage_offset());
  const torch::Tensor image = taps.reshape({1, 1, n * out_steps, width}).permute({0, 3, 1, 2});
  const torch::Tensor y = F::conv2d(image, c.weight, F::Conv2dFuncOptions().bias(c.bias));
  return as_activation(as_rows(y), n, out_steps);
}

// Steps [lo, hi) of `steps` of each window in `batch`, gathered from rows
// indexed by `row_of(ticker, day)`.
template <typename RowOf>
torch::Tensor gather(const torch::Tensor& rows, const std::vector<Sample>& batch,
                     const LayerSteps& steps, int64_t lo, int64_t hi, RowOf row_of) {
  const int64_t n = int64_t(batch.size()), width = hi - lo;
  torch::Tensor index = torch::empty({n * width}, torch::kInt64);
  int64_t* at = index.data_ptr<int64_t>();
  for (const Sample& s : batch)
    for (int64_t i = lo; i < hi; ++i) *at++ = row_of(s.ticker, int64_t(s.day) - steps.days_back(i));
  return as_activation(rows.index_select(0, index), n, width);
}

torch::Tensor cat_steps(const torch::Tensor& own, const torch::Tensor& taken) {
  if (!own.defined()) return taken;
  if (!taken.defined()) return own;
  return torch::cat({own, taken}, 3);
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

  int64_t row(int64_t ticker, int64_t day) const {
    return (ticker - first_ticker) * days + (day - first_day);
  }
};

TcnScorer::TcnScorer(Tcn& model, const FeatureSet& fs, int lookback, bool shared)
    : model_(model),
      fs_(fs),
      plan_(plan_scoring(int64_t(model.blocks().size()), model.kernel(), lookback, shared)),
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
  c.members.resize(fs_.num_tickers / size_t(c.tickers) + 1);
  for (size_t i = 0; i < samples.size(); ++i)
    c.members[samples[i].ticker / size_t(c.tickers)].push_back(i);
  return c;
}

double TcnScorer::work(const std::vector<Sample>& samples) const {
  const int64_t features = int64_t(fs_.num_features);
  const double windows = double(samples.size()) * double(plan_.own_macs(features, hidden_));
  if (samples.empty() || plan_.series_blocks == 0) return windows;
  // The series runs over every name of each chunk with samples (run_series).
  const Chunks c = chunks(samples);
  const auto used = std::count_if(c.members.begin(), c.members.end(),
                                  [](const std::vector<size_t>& m) { return !m.empty(); });
  const double names = double(c.tickers * used);
  return windows + names * double(c.days) * double(plan_.series_macs_per_day(features, hidden_));
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
    c.mid.push_back(as_rows(mid));
    c.out.push_back(as_rows(h));
  }
  return c;
}

torch::Tensor TcnScorer::predict_batch(const Chunk& chunk, const std::vector<Sample>& batch) const {
  const auto in_chunk = [&](int64_t ticker, int64_t day) { return chunk.row(ticker, day); };
  const auto in_store = [&](int64_t ticker, int64_t day) {
    return ticker * int64_t(fs_.num_days) + day;
  };
  const int64_t k = plan_.kernel;
  // The block's input: the window's first steps, then each block's output.
  torch::Tensor in = gather(store_, batch, plan_.input, 0, plan_.input.kept, in_store);
  const LayerSteps* in_steps = &plan_.input;
  for (size_t b = 0; b < weights_.size(); ++b) {
    const BlockWeights& w = weights_[b];
    const BlockPlan& p = plan_.blocks[b];
    const LayerSteps &mid_steps = plan_.mid[b], &out_steps = plan_.out[b];
    torch::Tensor own, taken;
    // The first convolution's own steps, from the input padded as
    // WeightNormConv1d pads it, then the steps the series has.
    if (mid_steps.own > 0) {
      const int64_t need = p.mid_count - 1 + k;
      own =
          conv_steps(steps(in, in_steps->count - need, mid_steps.own - 1 + k), w.steps1, 1).relu_();
    }
    if (mid_steps.kept > mid_steps.own)
      taken = gather(chunk.mid[b], batch, mid_steps, mid_steps.own, mid_steps.kept, in_chunk);
    const torch::Tensor mid = cat_steps(own, taken);
    own = taken = torch::Tensor();
    if (out_steps.own > 0) {
      const int64_t need = (p.out_count - 1) * p.out_stride + k;
      torch::Tensor y =
          conv_steps(steps(mid, p.mid_count - need, (out_steps.own - 1) * p.out_stride + k),
                     w.steps2, p.out_stride)
              .relu_();
      const int64_t first = in_steps->count - 1 - (p.out_count - 1) * p.out_stride;
      torch::Tensor skip =
          in.slice(3, first, first + (out_steps.own - 1) * p.out_stride + 1, p.out_stride);
      if (w.downsample.defined()) skip = conv_steps(skip, w.steps_down, 1);
      own = y.add_(skip).relu_();
    }
    if (out_steps.kept > out_steps.own)
      taken = gather(chunk.out[b], batch, out_steps, out_steps.own, out_steps.kept, in_chunk);
    in = cat_steps(own, taken);
    in_steps = &out_steps;
  }
  torch::Tensor last = in.narrow(3, in_steps->count - 1, 1).reshape({int64_t(batch.size()), -1});
  return model_.head(last);
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
  if (plan_.series_blocks == 0) {  // no series: the samples in order
    std::vector<size_t> all(samples.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    predict_some(Chunk(), samples, all, rows, &pred);
    return pred;
  }
  const Chunks c = chunks(samples);
  for (size_t k = 0; k < c.members.size(); ++k) {
    if (c.members[k].empty()) continue;
    const int64_t first_ticker = int64_t(k) * c.tickers;
    const Chunk chunk =
        run_series(first_ticker, std::min(c.tickers, int64_t(fs_.num_tickers) - first_ticker),
                   c.first_day, c.days);
    predict_some(chunk, samples, c.members[k], rows, &pred);
  }
  return pred;
}

}  // namespace hpo::trainer
