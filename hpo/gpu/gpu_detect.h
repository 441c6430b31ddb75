// The GPUs of this machine, from nvidia-smi. No nvidia-smi (or a driver
// that does not answer) means no GPUs: trials then run on CPU slots.
#ifndef HPO_GPU_GPU_DETECT_H_
#define HPO_GPU_GPU_DETECT_H_

#include <stdexcept>
#include <string>
#include <vector>

#include "hpo/gpu/gpu_device.h"

namespace hpo {

class GpuQueryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The query hpo sends, and the columns parse_gpu_query expects, in order.
extern const char* const
    kGpuQueryFields;  // "index,name,memory.total,memory.used,utilization.gpu,uuid"

// Parses the output of
//   nvidia-smi --query-gpu=index,name,memory.total,memory.used,utilization.gpu,uuid
//              --format=csv,noheader,nounits
// one GPU per line, e.g. "0, NVIDIA H100 80GB HBM3, 81559, 0, 0, GPU-8f2c...".
// Spaces around fields and blank lines are ignored; "[N/A]" or
// "[Not Supported]" in the used-memory and utilization columns leave those
// unset. A line that does not have the six fields, or a bad number, throws
// GpuQueryError naming the line.
std::vector<GpuDevice> parse_gpu_query(const std::string& text);

// A MIG instance as `nvidia-smi -L` lists it under its GPU:
//   GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-8f2c...)
//     MIG 1g.10gb     Device  0: (UUID: MIG-5f1e...)
struct MigInstance {
  int gpu = 0;  // the GPU's index
  std::string profile;  // "1g.10gb"
  std::string uuid;  // "MIG-5f1e..." (old drivers: "MIG-GPU-<uuid>/<gi>/<ci>")
};

// The MIG instances in `nvidia-smi -L` output; other lines are skipped.
std::vector<MigInstance> parse_mig_list(const std::string& text);

struct VisibleDevices {
  std::vector<GpuDevice> devices;
  std::vector<std::string> warnings;  // entries that name no device, for the user
};

// Applies a CUDA_VISIBLE_DEVICES value the way CUDA does: the listed
// devices in order, each an index, a GPU UUID ("GPU-8f2c4b1a-...") or a
// prefix of one that names a single GPU, or a MIG instance ("MIG-<uuid>",
// from `migs`, or the older "MIG-GPU-<uuid>/<gi>/<ci>"). A MIG instance is a
// device of its own, with its slice's memory when `migs` lists it. The list
// stops at the first entry that names no device, with a warning naming it;
// empty (or "-1") hides every GPU.
VisibleDevices filter_visible(const std::vector<GpuDevice>& devices,
                              const std::vector<MigInstance>& migs, const std::string& visible);

struct GpuDetection {
  std::string tool;  // nvidia-smi's path; empty when not found
  std::vector<GpuDevice> devices;  // visible ones only
  std::string problem;  // why nvidia-smi gave nothing, if it failed
  std::string visible_note;  // set when $CUDA_VISIBLE_DEVICES narrowed the list
  std::vector<std::string> warnings;  // $CUDA_VISIBLE_DEVICES entries that name no device
};

// Runs nvidia-smi (found like trainers are, see resolve_program) with a
// time limit and honours hpo's own $CUDA_VISIBLE_DEVICES (asking
// `nvidia-smi -L` for MIG instances when it names one). Never throws.
GpuDetection detect_gpus(double timeout_s = 10);

// Just the devices, for the utilization sampler: no visibility filter (it
// asks by nvidia-smi index), empty on any failure.
std::vector<GpuDevice> query_gpus(double timeout_s = 10);

// The driver version nvidia-smi reports, or "" if it cannot say.
std::string driver_version(double timeout_s = 10);

// CPU cores this process may run on (its affinity mask), at least 1.
int available_cpu_cores();

}  // namespace hpo

#endif  // HPO_GPU_GPU_DETECT_H_
