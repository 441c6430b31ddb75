// Untrusted text inside an HTML page: study names, parameter names and a
// trainer's stderr come from users and programs, and must stay text.
#ifndef HPO_REPORT_HTML_JSON_SCRIPT_H_
#define HPO_REPORT_HTML_JSON_SCRIPT_H_

#include <nlohmann/json.hpp>
#include <string>

namespace hpo {

// JSON for a <script type="application/json"> element: "<", ">" and "&"
// become \u003c, \u003e and \u0026, so "</script>" or "<!--" cannot end or
// change the element, and U+2028/U+2029 are escaped for older JS parsers.
// Invalid UTF-8 (a trainer's binary output) becomes U+FFFD.
std::string json_for_script(const nlohmann::json& value);

// Text for HTML element content and attribute values: & < > " ' escaped.
std::string html_escape(const std::string& text);

}  // namespace hpo

#endif  // HPO_REPORT_HTML_JSON_SCRIPT_H_
