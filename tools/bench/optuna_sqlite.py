"""Optuna's RDBStorage on SQLite as the benchmarks' peers run it: `default`,
as a user gets it from a storage URL (the rollback journal, synchronous=FULL,
pysqlite's 5 s busy timeout, and with SQLAlchemy 1.4 a new connection for
every storage call), or on hpo's settings (hpo/storage/sqlite_storage.cc):
`hpo`, WAL, synchronous=NORMAL, a 10 s busy timeout and connections kept open
in a pool, as hpo keeps its own; `hpo-unpooled`, the same PRAGMAs on a new
connection for every call (WAL then gains little over the default: each
connection's close, being the last one, checkpoints the WAL into the
database). Import under the Optuna being measured."""
import optuna
import sqlalchemy
from sqlalchemy import event
from sqlalchemy.pool import QueuePool

# What hpo sets; tools/bench/orchestrator/run checks them against hpo's source.
HPO_JOURNAL_MODE, HPO_SYNCHRONOUS, HPO_BUSY_TIMEOUT_MS = "wal", 1, 10000  # 1 is NORMAL
MODES = ("default", "hpo", "hpo-unpooled")


class Storage:
    """An RDBStorage at `db` in `mode`, counting the connections it opens."""

    def __init__(self, db, mode, jobs):
        if mode not in MODES:
            raise SystemExit(f"optuna_sqlite: mode '{mode}' is not one of {', '.join(MODES)}")
        self.hpo_settings = mode.startswith("hpo")
        self.opened = 0

        # On the Engine class, because RDBStorage connects while it builds its
        # engine, before a listener could be attached to that engine.
        @event.listens_for(sqlalchemy.engine.Engine, "connect")
        def on_connect(dbapi_connection, _record):
            self.opened += 1
            if self.hpo_settings:
                dbapi_connection.execute(f"PRAGMA journal_mode={HPO_JOURNAL_MODE}")
                dbapi_connection.execute(f"PRAGMA synchronous={HPO_SYNCHRONOUS}")

        engine_kwargs = {}
        if self.hpo_settings:  # pysqlite's timeout is SQLite's busy timeout
            engine_kwargs = {"connect_args": {"timeout": HPO_BUSY_TIMEOUT_MS / 1000}}
        if mode == "hpo":
            # A pooled connection may be used by another thread than the one that
            # opened it, one at a time. Optuna's startup holds two sessions at once.
            engine_kwargs["connect_args"]["check_same_thread"] = False
            engine_kwargs.update(poolclass=QueuePool, pool_size=jobs + 1, max_overflow=jobs + 1)
        self.rdb = optuna.storages.RDBStorage(f"sqlite:///{db}", engine_kwargs=engine_kwargs)

    def settings(self):
        """The SQLite settings read back through the run's engine (a pooled
        connection of the run, or a new one opened like every other); exits
        when hpo's were asked for and others ran."""
        with self.rdb.engine.connect() as c:
            got = {k: c.exec_driver_sql(f"PRAGMA {k}").scalar()
                   for k in ("journal_mode", "synchronous", "busy_timeout")}
        want = {"journal_mode": HPO_JOURNAL_MODE, "synchronous": HPO_SYNCHRONOUS,
                "busy_timeout": HPO_BUSY_TIMEOUT_MS}
        if self.hpo_settings and got != want:
            raise SystemExit(f"optuna_sqlite: asked for hpo's settings, ran with {got}")
        return got
