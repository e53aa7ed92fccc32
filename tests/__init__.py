"""Test suite of fel-rules (a package, so that its modules import shared helpers relatively).

The cache of loaded rules and messages (:mod:`fel_rules.core.cache`) of a test run, and of every process its tests
start, is a folder of that run, never the user's ``~/.cache``: it is set here, before any test module (or the
conftest) imports fel_rules, whose message catalogue is read through the cache when the package loads.
``FEL_RULES_NO_CACHE=1`` runs the suite without a cache.
"""

import atexit
import os
import shutil
import tempfile

CACHE_DIR = tempfile.mkdtemp(prefix="fel-rules-test-cache-")
os.environ["FEL_RULES_CACHE_DIR"] = CACHE_DIR
atexit.register(shutil.rmtree, CACHE_DIR, True)
