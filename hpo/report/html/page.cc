#include "hpo/report/html/page.h"

#include "hpo/report/html/embedded_assets.h"
#include "hpo/report/html/json_script.h"

namespace hpo {

namespace {

// The sections, in page order: id and heading. report.js fills each one.
constexpr const char* kSections[][2] = {
    {"history", "1. Optimization history"},
    {"curves", "2. Learning curves"},
    {"parallel", "3. Parallel coordinates"},
    {"slice", "4. Slice plots"},
    {"importance", "5. Parameter importance"},
    {"metrics", "6. Recorded metrics against each other"},
    {"timeline", "7. Timeline"},
    {"failures", "8. Failures"},
    {"best", "9. Best trial's config"},
    {"overfitting", "10. Overfitting: Deflated Sharpe Ratio and PBO"},
    {"pareto", "11. Pareto front and hypervolume"},  // removed by report.js for one objective
};

}  // namespace

std::string report_page(const nlohmann::json& data, const std::string& generated) {
  const std::string study = html_escape(data.value("study", ""));
  std::string page;
  page.reserve(plotly_js().size() + (1 << 20));
  page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // No request may leave the page: only inline scripts, styles and images.
  page +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; "
      "font-src data:; connect-src 'none'\">\n";
  page += "<title>hpo report: " + study + "</title>\n<style>\n";
  page += report_css();
  page += "</style>\n</head>\n<body>\n<header>\n<h1>Study <span class=\"study-name\">" + study +
          "</span></h1>\n";
  page += "<p class=\"generated\">" + html_escape(generated) +
          "</p>\n<p id=\"summary\"></p>\n</header>\n";
  for (const auto& [id, title] : kSections) {
    page += std::string("<section id=\"") + id + "\" data-section=\"" + id + "\">\n<h2>" + title +
            "</h2>\n<div class=\"body\"></div>\n</section>\n";
  }
  page += "<footer>Charts by Plotly.js (MIT license), embedded in this file.</footer>\n";
  page += "<script type=\"application/json\" id=\"hpo-data\">";
  page += json_for_script(data);
  page += "</script>\n<script>\n";
  page += plotly_js();
  page += "\n</script>\n<script>\n";
  page += report_js();
  page += "\n</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace hpo
