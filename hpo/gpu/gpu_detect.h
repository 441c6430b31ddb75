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
extern const char* const kGpuQueryFields;  // "index,name,memory.total,memory.used,utilization.gpu"

// Parses the output of
//   nvidia-smi --query-gpu=index,name,memory.total,memory.used,utilization.gpu
//              --format=csv,noheader,nounits
// one GPU per line, e.g. "0, NVIDIA H100 80GB HBM3, 81559, 0, 0". Spaces
// around fields and blank lines are ignored; "[N/A]" or "[Not Supported]"
// in the used-memory and utilization columns leave those unset. A line that
// does not have the five fields, or a bad number, throws GpuQueryError
// naming the line.
std::vector<GpuDevice> parse_gpu_query(const std::string& text);

// Applies a CUDA_VISIBLE_DEVICES value the way CUDA does: the listed indices
// in order, stopping at the first entry that is not a known index; empty
// (or "-1") hides every GPU. UUID and MIG entries are not understood and end
// the list like any unknown entry.
std::vector<GpuDevice> filter_visible(const std::vector<GpuDevice>& devices, const std::string& visible);

struct GpuDetection {
  std::string tool;               // nvidia-smi's path; empty when not found
  std::vector<GpuDevice> devices; // visible ones only
  std::string problem;            // why nvidia-smi gave nothing, if it failed
  std::string visible_note;       // set when $CUDA_VISIBLE_DEVICES narrowed the list
};

// Runs nvidia-smi (found like trainers are, see resolve_program) with a
// time limit and honours hpo's own $CUDA_VISIBLE_DEVICES. Never throws.
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
