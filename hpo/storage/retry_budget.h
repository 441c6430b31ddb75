// How long a PostgreSQL call keeps retrying before it fails: a server that
// restarts or fails over, or that is full (too many clients), costs a pause
// within this budget, not the run. A setting, since failovers differ: a
// Patroni or cloud failover takes some 30 s, a crash restart a few.
#ifndef HPO_STORAGE_RETRY_BUDGET_H_
#define HPO_STORAGE_RETRY_BUDGET_H_

#include <chrono>
#include <string>

namespace hpo {

// The default: long enough for a typical failover (30 s) with room to spare.
constexpr std::chrono::seconds kDefaultRetryBudget{60};

// `text` as a budget: whole seconds, 0 (no retries) up to a day. Throws
// StorageError naming HPO_DB_RETRY_SECONDS for anything else.
std::chrono::seconds parse_retry_budget(const std::string& text);

// $HPO_DB_RETRY_SECONDS, else kDefaultRetryBudget.
std::chrono::seconds retry_budget();

}  // namespace hpo

#endif  // HPO_STORAGE_RETRY_BUDGET_H_
