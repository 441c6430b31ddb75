#!/usr/bin/env python3
"""A private PostgreSQL 15 server for tests: started in a temporary
directory, listening only on a Unix socket there, stopped and deleted at the
end, even when the test fails. A server that cannot start is an error (the
test fails), never a skip.

As a library:
    with PgServer() as pg:
        pg.create_database("s")
        url = pg.url("s")                  # postgresql://postgres@/s?host=/tmp/...
        pg.create_role("alice", "secret")  # password-protected (scram-sha-256)
        pg.restart()                       # pg_ctl stop -m immediate, then start
    with PgServer({"timezone": "Pacific/Kiritimati"}) as pg:  # server settings

As a command (what CTest runs):
    pg_server.py run [--db NAME] -- CMD ARGS...
runs CMD with HPO_TEST_PG_URL naming database NAME (default hpo_test) on a
fresh server, and exits with CMD's status.

initdb and postgres refuse to run as root: as root (CI), they run as the
`postgres` system user through runuser.
"""
import argparse
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile

BIN = "/usr/lib/postgresql/15/bin"


class PgServerError(RuntimeError):
    pass


class PgServer:
    def __init__(self, settings=None):
        """`settings`: server settings on top of the test ones, e.g.
        {"timezone": "Pacific/Kiritimati"} (postgres -c NAME=VALUE)."""
        self.dir = None
        self.settings = dict(settings or {})

    # --- life --------------------------------------------------------------
    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="hpo_pg_")
        try:
            if os.getuid() == 0:
                pw = pwd.getpwnam("postgres")
                os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self._as_server_user([f"{BIN}/initdb", "-D", self.data, "-U", "postgres", "-A", "trust",
                                  "--no-sync", "-E", "UTF8"], "initdb")
            with open(os.path.join(self.data, "pg_hba.conf"), "w") as f:
                # The superuser logs in without a password; every other role needs its own.
                f.write("local all postgres trust\nlocal all all scram-sha-256\n")
            self.start()
        except BaseException:
            self._remove()
            raise
        return self

    def __exit__(self, *exc):
        try:
            self.stop()
        finally:
            self._remove()
        return False

    def start(self):
        # fsync off: a killed server loses nothing the OS holds, and tests
        # never crash the OS. synchronous_commit stays on: with it off, a
        # server killed by restart() would lose commits its clients saw.
        opts = (f"-c listen_addresses='' -c unix_socket_directories={self.dir} -c fsync=off "
                "-c full_page_writes=off -c max_connections=200")
        opts += "".join(f" -c {name}={value}" for name, value in self.settings.items())
        self._as_server_user([f"{BIN}/pg_ctl", "-D", self.data, "-l", self.log, "-o", opts, "-w", "-t", "60",
                              "start"], "pg_ctl start")

    def stop(self, mode="immediate"):
        if self.dir and os.path.exists(os.path.join(self.data, "postmaster.pid")):
            self._as_server_user([f"{BIN}/pg_ctl", "-D", self.data, "-m", mode, "-w", "stop"], "pg_ctl stop")

    def restart(self):
        """Kills the server as a crash would (every connection is lost) and starts it again."""
        self.stop("immediate")
        self.start()

    # --- use ---------------------------------------------------------------
    def url(self, db="hpo_test", user="postgres", password=None, scheme="postgresql"):
        auth = user + (":" + password if password is not None else "")
        return f"{scheme}://{auth}@/{db}?host={self.dir}"

    def sql(self, statement, db="postgres"):
        """Runs SQL as the superuser through psql; returns its output rows as lists."""
        p = subprocess.run([f"{BIN}/psql", "-h", self.dir, "-U", "postgres", "-d", db, "-X", "-A", "-t",
                            "-F", "\t", "-v", "ON_ERROR_STOP=1", "-c", statement],
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raise PgServerError(f"psql {statement!r} on {db}: {p.stderr}")
        return [line.split("\t") for line in p.stdout.splitlines() if line]

    def create_database(self, name, owner="postgres"):
        self.sql(f'CREATE DATABASE "{name}" OWNER "{owner}"')

    def create_role(self, name, password):
        self.sql(f"CREATE ROLE \"{name}\" LOGIN PASSWORD '{password}'")

    # --- inside ------------------------------------------------------------
    @property
    def data(self):
        return os.path.join(self.dir, "data")

    @property
    def log(self):
        return os.path.join(self.dir, "server.log")

    def _as_server_user(self, argv, what):
        if os.getuid() == 0:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        p = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=self.dir,
                           stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            log = open(self.log).read()[-4000:] if os.path.exists(self.log) else ""
            raise PgServerError(f"{what} failed ({p.returncode}) in {self.dir}:\n{p.stdout}{p.stderr}\n"
                                f"server log:\n{log}")

    def _remove(self):
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None


def _stop_on_signal(signum, frame):
    # CTest's timeout sends SIGTERM: leave through __exit__ so the server stops.
    raise SystemExit(128 + signum)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run CMD with HPO_TEST_PG_URL set to a fresh private server's database")
    run.add_argument("--db", default="hpo_test")
    run.add_argument("cmd", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        parser.error("run needs a command after --")
    signal.signal(signal.SIGTERM, _stop_on_signal)
    signal.signal(signal.SIGINT, _stop_on_signal)
    with PgServer() as pg:
        pg.create_database(args.db)
        env = dict(os.environ, HPO_TEST_PG_URL=pg.url(args.db))
        print(f"pg_server: {pg.url(args.db)}", flush=True)
        return subprocess.call(cmd, env=env)


if __name__ == "__main__":
    sys.exit(main())
