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

bool panel_memo_holds_data() { return memo().data.has_value(); }

std::optional<PanelData> take_panel_data(const std::string& id) {
  Memo& m = memo();
  if (!m.enabled || !m.data) return std::nullopt;
  if (m.id != id) {
    // A trial on other data: the kept panel's memory goes now, before that
    // trial builds or reads its own, not when it gives its own back.
    m.data.reset();
    return std::nullopt;
  }
  std::optional<PanelData> taken = std::move(m.data);
  m.data.reset();
  return taken;
}

void give_back_panel_data(const std::string& id, PanelData data) {
  Memo& m = memo();
  if (!m.enabled) return;
  m.id = id;
  m.data = std::move(data);
}

}  // namespace hpo::trainer
