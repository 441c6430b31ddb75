// How the trainer's process uses glibc's heap.
//
// glibc gives a block of 128 KiB or more a mapping of its own, and hands the
// heap's free top back to the kernel once it passes a threshold (both adapt
// as blocks are freed, up to 32 MiB). A training step allocates and frees
// activations of a few MiB many times a second, so the kernel mapped, zeroed
// and faulted in the same pages again and again: about 340,000 page faults
// in a 2-epoch trial of the default TCN. LibTorch's CPU allocator keeps no
// cache of its own (PyTorch's CPU tuning advice is another malloc).
#ifndef HPO_TRAINER_HEAP_H_
#define HPO_TRAINER_HEAP_H_

#include <string>

#include "trainer/runtime_settings.h"

namespace hpo::trainer {

// Makes glibc serve blocks under 32 MiB from the heap and keep the heap's
// freed memory mapped for reuse. Returns what it did, for the settings log.
// It changes nothing where the environment tunes glibc's malloc itself
// (MALLOC_*_ variables, or glibc.malloc in GLIBC_TUNABLES), or where the C
// library is not glibc.
std::string keep_freed_memory(const EnvLookup& getenv);

// Hands the heap's free memory back to the kernel. A server does this
// between trials, so that no trial holds an earlier one's peak.
void release_freed_memory();

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_HEAP_H_
