// The files a report page inlines, built into the binary: Plotly.js (from
// npm, MIT license) and the page's own script and style (hpo/report/web/).
#ifndef HPO_REPORT_HTML_EMBEDDED_ASSETS_H_
#define HPO_REPORT_HTML_EMBEDDED_ASSETS_H_

#include <string_view>

namespace hpo {

std::string_view plotly_js();
std::string_view report_js();
std::string_view report_css();

}  // namespace hpo

#endif  // HPO_REPORT_HTML_EMBEDDED_ASSETS_H_
