"""Validations sharing one :class:`Validator` across threads (as the MCP server does) are independent:
whatever runs beside it, a document gets the report it gets when validated alone.

About 30 s on a busy 2-core machine (2,200 validations on 4 threads)."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

from fel_rules import Validator

from .conftest import EXAMPLES, report_data
from .hostile_corpus import CASES

THREADS = 4
VALIDATIONS = 2_200
_LARGEST = 1_000_000  # bytes: the 9,999-item and 100 MB inputs would only make the test slow


def _documents(folder) -> list[tuple[str, bytes]]:
    """The examples and every file of the hostile corpus small enough to validate many times."""
    documents = [(path.name, path.read_bytes()) for path in sorted(EXAMPLES.glob("*.xml"))]
    for case in CASES:
        path = case.make(folder)
        if path.is_file() and not path.is_symlink() and path.stat().st_size <= _LARGEST:
            documents.append((case.name, path.read_bytes()))
    return documents


def test_concurrent_validations_are_independent(validator: Validator, tmp_path):
    documents = _documents(tmp_path)
    alone = {name: report_data(validator.validate_bytes(data, path=name)) for name, data in documents}
    work = [documents[n % len(documents)] for n in range(VALIDATIONS)]
    random.Random(12).shuffle(work)  # hostile documents interleaved with ordinary ones

    def validate(document: tuple[str, bytes]) -> tuple[str, dict]:
        name, data = document
        return name, report_data(validator.validate_bytes(data, path=name))

    with ThreadPoolExecutor(THREADS) as pool:
        together = list(pool.map(validate, work))
    flips = [(name, [i["rule_id"] for i in report["issues"]]) for name, report in together if report != alone[name]]
    assert not flips, f"{len(flips)} of {len(together)} reports differ from the document validated alone: {flips[:5]}"
