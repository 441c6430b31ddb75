"""What test_cli.py and test_gpu.py share: the check and the entry point.

Each script is run as `SCRIPT HPO_BINARY TEST_NAME`; the test gets a fresh
throw-away project in a temporary directory.
"""
import os
import sys
import tempfile

# Put before a `python3 -c` script that opens an hpo-made database: Debian's
# Optuna 3.1 then opens alembic v3.2.0.a as Optuna 3.2-5.0 do, and refuses
# what they refuse (see optuna_current.py).
AS_OPTUNA_32 = (f"import sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r}); "
                "import optuna_current\n")


def expect(cond, message):
    if not cond:
        raise AssertionError(message)


def run_named_test(tests, make_project, prefix):
    """Runs tests["test_" + TEST_NAME] on make_project(hpo, tmpdir)."""
    hpo, name = os.path.abspath(sys.argv[1]), sys.argv[2]
    test = tests.get("test_" + name)
    if test is None:
        sys.exit(f"unknown test {name}")
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        test(make_project(hpo, tmp))
    print(f"{name}: passed")
