// Fewer trials for a chart that would be unreadable (or slow) with all of
// them: the best ones, which users look for, plus evenly spaced others, so
// the shape of the study stays visible. The page says when this happened.
#ifndef HPO_REPORT_HTML_DOWNSAMPLE_H_
#define HPO_REPORT_HTML_DOWNSAMPLE_H_

#include <vector>

#include "hpo/storage/storage.h"

namespace hpo {

// At most `limit` of `trials` (given in number order), in number order:
// the best limit/2 by value (trials without one rank last), then others
// at even spacing. All of them when there are no more than `limit`.
std::vector<const TrialRecord*> downsample(const std::vector<const TrialRecord*>& trials,
                                           Direction direction, size_t limit);

}  // namespace hpo

#endif  // HPO_REPORT_HTML_DOWNSAMPLE_H_
