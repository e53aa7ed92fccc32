"""Test suite of fel-rules (a package, so that its modules import shared helpers relatively).

The cache of loaded rules and messages (:mod:`fel_rules.core.cache`) of a test run, and of every process its tests
start, is a folder of that run, never the user's ``~/.cache``: it is set here, before any test module (or the
conftest) imports fel_rules, whose message catalogue is read through the cache when the package loads; a process
of the run that imports this package again (a worker, a subprocess) keeps the run's folder, which the run removes
when it ends. ``FEL_RULES_NO_CACHE=1`` runs the suite without a cache.
"""

import atexit
import os
import shutil
import tempfile

_RUN_CACHE = "FEL_RULES_TEST_RUN_CACHE"


def _remove(folder: str, owner: int) -> None:
    if os.getpid() == owner:  # not in a forked child that leaves through the interpreter's exit
        shutil.rmtree(folder, ignore_errors=True)


CACHE_DIR = os.environ.get(_RUN_CACHE) or ""
if not CACHE_DIR:
    CACHE_DIR = os.environ[_RUN_CACHE] = tempfile.mkdtemp(prefix="fel-rules-test-cache-")
    atexit.register(_remove, CACHE_DIR, os.getpid())
os.environ["FEL_RULES_CACHE_DIR"] = CACHE_DIR
