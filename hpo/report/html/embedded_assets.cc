#include "hpo/report/html/embedded_assets.h"

// Each file becomes a read-only byte range between two symbols. .incbin
// keeps the 4.8 MB of Plotly.js out of the C++ compiler, which chokes on
// string literals that large. The hash (unused at run time) is here so
// that ccache sees a new Plotly.js as a new source.
#define HPO_EMBED(name, path)               \
  __asm__(                                  \
      ".section .rodata\n"                  \
      ".global hpo_embed_" #name            \
      "\n"                                  \
      "hpo_embed_" #name                    \
      ":\n"                                 \
      ".incbin \"" path                     \
      "\"\n"                                \
      ".global hpo_embed_" #name            \
      "_end\n"                              \
      "hpo_embed_" #name                    \
      "_end:\n"                             \
      ".previous\n");                       \
  extern "C" const char hpo_embed_##name[]; \
  extern "C" const char hpo_embed_##name##_end[];

HPO_EMBED(plotly, HPO_PLOTLY_JS_PATH)
HPO_EMBED(report_js, HPO_REPORT_JS_PATH)
HPO_EMBED(report_css, HPO_REPORT_CSS_PATH)

namespace hpo {

namespace {
[[maybe_unused]] constexpr const char* kPlotlySha256 = HPO_PLOTLY_SHA;

std::string_view between(const char* begin, const char* end) {
  return std::string_view(begin, static_cast<size_t>(end - begin));
}
}  // namespace

std::string_view plotly_js() { return between(hpo_embed_plotly, hpo_embed_plotly_end); }
std::string_view report_js() { return between(hpo_embed_report_js, hpo_embed_report_js_end); }
std::string_view report_css() { return between(hpo_embed_report_css, hpo_embed_report_css_end); }

}  // namespace hpo
