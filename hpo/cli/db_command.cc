// `hpo db init`, `hpo db info` and `hpo db upgrade`: a study database at
// the Optuna schema revision its readers need, what it is at, and its
// upgrade to the newest one hpo writes.
#include <iostream>
#include <memory>

#include "hpo/cli/commands.h"
#include "hpo/cli/exit_codes.h"
#include "hpo/cli/study_locator.h"
#include "hpo/config/config_error.h"
#include "hpo/storage/open_storage.h"
#include "hpo/storage/optuna_revision.h"

namespace hpo {

namespace {

void info(const std::string& storage_flag) {
  auto storage = open_storage(storage_url(storage_flag, std::nullopt), OpenMode::kReadOnly);
  const std::string revision = storage->schema_revision();
  std::cout << storage->url() << ": Optuna schema version " << kOptunaSchemaVersion
            << ", alembic revision " << revision << "\n"
            << revision_readers(revision) << "\n";
}

// Creates the database at `revision`, or leaves one that exists at it;
// refuses one at another revision (a database is never downgraded).
void init(const std::string& storage_flag, const std::string& revision) {
  auto storage =
      open_storage(storage_url(storage_flag, std::nullopt), OpenMode::kCreateIfMissing, revision);
  const std::string found = storage->schema_revision();
  if (found != revision) {
    throw ConfigError(storage->url() + " exists at " + found + ", not " + revision +
                      "; db init leaves an existing database's revision as it is" +
                      (found == kRevisionOptuna30
                           ? " (hpo db upgrade moves it to " + std::string(kNewestRevision) + ")"
                           : ""));
  }
  std::cout << storage->url() << ": alembic revision " << revision << "; "
            << revision_readers(revision) << "\n";
}

void upgrade(const std::string& storage_flag) {
  auto storage = open_storage(storage_url(storage_flag, std::nullopt), OpenMode::kMustExist);
  const std::string from = storage->schema_revision();
  if (!storage->upgrade_schema()) {
    std::cout << storage->url() << " is already at " << from
              << ", the newest revision; nothing to do\n";
    return;
  }
  std::cout << "upgraded " << storage->url() << " from " << from << " to "
            << storage->schema_revision() << " (Optuna 3.2-5.0's schema)\n";
  std::cerr << "hpo db upgrade: note: Optuna older than 3.2 (e.g. Debian's 3.1) can no longer open "
            << storage->url() << "; Optuna 3.2-5.0 and optuna-dashboard can\n";
}

void add_storage_option(CLI::App* cmd, std::string& storage_flag) {
  cmd->add_option("--storage", storage_flag,
                  "Study database URL (default: $HPO_STORAGE, else sqlite:///hpo.db)");
}

}  // namespace

void add_db_command(CLI::App& app, int& exit_code) {
  CLI::App* db = app.add_subcommand(
      "db", "Create, show or upgrade the study database's Optuna schema revision");
  db->require_subcommand(1);
  db->footer(
      "New databases get alembic revision v3.2.0.a, which Optuna 3.2-5.0 open. Databases at\n"
      "v3.0.0.d (Optuna 3.0-3.1's, e.g. Debian 12's 3.1) keep working at it until upgraded;\n"
      "`hpo db init --revision v3.0.0.d` (or a study file's storage_revision: v3.0.0.d) creates\n"
      "one for them.\n\n"
      "Examples:\n"
      "  hpo db init --storage sqlite:///studies.db --revision v3.0.0.d\n"
      "  hpo db info --storage sqlite:///studies.db\n"
      "  hpo db upgrade --storage sqlite:///studies.db");

  auto init_flags = std::make_shared<std::pair<std::string, std::string>>("", kNewestRevision);
  CLI::App* init_cmd =
      db->add_subcommand("init", "Create a study database at the schema revision its Optuna needs");
  add_storage_option(init_cmd, init_flags->first);
  init_cmd
      ->add_option("--revision", init_flags->second,
                   std::string("Alembic revision: ") + kRevisionOptuna30 +
                       " for Optuna 3.0-3.1 (Debian 12's), " + kRevisionOptuna32 +
                       " for Optuna 3.2-5.0 (default)")
      ->check(CLI::IsMember(supported_revisions()));
  init_cmd->footer(
      "Creates the database (a SQLite file, or Optuna's tables in an existing PostgreSQL\n"
      "database) with no study in it; hpo run and Optuna then add studies. A database that\n"
      "exists at that revision is left alone (exit 0); one at another revision is refused.\n\n"
      "Examples:\n"
      "  hpo db init --storage sqlite:///studies.db --revision v3.0.0.d   # for Optuna 3.1\n"
      "  hpo db upgrade --storage sqlite:///studies.db                    # later: for 3.2-5.0");
  init_cmd->callback([init_flags, &exit_code] {
    init(init_flags->first, init_flags->second);
    exit_code = kExitOk;
  });

  auto info_flag = std::make_shared<std::string>();
  CLI::App* info_cmd =
      db->add_subcommand("info", "Print the database's schema revision and who can open it");
  add_storage_option(info_cmd, *info_flag);
  info_cmd->footer("Example:\n  hpo db info --storage sqlite:///studies.db");
  info_cmd->callback([info_flag, &exit_code] {
    info(*info_flag);
    exit_code = kExitOk;
  });

  auto upgrade_flag = std::make_shared<std::string>();
  CLI::App* upgrade_cmd = db->add_subcommand(
      "upgrade",
      "Upgrade the database to the newest schema revision (v3.2.0.a), in one transaction");
  add_storage_option(upgrade_cmd, *upgrade_flag);
  upgrade_cmd->footer(
      "Upgrades v3.0.0.d to v3.2.0.a as Optuna's own migration does (it adds an index on\n"
      "trials.study_id), so that Optuna 3.2-5.0 and optuna-dashboard open the database.\n"
      "Afterwards Optuna older than 3.2 (e.g. Debian's 3.1) refuses it. Trials are kept as\n"
      "they are; a failed upgrade changes nothing; a current database is left alone (exit 0).\n"
      "\n"
      "Examples:\n"
      "  hpo db upgrade --storage sqlite:///studies.db\n"
      "  HPO_STORAGE=sqlite:////data/hpo.db hpo db upgrade");
  upgrade_cmd->callback([upgrade_flag, &exit_code] {
    upgrade(*upgrade_flag);
    exit_code = kExitOk;
  });
}

}  // namespace hpo
