#include "trainer/batcher.h"

#include "trainer/dataset.h"
#include "trainer/device_features.h"
#include "trainer/synthetic.h"

// After the torch headers: glog (pulled in by LibTorch) defines its own CHECK.
#include <doctest/doctest.h>

namespace hpo::trainer {
namespace {

Dataset tiny_dataset() {
  SyntheticSpec spec;
  spec.tickers = 10;
  spec.days = 200;
  TrainerConfig config;
  config.lookback = 4;
  return make_dataset(make_synthetic_panel(spec).panel, config);
}

TEST_CASE("batcher: windows are [features, lookback], in pass order, for any worker count") {
  const Dataset d = tiny_dataset();
  const int lookback = 4;
  for (int workers : {0, 1, 3}) {
    CAPTURE(workers);
    BatcherOptions options;
    options.workers = workers;
    Batcher batcher(d.features, lookback, options);
    batcher.start(d.train, 64, /*first=*/1);  // skip batch 0, as a resumed epoch does
    size_t expected_index = 1, seen = 64;
    while (std::optional<Batch> b = batcher.next()) {
      CHECK(b->index == expected_index++);
      REQUIRE(b->x.size(1) == int64_t(d.features.num_features));
      REQUIRE(b->x.size(2) == lookback);
      auto x = b->x.accessor<float, 3>();
      for (int64_t k = 0; k < b->x.size(0); k += 17) {
        const Sample& s = d.train[seen + size_t(k)];
        for (int l = 0; l < lookback; ++l)
          for (size_t f = 0; f < d.features.num_features; ++f)
            CHECK(x[k][int64_t(f)][l] == d.features.row(s.ticker, s.day + 1 - lookback + l)[f]);
        CHECK(b->y[k].item<float>() == d.features.target[d.features.cell(s.ticker, s.day)]);
      }
      seen += size_t(b->x.size(0));
    }
    CHECK(seen == d.train.size());
    // A new pass starts cleanly.
    batcher.start(d.valid, 1000);
    CHECK(batcher.next()->index == 0);
  }
}

TEST_CASE("batcher: index batches gathered by the device store are the host-built windows") {
  const Dataset d = tiny_dataset();
  const int lookback = 4;
  BatcherOptions host_options, index_options;
  index_options.indices = true;
  Batcher host(d.features, lookback, host_options), indices(d.features, lookback, index_options);
  // On the CPU here; on CUDA the same gather runs where the model does.
  const DeviceFeatures store(d.features, lookback, torch::kCPU);
  host.start(d.train, 48);
  indices.start(d.train, 48);
  size_t batches = 0;
  while (std::optional<Batch> h = host.next()) {
    std::optional<Batch> i = indices.next();
    REQUIRE(i);
    CHECK(i->size == h->size);
    CHECK_FALSE(i->x.defined());
    CHECK(store.windows(i->rows).equal(h->x));
    CHECK(store.targets(i->cells).equal(h->y));
    ++batches;
  }
  CHECK_FALSE(indices.next());
  CHECK(batches == (d.train.size() + 47) / 48);
  CHECK(DeviceFeatures::bytes(d.features) ==
        (d.features.values.size() + d.features.target.size()) * sizeof(float));
  CHECK_FALSE(device_features_fit(d.features, torch::kCPU));  // the host gathers there
}

}  // namespace
}  // namespace hpo::trainer
