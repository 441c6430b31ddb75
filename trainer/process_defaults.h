// What a trial changes process-wide, put back before each trial a server
// runs (serve.h), so each starts as a fresh process would. The rest a trial
// sets (seeds, cuDNN and TF32 flags, autocast) it sets afresh every run.
#ifndef HPO_TRAINER_PROCESS_DEFAULTS_H_
#define HPO_TRAINER_PROCESS_DEFAULTS_H_

namespace hpo::trainer {

struct ProcessDefaults {
  int intra_op_threads = 0;  // at::get_num_threads() at server start
};

// The defaults as they are now, at server start.
ProcessDefaults process_defaults();

// Puts back the intra-op thread count (OMP_NUM_THREADS may be set by an
// earlier request only), hands the heap's free memory back to the kernel
// (heap.h), and zeroes the peak memory counters that the final
// line reports (the process's resident high-water mark and, on CUDA, the
// caching allocator's peaks), which would otherwise hold an earlier trial's.
void restore_process_defaults(const ProcessDefaults& defaults);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_PROCESS_DEFAULTS_H_
