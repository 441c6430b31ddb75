#!/usr/bin/env python3
"""Serves any Python trainer script to hpo from one process, so that what the
script imports (torch, say: seconds per trial) is imported once per slot.

In a study file:
    trainer:
      command: [python3, examples/serve.py, train.py, --config, "{config}"]
      serve: true

hpo then starts this program once per slot with HPO_SERVE=1 and sends it
trial after trial (the serve protocol, docs/trainer-protocol.md). Each trial
runs train.py with runpy, as `python3 train.py ...` would, with the trial's
environment, argv and log files; its exit code (sys.exit, or 1 for an
uncaught exception) is the trial's. Modules stay imported between trials;
the script's own globals start fresh each time. Without HPO_SERVE it runs the
script once, as its own process would. A command that does not name this
program (a wrapper that starts `serve.py train.py` itself) gets train.py run
with the command's arguments.
"""
import json
import os
import runpy
import signal
import sys
import traceback

HERE = os.path.abspath(__file__)
TRIAL_VARIABLES = ("HPO_CONFIG", "HPO_REPORT_FILE", "HPO_TRIAL_DIR", "HPO_TRIAL_NUMBER",
                   "HPO_TRIAL_ID", "HPO_RESUME")


def script_argv(argv, own):
    """The script to run for a trial and its arguments: what follows this
    program in the trial's command line; or, for a command that starts this
    program itself (a wrapper script), the script this server was started
    with (`own`) and the command's arguments."""
    for i, arg in enumerate(argv):
        if os.path.abspath(arg) == HERE:
            return argv[i + 1:]
    return own[:1] + argv[1:]


def run_script(argv):
    """Runs a trainer script as `python3 SCRIPT ARGS` would; its exit code."""
    sys.argv = list(argv)
    try:
        runpy.run_path(argv[0], run_name="__main__")
        return 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except BaseException:  # what an uncaught exception does to a process
        traceback.print_exc()
        return 1


def serve(own):
    reply = os.fdopen(os.dup(1), "w", buffering=1)  # fd 1 is redirected per trial
    server_log = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.environ.pop("HPO_SERVE")  # a trial sees what it would see as its own process
    # The trial's own variables are each request's alone: the first trial's,
    # which hpo starts this server with, must not come back for later ones
    # (its HPO_RESUME would make every trial a resume).
    for name in TRIAL_VARIABLES:
        os.environ.pop(name, None)
    started_env = dict(os.environ)
    set_before = set()
    # Between trials a SIGTERM is a late one for the trial that just ended.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for line in sys.stdin:
        request = json.loads(line)
        env = request["env"]
        for name in set_before - env.keys():  # as the server started
            if name in started_env:
                os.environ[name] = started_env[name]
            else:
                os.environ.pop(name, None)
        os.environ.update(env)
        set_before = set(env)
        out = os.open(request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        err = os.open(request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.close(out)
        os.close(err)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the script installs its own
        code = run_script(script_argv(request["argv"], own))
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(devnull, 1)
        os.dup2(server_log, 2)
        reply.write(json.dumps({"exit": code}) + "\n")
        if code not in (0, 2, 3, 75):  # a crash may leave this process broken
            sys.exit(code)


if __name__ == "__main__":
    if os.environ.get("HPO_SERVE") == "1":
        serve(sys.argv[1:])
    else:
        sys.exit(run_script(sys.argv[1:]))
