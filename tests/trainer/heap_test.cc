#include "trainer/heap.h"

#include <doctest/doctest.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "tests/trainer/test_util.h"

namespace hpo::trainer {
namespace {

long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

constexpr size_t kBlocks = 64, kBlockBytes = 1 << 20, kPage = 4096;

// Allocates kBlocks blocks of 1 MiB, writes every page, frees them all, as a
// training step does with its activations; returns the page faults it took.
long allocation_round() {
  const long before = minor_faults();
  std::vector<volatile char*> blocks;
  for (size_t b = 0; b < kBlocks; ++b) {
    void* block = std::malloc(kBlockBytes);
    REQUIRE(block != nullptr);
    auto* p = static_cast<volatile char*>(block);
    for (size_t i = 0; i < kBlockBytes; i += kPage) p[i] = char(i);
    blocks.push_back(p);
  }
  for (volatile char* p : blocks) std::free(const_cast<char*>(p));
  return minor_faults() - before;
}

TEST_CASE("heap: the environment's own malloc tuning is left alone") {
  const auto setting = [](std::map<std::string, std::string> env) {
    return keep_freed_memory(testing::env_lookup(env));
  };
  CHECK(setting({{"MALLOC_TRIM_THRESHOLD_", "4096"}}) == "left as MALLOC_TRIM_THRESHOLD_ sets it");
  CHECK(setting({{"GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=65536"}}) ==
        "left as GLIBC_TUNABLES sets it");
  // Tunables of other parts of glibc, or empty variables, do not count.
  CHECK(setting({{"GLIBC_TUNABLES", "glibc.rtld.nns=2"}, {"MALLOC_TOP_PAD_", ""}}) ==
        "blocks under 32 MiB from the heap, freed memory kept for reuse");
}

// The page faults that writing a round's worth of fresh memory takes here:
// one a page, or fewer where the kernel backs it with huge pages.
long fresh_round_faults() {
  const size_t bytes = kBlocks * kBlockBytes;
  void* region = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(region != MAP_FAILED);
  const long before = minor_faults();
  auto* p = static_cast<volatile char*>(region);
  for (size_t i = 0; i < bytes; i += kPage) p[i] = char(i);
  const long faults = minor_faults() - before;
  munmap(region, bytes);
  return faults;
}

TEST_CASE("heap: freed memory is reused without page faults, and released between trials") {
  const long round_pages = fresh_round_faults();
  REQUIRE(round_pages > 0);
  const std::map<std::string, std::string> none;
  REQUIRE(keep_freed_memory(testing::env_lookup(none)) ==
          "blocks under 32 MiB from the heap, freed memory kept for reuse");
  allocation_round();  // maps the heap
  long later = 0;
  for (int r = 0; r < 3; ++r) later += allocation_round();
  // glibc's defaults fault in most of every round again (its free top goes
  // back to the kernel, or each block gets a mapping of its own).
  CHECK_MESSAGE(later < round_pages / 10, later, " page faults in 3 rounds, against ", round_pages,
                " for fresh memory a round");
  // What a server does between trials: the next round maps its pages anew.
  release_freed_memory();
  CHECK(allocation_round() > round_pages / 2);
}

}  // namespace
}  // namespace hpo::trainer
