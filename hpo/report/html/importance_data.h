// Section 5's numbers: fANOVA parameter importances of a study's COMPLETE
// trials (hpo/analysis/fanova.h), with the method named for the page.
#ifndef HPO_REPORT_HTML_IMPORTANCE_DATA_H_
#define HPO_REPORT_HTML_IMPORTANCE_DATA_H_

#include <cstddef>
#include <nlohmann/json.hpp>

#include "hpo/report/study_view.h"

namespace hpo {

// {"method", "trials", "params": [{"name", "importance", "trials"}] most
// important first}, or {"why": text} when there is nothing to rank. At
// most `max_trials` trials (evenly spaced) feed each forest. A parameter
// that only some trials hold (a conditional one) is ranked over those
// trials; its "trials" says how many.
nlohmann::json importance_json(const StudyView& view, size_t max_trials);

}  // namespace hpo

#endif  // HPO_REPORT_HTML_IMPORTANCE_DATA_H_
