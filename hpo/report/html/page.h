// The report as one self-contained HTML file: Plotly.js, the page's script
// and style and the study's data inlined; it makes no network request.
#ifndef HPO_REPORT_HTML_PAGE_H_
#define HPO_REPORT_HTML_PAGE_H_

#include <nlohmann/json.hpp>
#include <string>

namespace hpo {

// `data` is report_data()'s document; `generated` says when and from what
// database the page was made (shown in its header).
std::string report_page(const nlohmann::json& data, const std::string& generated);

}  // namespace hpo

#endif  // HPO_REPORT_HTML_PAGE_H_
