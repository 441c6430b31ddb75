// What hpo keeps of libpq's client environment. Heartbeats are kept in the
// server's default time zone, as Optuna's clients keep them (pg_storage.cc):
// hosts whose sessions asked for other zones would disagree by hours on
// which trials are stale. libpq asks for a zone of the client's choosing
// through PGTZ, or through PGOPTIONS' "-c timezone=..."; hpo drops both
// from its environment (so its trainers do not see them either) and keeps
// the rest of PGOPTIONS.
#ifndef HPO_STORAGE_PG_CLIENT_ENV_H_
#define HPO_STORAGE_PG_CLIENT_ENV_H_

#include <string>

namespace hpo {

// `options` (PGOPTIONS' syntax: words split at blanks, a backslash escapes
// the next character) without the settings of the time zone ("-c
// timezone=X", "-ctimezone=X", "--timezone=X", in any case); the other
// words are kept as written.
std::string options_without_time_zone(const std::string& options);

// Unsets PGTZ and removes the time zone from PGOPTIONS (unsetting it when
// nothing is left). Changes the environment only where it sets a zone: after
// the first connection, made before any other thread runs, this changes
// nothing.
void ignore_client_time_zone();

}  // namespace hpo

#endif  // HPO_STORAGE_PG_CLIENT_ENV_H_
