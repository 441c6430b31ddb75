// One GPU as nvidia-smi reports it. A plain value shared by detection, the
// slot plan, profile selection and the utilization sampler.
#ifndef HPO_GPU_GPU_DEVICE_H_
#define HPO_GPU_GPU_DEVICE_H_

#include <cstdint>
#include <optional>
#include <string>

namespace hpo {

struct GpuDevice {
  int index = 0;                  // nvidia-smi's index (PCI bus order)
  std::string name;               // "NVIDIA H100 80GB HBM3"
  int64_t memory_total_mib = 0;
  std::optional<int64_t> memory_used_mib;   // absent when reported as [N/A]
  std::optional<double> utilization_pct;    // absent when reported as [N/A]

  double memory_total_gib() const { return static_cast<double>(memory_total_mib) / 1024.0; }
};

}  // namespace hpo

#endif  // HPO_GPU_GPU_DEVICE_H_
