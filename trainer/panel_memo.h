// The panel data last loaded, kept in memory by a server (serve.h) so that
// its next trial on the same data skips the feature cache's file. Off unless
// enabled: a process that runs one trial would only hold a second copy.
//
// Entries are named by the feature cache's key (feature_cache.h) and the
// cache directory, so other data, or a rebuilt trainer, never matches. Only
// the last entry is kept: a server serves one study's slot, whose trials
// almost always share their data; a trial on other data drops it before
// loading its own.
//
// The data is lent, not copied: a trial takes it and gives it back when it
// is done (dataset.h's give_back), as no trial changes its data. Copying the
// default panel's 70 MB cost each served trial 0.05 s. A trial that ends by
// an exception gives nothing back, and the next one reads the cache file.
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

// Whether it holds panel data now (what a server keeps between trials).
bool panel_memo_holds_data();

// The data kept under `id`, if it is the last given back: moved out, so
// that the memo holds nothing until it is given back. Data kept under
// another id is dropped: a trial on other data never holds two panels.
std::optional<PanelData> take_panel_data(const std::string& id);

// Keeps `data` under `id`, in place of the last, when enabled.
void give_back_panel_data(const std::string& id, PanelData data);

}  // namespace hpo::trainer

#endif  // HPO_TRAINER_PANEL_MEMO_H_
