// One GPU as nvidia-smi reports it. A plain value shared by detection, the
// slot plan, profile selection and the utilization sampler.
#ifndef HPO_GPU_GPU_DEVICE_H_
#define HPO_GPU_GPU_DEVICE_H_

#include <cstdint>
#include <optional>
#include <string>

namespace hpo {

struct GpuDevice {
  int index = 0;  // nvidia-smi's index (PCI bus order); a MIG instance's GPU
  std::string uuid;  // "GPU-8f2c4b1a-..."; empty if nvidia-smi did not say
  std::string name;  // "NVIDIA H100 80GB HBM3", "MIG 1g.10gb on GPU 0"
  int64_t memory_total_mib = 0;
  std::optional<int64_t> memory_used_mib;  // absent when reported as [N/A]
  std::optional<double> utilization_pct;  // absent when reported as [N/A]
  // A MIG instance: the id CUDA_VISIBLE_DEVICES gave it ("MIG-<uuid>" or
  // "MIG-GPU-<uuid>/<gi>/<ci>"). CUDA has no index for it, so its trials
  // get this id as it was given.
  std::string mig_id;

  bool is_mig() const { return !mig_id.empty(); }
  // What a trial's CUDA_VISIBLE_DEVICES names this device by. An index is
  // right because trials also get CUDA_DEVICE_ORDER=PCI_BUS_ID.
  std::string visible_id() const { return is_mig() ? mig_id : std::to_string(index); }
  double memory_total_gib() const { return static_cast<double>(memory_total_mib) / 1024.0; }
};

}  // namespace hpo

#endif  // HPO_GPU_GPU_DEVICE_H_
