#include "trainer/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>

#include <filesystem>
#include <mutex>

namespace hpo::trainer {

namespace {

// CUDA device 0's generator, through the device-generic API (so this builds
// against a CPU-only LibTorch too; only called when training on CUDA).
at::Generator cuda_generator() {
  return at::globalContext().defaultGenerator(c10::Device(c10::DeviceType::CUDA, 0));
}

torch::Tensor generator_state(at::Generator generator) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

void set_generator_state(at::Generator generator, const torch::Tensor& state) {
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(state);
}

torch::Tensor int_tensor(int64_t v) { return torch::tensor({v}, torch::kInt64); }
torch::Tensor double_tensor(const std::vector<double>& v) {
  return torch::tensor(v, torch::kFloat64);
}

int64_t read_int(torch::serialize::InputArchive& in, const char* key) {
  torch::Tensor t;
  in.read(key, t);
  return t.item<int64_t>();
}

std::vector<double> read_doubles(torch::serialize::InputArchive& in, const char* key) {
  torch::Tensor t;
  in.read(key, t);
  t = t.contiguous();
  return std::vector<double>(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
}

}  // namespace

std::vector<torch::Tensor> model_state(const torch::nn::Module& model) {
  std::vector<torch::Tensor> out = model.parameters();
  for (const torch::Tensor& b : model.buffers()) out.push_back(b);
  return out;
}

void save_checkpoint(const std::string& path, const torch::nn::Module& model,
                     const torch::optim::Optimizer& optimizer, const LoopState& s,
                     const std::string& config, bool cuda_rng) {
  torch::serialize::OutputArchive out, model_archive, optimizer_archive;
  out.write("config", c10::IValue(config));
  model.save(model_archive);
  optimizer.save(optimizer_archive);
  out.write("model", model_archive);
  out.write("optimizer", optimizer_archive);
  out.write("epoch", int_tensor(s.epoch));
  out.write("batch", int_tensor(s.batch));
  out.write("step", int_tensor(s.step));
  out.write("best_epoch", int_tensor(s.best_epoch));
  out.write("bad_epochs", int_tensor(s.bad_epochs));
  out.write("epoch_loss_count", int_tensor(s.epoch_loss_count));
  out.write("doubles", double_tensor({s.best_val_rank_ic, s.epoch_loss_sum}));
  out.write("best_val", double_tensor(s.best_val));
  out.write("best_count", int_tensor(int64_t(s.best_weights.size())));
  for (size_t i = 0; i < s.best_weights.size(); ++i)
    out.write("best_" + std::to_string(i), s.best_weights[i]);
  out.write("rng_cpu", generator_state(at::detail::getDefaultCPUGenerator()));
  if (cuda_rng) out.write("rng_cuda", generator_state(cuda_generator()));
  const std::string tmp = path + ".tmp";
  out.save_to(tmp);
  std::filesystem::rename(tmp, path);  // atomic on POSIX within one directory
}

LoopState load_checkpoint(const std::string& path, torch::nn::Module& model, bool cuda_rng) {
  torch::serialize::InputArchive in, model_archive;
  in.load_from(path, torch::Device(torch::kCPU));
  in.read("model", model_archive);
  model.load(model_archive);
  LoopState s;
  s.epoch = read_int(in, "epoch");
  s.batch = read_int(in, "batch");
  s.step = read_int(in, "step");
  s.best_epoch = read_int(in, "best_epoch");
  s.bad_epochs = read_int(in, "bad_epochs");
  s.epoch_loss_count = read_int(in, "epoch_loss_count");
  std::vector<double> doubles = read_doubles(in, "doubles");
  s.best_val_rank_ic = doubles.at(0);
  s.epoch_loss_sum = doubles.at(1);
  s.best_val = read_doubles(in, "best_val");
  const int64_t best_count = read_int(in, "best_count");
  for (int64_t i = 0; i < best_count; ++i) {
    torch::Tensor t;
    in.read("best_" + std::to_string(i), t);
    s.best_weights.push_back(t);
  }
  torch::Tensor rng;
  in.read("rng_cpu", rng);
  set_generator_state(at::detail::getDefaultCPUGenerator(), rng);
  torch::Tensor rng_cuda;
  if (cuda_rng && in.try_read("rng_cuda", rng_cuda)) {  // absent: written by a CPU run
    set_generator_state(cuda_generator(), rng_cuda);
  }
  return s;
}

std::string checkpoint_config(const std::string& path) {
  torch::serialize::InputArchive in;
  in.load_from(path, torch::Device(torch::kCPU));
  c10::IValue config;
  return in.try_read("config", config) && config.isString() ? config.toStringRef() : std::string();
}

void load_optimizer(const std::string& path, torch::optim::Optimizer& optimizer,
                    const torch::Device& device) {
  torch::serialize::InputArchive in, optimizer_archive;
  in.load_from(path, device);
  in.read("optimizer", optimizer_archive);
  optimizer.load(optimizer_archive);
}

}  // namespace hpo::trainer
