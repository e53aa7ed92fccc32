"""Validations sharing one :class:`Validator` across threads (as the MCP server does) are independent:
whatever runs beside it, a document gets the report it gets when validated alone (every document
validated ten times on 4 threads, interleaved with the others)."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

from fel_rules import Validator

from .conftest import EXAMPLES, report_data
from .hostile_corpus import CASES

THREADS = 4
ROUNDS = 10
_LARGE = {"100mb", "9999-items", "10000-items"}  # their size is not the point here, and would only make it slow
_LARGEST = 1_000_000  # bytes


def _documents(folder) -> list[tuple[str, bytes]]:
    """The examples and every file of the hostile corpus small enough to validate many times."""
    documents = [(path.name, path.read_bytes()) for path in sorted(EXAMPLES.glob("*.xml"))]
    for case in CASES:
        if case.name in _LARGE:
            continue
        path = case.make(folder)
        if path.is_file() and not path.is_symlink() and path.stat().st_size <= _LARGEST:
            documents.append((case.name, path.read_bytes()))
    return documents


def test_concurrent_validations_are_independent(validator: Validator, tmp_path):
    documents = _documents(tmp_path)
    alone = {name: report_data(validator.validate_bytes(data, path=name)) for name, data in documents}
    work = documents * ROUNDS
    random.Random(12).shuffle(work)  # hostile documents interleaved with ordinary ones

    def validate(document: tuple[str, bytes]) -> tuple[str, dict]:
        name, data = document
        return name, report_data(validator.validate_bytes(data, path=name))

    with ThreadPoolExecutor(THREADS) as pool:
        together = list(pool.map(validate, work))
    flips = [(name, [i["rule_id"] for i in report["issues"]]) for name, report in together if report != alone[name]]
    assert not flips, f"{len(flips)} of {len(together)} reports differ from the document validated alone: {flips[:5]}"
