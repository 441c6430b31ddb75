#include "trainer/heap.h"

#include <cstring>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace hpo::trainer {

namespace {

// glibc's ceiling for M_MMAP_THRESHOLD on 64-bit: larger blocks (the feature
// store's arrays) keep mappings of their own.
constexpr int kMmapThreshold = 32 << 20;

// The environment variable that already tunes glibc's malloc, if any.
const char* tuned_by(const EnvLookup& getenv) {
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                           "MALLOC_MMAP_MAX_"}) {
    if (const char* v = getenv(name); v && *v) return name;
  }
  if (const char* v = getenv("GLIBC_TUNABLES"); v && std::strstr(v, "glibc.malloc.")) {
    return "GLIBC_TUNABLES";
  }
  return nullptr;
}

}  // namespace

std::string keep_freed_memory(const EnvLookup& getenv) {
#ifdef __GLIBC__
  if (const char* name = tuned_by(getenv)) return std::string("left as ") + name + " sets it";
  // Fixing either threshold stops glibc adapting them; -1 never trims.
  if (mallopt(M_MMAP_THRESHOLD, kMmapThreshold) != 1 || mallopt(M_TRIM_THRESHOLD, -1) != 1) {
    return "glibc refused the settings: freed memory goes back to the kernel";
  }
  return "blocks under 32 MiB from the heap, freed memory kept for reuse";
#else
  (void)getenv;
  return "not glibc: the C library's defaults";
#endif
}

void release_freed_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace hpo::trainer
