"""Debian's Optuna 3.1, made to treat the schema as Optuna 3.2 up to 5.0 do.

Import this module before `optuna.load_study` or `optuna.create_study` (Debian's
/usr/bin/python3) to open databases at alembic revision v3.2.0.a, which hpo
writes and which plain Optuna 3.1 refuses ("no longer compatible with the
table schema"). No newer Optuna can be installed here, so the tests stand in
for one:

- Optuna's alembic scripts are copied to a temporary directory together with
  Optuna 5.0's own migration v3.2.0.a_.py (from the reference copy beside the
  source tree, ../shared/reference/optuna-5.0), and Optuna is pointed at that
  directory. Its head revision is then v3.2.0.a, and its unchanged
  check_table_schema_compatibility accepts exactly that revision, as 3.2+ do:
  a v3.0.0.d database is refused until `RDBStorage(...).upgrade()`, which runs
  the real migration.
- TrialModel gets the index that models.py declares since 3.2
  (`index=True` on trials.study_id, named ix_trials_study_id), so that new
  databases get it as 3.2+ create them.

Optuna 3.2's schema differs from 3.1's only by that index, so the stand-in is
faithful about the schema; test_schema.py's schema_matches_optuna_5 checks
that a database this module creates equals one made from the reference
models.py. Its limits: everything else is still Optuna 3.1 (its API, its
samplers, and version_info.library_version = "3.1.0" in databases it
creates); it proves that an Optuna at v3.2.0.a opens the data, not that any
newer Optuna's Python API reads it alike.
"""
import atexit
import os
import shutil
import tempfile

import sqlalchemy
import optuna
from optuna.storages._rdb import models
from optuna.storages._rdb import storage as rdb_storage

HEAD = "v3.2.0.a"
_SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def reference_dir():
    """Optuna 5.0's reference files: ../shared/reference/optuna-5.0 beside the source tree."""
    path = os.path.join(os.path.dirname(_SOURCE_DIR), "shared", "reference", "optuna-5.0")
    if not os.path.isfile(os.path.join(path, "v3.2.0.a_.py")):
        raise RuntimeError(f"Optuna 5.0's reference files are missing: no {path}/v3.2.0.a_.py "
                           "(CI clones the repository with ../shared beside it)")
    return path


def _make_alembic_dir():
    if not optuna.__version__.startswith("3.1"):
        raise RuntimeError(f"optuna_current stands in for Optuna 3.2+ on Debian's 3.1, "
                           f"not on Optuna {optuna.__version__}")
    tmp = tempfile.mkdtemp(prefix="hpo_optuna_current_")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    ours = os.path.join(os.path.dirname(rdb_storage.__file__), "alembic")
    alembic = os.path.join(tmp, "alembic")
    shutil.copytree(ours, alembic, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(reference_dir(), "v3.2.0.a_.py"), os.path.join(alembic, "versions"))
    return alembic


ALEMBIC_DIR = _make_alembic_dir()


def _create_alembic_config(self):
    config = _original_create_alembic_config(self)
    config.set_main_option("script_location", rdb_storage.escape_alembic_config_value(ALEMBIC_DIR))
    return config


_original_create_alembic_config = rdb_storage._VersionManager._create_alembic_config
rdb_storage._VersionManager._create_alembic_config = _create_alembic_config
sqlalchemy.Index("ix_trials_study_id", models.TrialModel.__table__.c.study_id)

