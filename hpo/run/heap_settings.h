// How hpo's processes keep their heap: set once at the start of main(), by
// hpo and by the benchmarks that time its run loop's path, so both measure
// the same allocator.
#ifndef HPO_RUN_HEAP_SETTINGS_H_
#define HPO_RUN_HEAP_SETTINGS_H_

#include <malloc.h>

namespace hpo {

inline void keep_freed_heap() {
  // Keep up to 64 MiB of freed heap instead of handing it back at once: a
  // run frees and reallocates the same few hundred kilobytes for every
  // trial, and glibc's default (trim above 128 KiB) returned and re-faulted
  // those pages each time, several times per trial.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  // Setting the trim threshold turns off glibc's adaptive mmap threshold,
  // which would leave every block of 128 KiB or more (TPE's per-kernel
  // arrays past about 16,000 trials) mapped and unmapped on each ask.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

}  // namespace hpo

#endif  // HPO_RUN_HEAP_SETTINGS_H_
