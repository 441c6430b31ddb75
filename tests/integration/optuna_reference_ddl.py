"""Optuna 5.0's schema DDL, made from its own models.py by SQLAlchemy.

The reference models.py lives beside the source tree, in
../shared/reference/optuna-5.0 (see optuna_current.reference_dir). It is
imported as it is under Debian's SQLAlchemy; the two optuna modules it
imports (StudyDirection, TrialState) come from Debian's Optuna 3.1, which
has them unchanged. Run with Debian's /usr/bin/python3.

    reference_ddl("sqlite")       # the statements create_all runs, in order
    reference_ddl("postgresql")   # the same for PostgreSQL (CREATE TYPE included)

From a shell, for reading: optuna_reference_ddl.py postgresql
"""
import importlib.util
import os
import sys

import sqlalchemy
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

import optuna_current

HEAD = "v3.2.0.a"


def load_models():
    """The reference models.py as a module of its own (not optuna's models)."""
    path = os.path.join(optuna_current.reference_dir(), "models.py")
    spec = importlib.util.spec_from_file_location("optuna_5_0_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _alembic_version_table(dialect):
    # The table alembic itself creates to hold the revision (alembic_version
    # with its primary key alembic_version_pkc).
    return MigrationContext.configure(dialect_name=dialect)._version


def reference_ddl(dialect):
    """The DDL statements that create Optuna 5.0's schema in `dialect`
    ("sqlite" or "postgresql"), in the order Optuna runs them: its models'
    create_all, then alembic's version table. Whitespace as SQLAlchemy
    emits it, stripped at both ends."""
    statements = []
    engine = sqlalchemy.create_mock_engine(
        f"{dialect}://", lambda sql, *a, **kw: statements.append(str(sql.compile(dialect=engine.dialect))))
    load_models().BaseModel.metadata.create_all(engine, checkfirst=False)
    statements.append(str(sqlalchemy.schema.CreateTable(_alembic_version_table(dialect)).compile(
        dialect=engine.dialect)))
    return [s.strip() for s in statements]


def create_reference_sqlite(path):
    """A new SQLite database as Optuna 5.0's RDBStorage makes it: create_all
    of the reference models, the version_info row, alembic stamped at head."""
    models = load_models()
    engine = sqlalchemy.create_engine("sqlite:///" + path)
    models.BaseModel.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(models.VersionInfoModel.__table__.insert().values(
            version_info_id=1, schema_version=models.SCHEMA_VERSION, library_version="5.0.0"))
        MigrationContext.configure(conn).stamp(ScriptDirectory(optuna_current.ALEMBIC_DIR), HEAD)
    engine.dispose()


if __name__ == "__main__":
    for statement in reference_ddl(sys.argv[1] if len(sys.argv) > 1 else "postgresql"):
        print(statement + ";\n")
