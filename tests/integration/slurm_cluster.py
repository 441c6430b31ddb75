"""A private single-node Slurm cluster for tests: munged, slurmctld and slurmd
on loopback ports, all state in one temporary directory.

    with SlurmCluster() as cluster:
        subprocess.run(["sbatch", ...], env=cluster.env)

Nothing is shared with a system Slurm or munge: the key, the socket, the
config and the spool are the fixture's own, and every daemon it started is
killed on exit, also when the test fails. A cluster that does not come up
raises SlurmUnavailable with the daemons' logs: the test fails, never skips.
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time


class SlurmUnavailable(AssertionError):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path, lines=30):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return "(no log)\n"


class SlurmCluster:
    def __init__(self, startup_timeout=60):
        self.startup_timeout = startup_timeout
        self.procs = []
        self.dir = None

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="hpo_slurm_")
        try:
            self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
            proc.wait()
        self._stop_munged()
        self._kill_job_leftovers()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def path(self, *names):
        return os.path.join(self.dir, *names)

    # --- start-up ------------------------------------------------------------

    def _start(self):
        self.host = socket.gethostname()
        for d in ("munge", "state", "spool"):
            os.makedirs(self.path(d), mode=0o700)
        self._start_munged()
        self.conf = self.path("slurm.conf")
        with open(self.conf, "w") as f:
            f.write(self._config())
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self._daemon("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf])
        self._daemon("slurmd", ["slurmd", "-D", "-f", self.conf, "-N", self.host])
        self._wait_idle()

    def _start_munged(self):
        key = self.path("munge", "munge.key")
        r = subprocess.run(["mungekey", "--create", "--keyfile", key], capture_output=True, text=True)
        if r.returncode != 0:
            raise SlurmUnavailable(f"mungekey failed: {r.stderr}")
        self.munge_socket = self.path("munge", "munge.socket")
        self.munge_pidfile = self.path("munge", "munged.pid")
        r = subprocess.run(["munged", "--force", f"--socket={self.munge_socket}", f"--key-file={key}",
                            f"--pid-file={self.munge_pidfile}", f"--log-file={self.path('munge', 'munged.log')}",
                            f"--seed-file={self.path('munge', 'munged.seed')}"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SlurmUnavailable(f"munged did not start: {r.stderr}{tail(self.path('munge', 'munged.log'))}")

    def _stop_munged(self):
        # munged daemonizes; its pid file names the daemon we started.
        try:
            pid = int(open(self.munge_pidfile).read())
        except (OSError, ValueError, AttributeError):
            return
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.time() + 5
        while os.path.exists(f"/proc/{pid}") and time.time() < deadline:
            time.sleep(0.05)

    def _config(self):
        cpus = os.cpu_count() or 1
        return "\n".join([
            "ClusterName=hpotest",
            f"SlurmctldHost={self.host}(127.0.0.1)",
            f"SlurmctldPort={free_port()}",
            f"SlurmdPort={free_port()}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"StateSaveLocation={self.path('state')}",
            f"SlurmdSpoolDir={self.path('spool')}",
            f"SlurmctldPidFile={self.path('slurmctld.pid')}",
            f"SlurmdPidFile={self.path('slurmd.pid')}",
            f"SlurmctldLogFile={self.path('slurmctld.log')}",
            f"SlurmdLogFile={self.path('slurmd.log')}",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "MpiDefault=none",
            "SwitchType=switch/none",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "ReturnToService=2",
            "MinJobAge=300",
            f"NodeName={self.host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN",
            f"PartitionName=debug Nodes={self.host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4",
            "",
        ])

    def _daemon(self, name, argv):
        log = open(self.path(name + ".stdout"), "w")
        self.procs.append(subprocess.Popen(argv, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL))
        log.close()

    def logs(self):
        return "".join(f"--- {name}\n{tail(self.path(name))}"
                       for name in ("slurmctld.log", "slurmctld.stdout", "slurmd.log", "slurmd.stdout",
                                    "munge/munged.log"))

    def _wait_idle(self):
        deadline = time.time() + self.startup_timeout
        state = ""
        while time.time() < deadline:
            for proc, name in zip(self.procs, ("slurmctld", "slurmd")):
                if proc.poll() is not None:
                    raise SlurmUnavailable(f"{name} exited {proc.returncode} at start-up\n{self.logs()}")
            r = self.run(["sinfo", "--noheader", "-n", self.host, "-o", "%T"], check=False)
            state = r.stdout.strip()
            if r.returncode == 0 and state.rstrip("*") == "idle":
                return
            time.sleep(0.5)
        raise SlurmUnavailable(f"node {self.host} not idle after {self.startup_timeout} s "
                               f"(sinfo says {state!r})\n{self.logs()}")

    # --- use -----------------------------------------------------------------

    def run(self, argv, check=True, **kwargs):
        r = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=60, **kwargs)
        if check and r.returncode != 0:
            raise AssertionError(f"{' '.join(argv)} exited {r.returncode}: {r.stderr}\n{self.logs()}")
        return r

    def wait_job(self, job_id, timeout):
        """Waits until no task of `job_id` is pending or running."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            r = self.run(["squeue", "--noheader", "-j", str(job_id), "-o", "%i %T"], check=False)
            if r.returncode == 0 and not r.stdout.strip():
                return
            if r.returncode != 0 and "Invalid job id" in r.stderr:
                return
            time.sleep(0.5)
        queue = self.run(["squeue", "-a"], check=False).stdout
        raise AssertionError(f"job {job_id} still queued after {timeout} s:\n{queue}\n{self.logs()}")

    def _kill_job_leftovers(self):
        # Whatever the daemons started (slurmstepd, the job's shell, hpo and
        # its trainers) inherited SLURM_CONF naming this cluster's private
        # config: end those that outlived the daemons, and nothing else.
        if not self.dir:
            return
        mine = ("SLURM_CONF=" + self.path("slurm.conf")).encode()
        for pid in os.listdir("/proc"):
            if not pid.isdigit() or int(pid) == os.getpid():
                continue
            try:
                env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
            except OSError:
                continue
            if mine in env:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass

if __name__ == "__main__":
    with SlurmCluster() as c:
        print(c.run(["sinfo"]).stdout)
        script = c.path("t.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n#SBATCH --array=0-2\n#SBATCH --output=" + c.path("o_%A_%a.out") + "\nhostname; echo task $SLURM_ARRAY_TASK_ID\n")
        jid = c.run(["sbatch", "--parsable", script]).stdout.strip()
        print("job", jid)
        c.wait_job(jid, 60)
        for n in sorted(os.listdir(c.dir)):
            if n.startswith("o_"):
                print(n, open(c.path(n)).read())
