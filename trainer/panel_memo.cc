#include "trainer/panel_memo.h"

namespace hpo::trainer {

namespace {

struct Memo {
  bool enabled = false;
  std::string id;
  std::optional<PanelData> data;
};

Memo& memo() {
  static Memo m;
  return m;
}

}  // namespace

void set_panel_memo(bool on) {
  Memo& m = memo();
  m.enabled = on;
  if (!on) m.data.reset();
}

bool panel_memo_enabled() { return memo().enabled; }

std::optional<PanelData> recall_panel_data(const std::string& id) {
  const Memo& m = memo();
  if (!m.enabled || !m.data || m.id != id) return std::nullopt;
  return m.data;
}

void remember_panel_data(const std::string& id, const PanelData& data) {
  Memo& m = memo();
  if (!m.enabled) return;
  m.data.reset();  // free the old entry before copying the new one
  m.id = id;
  m.data = data;
}

}  // namespace hpo::trainer
