#include <doctest/doctest.h>

#include "hpo/gpu/memory_estimate.h"

namespace hpo {
namespace {

TEST_CASE("the stock TCN's parameter count, by hand") {
  // 19 features, hidden 64, 3 blocks, kernel 3 (the trainer's defaults).
  // Block 0: conv 19->64 (19*64*3 + 64 gains + 64 biases = 3776), conv
  // 64->64 (12288 + 128 = 12416), 1x1 projection 19->64 (1216 + 64 = 1280).
  // Blocks 1, 2: 12416 + 12416 each. Head: 64 + 1.
  ModelShape s;
  CHECK(count_params(s) == 3776 + 12416 + 1280 + 2 * (12416 + 12416) + 65);
  CHECK(count_params(s) == 67201);
  s.model = "mlp";  // 380->64, 64->64, 64->64, 64->1
  CHECK(count_params(s) == 380 * 64 + 64 + 2 * (64 * 64 + 64) + 65);
}

TEST_CASE("memory follows seed 004's arithmetic") {
  ModelShape s;  // batch 512, lookback 20, hidden 64, layers 3
  MemoryEstimate e = estimate_memory(s, /*on_gpu=*/false);
  CHECK(e.params == 67201);
  CHECK(e.model_bytes == 67201.0 * 4 * (1 + 1 + 2));
  CHECK(e.activation_bytes == 512.0 * 20 * 64 * 3 * kTensorsPerLayer * 4);
  CHECK(e.input_bytes == 512.0 * 19 * 20 * 4);
  CHECK(e.context_bytes == 0);
  CHECK(e.total_bytes() == e.model_bytes + e.activation_bytes + e.input_bytes);

  s.amp = true;
  e = estimate_memory(s, /*on_gpu=*/true);
  CHECK(e.activation_bytes ==
        512.0 * 20 * 64 * 3 * kTensorsPerLayer * 4 / 2);  // AMP halves activations
  CHECK(e.model_bytes == 67201.0 * 16);  // but not the fp32 state
  CHECK(e.context_bytes == kCudaContextBytes);
}

TEST_CASE("memory grows linearly with the batch") {
  ModelShape small, big;
  big.batch_size = small.batch_size * 4;
  const MemoryEstimate a = estimate_memory(small, true), b = estimate_memory(big, true);
  CHECK(b.activation_bytes == 4 * a.activation_bytes);
  CHECK(b.model_bytes == a.model_bytes);
}

TEST_CASE("the worst case takes each size's largest value, then fixed values, then defaults") {
  SearchSpaceConfig space;
  space.params = {
      {"batch_size", CategoricalDistribution{{int64_t{256}, int64_t{2048}, int64_t{512}}}},
      {"hidden_size", CategoricalDistribution{{int64_t{32}, int64_t{128}}}},
      {"layers", IntDistribution{2, 6, false, 1}}};
  space.fixed = {{"lookback", int64_t{60}}, {"model", std::string("tcn")}};
  ModelShape s = worst_case_shape(space, {}, /*on_gpu=*/true);
  CHECK(s.batch_size == 2048);
  CHECK(s.hidden_size == 128);
  CHECK(s.layers == 6);
  CHECK(s.lookback == 60);
  CHECK(s.kernel_size == 3);
  CHECK(s.amp);  // the trainer's default AMP_DTYPE is bf16
  CHECK_FALSE(worst_case_shape(space, {{"AMP_DTYPE", "off"}}, true).amp);
  CHECK_FALSE(worst_case_shape(space, {}, /*on_gpu=*/false).amp);
}

TEST_CASE("training FLOPs: 6 x params x lookback per sample") {
  ModelShape s;
  CHECK(training_flops(s, 1000, 5) == 6.0 * 67201 * 20 * 1000 * 5);
}

TEST_CASE("byte counts read as people write them") {
  CHECK(format_bytes(512) == "512 B");
  CHECK(format_bytes(1.5 * 1024 * 1024 * 1024) == "1.5 GB");
  CHECK(format_bytes(480.0 * 1024 * 1024) == "480 MB");
}

}  // namespace
}  // namespace hpo
