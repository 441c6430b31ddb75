#include "hpo/storage/optuna_revision.h"

#include <algorithm>
#include <iterator>

namespace hpo {

namespace {

// Every revision Optuna has released, oldest first (Optuna 5.0's list).
const char* const kKnownRevisions[] = {
    "v0.9.0.a", "v1.2.0.a", "v1.3.0.a", "v2.4.0.a",        "v2.6.0.a",
    "v3.0.0.a", "v3.0.0.b", "v3.0.0.c", kRevisionOptuna30, kRevisionOptuna32,
};

bool is_known_revision(const std::string& revision) {
  return std::find(std::begin(kKnownRevisions), std::end(kKnownRevisions), revision) !=
         std::end(kKnownRevisions);
}

}  // namespace

bool is_supported_revision(const std::string& revision) {
  return revision == kRevisionOptuna30 || revision == kRevisionOptuna32;
}

std::string unsupported_revision_message(const std::string& revision) {
  const std::string supported = std::string("hpo opens ") + kRevisionOptuna30 +
                                " (Optuna 3.0-3.1) and " + kRevisionOptuna32 + " (Optuna 3.2-5.0)";
  if (is_known_revision(revision)) {
    // Older revisions need Optuna's data migrations, which hpo does not redo.
    return "alembic revision " + revision + " is an older Optuna's schema; " + supported +
           ". Upgrade it with Optuna first (optuna storage upgrade --storage URL), "
           "then hpo opens it";
  }
  return "alembic revision " + revision + " is unknown to hpo (a newer Optuna's schema?); " +
         supported;
}

std::vector<std::string> upgrade_statements(const std::string& revision) {
  if (revision == kRevisionOptuna30) {
    // Optuna's migration v3.2.0.a names this index trials_study_id_key;
    // a database created at v3.2.0.a has it as ix_trials_study_id instead.
    return {"CREATE INDEX trials_study_id_key ON trials (study_id)"};
  }
  return {};
}

std::string revision_readers(const std::string& revision) {
  if (revision == kRevisionOptuna30) {
    return std::string(
               "Optuna 3.0-3.1 open it; Optuna 3.2 and later (and optuna-dashboard) "
               "refuse it until it is upgraded: hpo db upgrade brings it to ") +
           kNewestRevision;
  }
  return "Optuna 3.2-5.0 and optuna-dashboard open it; Optuna 3.1 and older refuse it";
}

}  // namespace hpo
