// Warm start: how the models read prior observations, the COMPLETE trials
// of earlier studies (an earlier stage of a staged sweep: fewer epochs, a
// smaller budget) told with Sampler::tell_prior.
//
// The fidelity rule. An earlier stage measures the same function at
// another fidelity: its values sit at another level and spread (a 5-epoch
// RankIC is lower and noisier than a 20-epoch one), but where it is good
// tends to be where the later stage is good. So each source's values, and
// this study's own, are standardized on their own (mean 0, standard
// deviation 1, per source): only where each stage ranks its points
// carries over, never its level. The GP sees every point on that common
// scale, and seeks improvement over this study's best (an earlier stage's
// best is on another scale); TPE splits them together and down-weights the
// prior ones in its density estimates (kPriorTpeWeight). A warm-started
// study has no random startup of its own: the earlier stage already spread
// its points over the space, so the model starts with the first trial.
// Prior observations are never counted as this study's trials.
#ifndef HPO_SAMPLERS_PRIOR_OBSERVATIONS_H_
#define HPO_SAMPLERS_PRIOR_OBSERVATIONS_H_

#include <map>
#include <vector>

#include "samplers/trial_view.h"

namespace hpo {

// The weight of a prior observation in TPE's Parzen estimators, against 1
// for one of this study's trials.
inline constexpr double kPriorTpeWeight = 0.5;

// `history` with `prior` merged in, prior trials numbered -1, -2, ...
// (below every trial of this study), and every COMPLETE value standardized
// within its source as the fidelity rule above says. Other states keep
// their values (TPE and the GP rank PRUNED and FAIL trials by state).
std::map<int, TrialView> with_prior(const std::map<int, TrialView>& history,
                                    const std::vector<TrialView>& prior);

}  // namespace hpo

#endif  // HPO_SAMPLERS_PRIOR_OBSERVATIONS_H_
