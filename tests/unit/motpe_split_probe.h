// A multi-objective TPE sampler that shows the tests its good/bad split,
// which the sampler keeps to itself (TpeSampler's split() is protected).
#ifndef HPO_TESTS_UNIT_MOTPE_SPLIT_PROBE_H_
#define HPO_TESTS_UNIT_MOTPE_SPLIT_PROBE_H_

#include "samplers/motpe_sampler.h"

namespace hpo {

class SplitProbe : public MotpeSampler {
 public:
  using MotpeSampler::MotpeSampler;
  TpeSplit probe() { return split(); }
};

}  // namespace hpo

#endif  // HPO_TESTS_UNIT_MOTPE_SPLIT_PROBE_H_
