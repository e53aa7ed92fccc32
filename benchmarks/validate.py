"""Benchmark of the validation pipeline: schema compile time, full-pipeline medians, share in rules.

Run from the repository root: ``python -m benchmarks.validate [--repeat N]``. Prints medians (ms) for a
FACT invoice with 1, 10 and 100 lines, the time split per stage, and ratios against a reference measured
in the same process (bare xmlschema validation of the same document), so noise on a shared machine
affects both sides alike. Nothing here asserts timings.
"""

from __future__ import annotations

import argparse
import time

from benchmarks.timing import median_ms
from fel_rules import Config, Validator
from fel_rules.checks import CheckInput
from fel_rules.document.facts import extract_facts
from fel_rules.document.parse import parse_xml
from fel_rules.document.schema import builtin_schema_set, check_schema
from fel_rules.testing.builder import Invoice, Item


def invoice(lines: int) -> bytes:
    """A FACT with ``lines`` taxed lines (deterministic content)."""
    items = [
        Item.goods(f"Artículo de ferretería número {n}", cantidad=str(1 + n % 7), precio_unitario=f"{12 + n % 90}.75",
                   descuento="1.25" if n % 3 == 0 else None)
        for n in range(1, lines + 1)
    ]
    return Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items).to_xml()




def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=60, help="runs per measurement (median is printed)")
    args = parser.parse_args()

    start = time.perf_counter()
    schema_set = builtin_schema_set()
    compile_s = time.perf_counter() - start
    print(f"schema compile (once per process): {compile_s * 1000:.0f} ms  [{schema_set.name}]")

    validator = Validator(Config())
    print(f"rules loaded: {len(validator.catalog.rules)} (those in force for a FACT run; facts = header facts)\n")
    columns = ("lines", "pipeline", "parse", "schema", "facts", "rules", "rules %", "xmlschema ref", "ratio")
    widths = (5, 9, 7, 7, 7, 7, 8, 14, 6)
    header = " ".join(f"{name:>{width}}" for name, width in zip(columns, widths, strict=True))
    print(header)
    print("-" * len(header))
    for lines in (1, 10, 100):
        print(_row(validator, schema_set, lines, args.repeat))
    print("\nratio = full pipeline / bare xmlschema validation of the same tree, measured side by side.")




def _row(validator: Validator, schema_set, lines: int, repeat: int) -> str:
    """One line of the table: the stages of validating an invoice of ``lines`` lines, side by side."""
    data = invoice(lines)
    report = validator.validate_bytes(data)
    assert report.valid, [i.message for i in report.issues]
    root = parse_xml(data, max_bytes=validator.config.max_bytes).root
    header = extract_facts(root, lines=False)  # what validation reads; the lines' facts are lazy
    plan = validator._plan(header.kind, "FACT", validator._as_of(header))

    def run_rules():
        doc = CheckInput(root=root, header=header, config=validator.config, evaluator=validator._evaluator)
        for _rule, _severity, check in plan:
            list(check.check(doc))

    pipeline = median_ms(lambda: validator.validate_bytes(data), repeat)
    parse = median_ms(lambda: parse_xml(data, max_bytes=validator.config.max_bytes), repeat)
    schema = median_ms(lambda: check_schema(schema_set, root, source=data), repeat)
    extract = median_ms(lambda: extract_facts(root, lines=False), repeat)
    rules = median_ms(run_rules, repeat)
    reference = median_ms(lambda: list(schema_set.schema.iter_errors(root)), repeat)
    return (f"{lines:>5} {pipeline:>8.2f}ms {parse:>6.2f}ms {schema:>6.2f}ms {extract:>6.2f}ms {rules:>6.2f}ms "
            f"{rules / pipeline * 100:>7.1f}% {reference:>12.2f}ms {pipeline / reference:>6.2f}")


if __name__ == "__main__":
    main()
