// The panel data last loaded, kept in memory by a server (serve.h) so that
// its next trial on the same data skips the feature cache's file. Off unless
// enabled: a process that runs one trial would only hold a second copy.
//
// Entries are named by the feature cache's key (feature_cache.h) and the
// cache directory, so other data, or a rebuilt trainer, never matches. Only
// the last entry is kept: a server serves one study's slot, whose trials
// almost always share their data.
#ifndef HPO_TRAINER_PANEL_MEMO_H_
#define HPO_TRAINER_PANEL_MEMO_H_

#include <optional>
#include <string>

#include "trainer/feature_cache.h"

namespace hpo::trainer {

// On in a server; off (the default) also forgets what was kept.
void set_panel_memo(bool on);

// Whether it is on: other memos of a server's trials follow it (dataset.cc).
bool panel_memo_enabled();

// A copy of the data remembered under `id`, if it is the last remembered.
std::optional<PanelData> recall_panel_data(const std::string& id);

// Keeps a copy of `data` under `id` (in place of the last), when enabled.
void remember_panel_data(const std::string& id, const PanelData& data);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_PANEL_MEMO_H_
