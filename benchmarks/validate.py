"""Benchmark of in-process validation: each stage, both schema engines, and the floor, side by side.

Run from the repository root: ``python -m benchmarks.validate [--repeat N]``. For a FACT with 1, 10 and 100
lines and for the signed certified example it prints medians (ms) of the whole pipeline, in a validator's steady
state (the function of the document's rule plan made, as it is once a plan has validated enough documents), with
the ``auto`` schema engine (libxml2 decides, xmlschema explains) and with ``xmlschema`` alone, the time of each stage,
and the **floor**: lxml parse + libxml2 validation of the same bytes, the least any validator of this
schema set must spend. A second table times the rules stage with each expression engine (compiled code and
simpleeval's interpreter, the reference) on the same documents. A third, many documents: :data:`GROUP_SIZE` files
of each, validated one by one (``validate_path``) and together (``validate_many``, each stage for all of them in
turn, as a batch's workers and ``fel-rules validate`` of several files do), a document's share of each beside the
floor. Ratios are measured in the same process and interleaved (each round runs every measure of a row in turn,
a few times after an untimed run), so a noisy moment of a shared machine touches both sides alike. Nothing here
asserts timings.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from lxml import etree

from benchmarks.timing import interleaved_ms, median_ms
from fel_rules import Config, Validator
from fel_rules.checks import PLAN_FUNCTION_AFTER, CheckInput
from fel_rules.core.resources import BUILTIN_XSD_DIR
from fel_rules.document.facts import extract_facts
from fel_rules.document.parse import parse_xml
from fel_rules.document.schema import _XMLSCHEMA_DSIG, _decider, builtin_schema_set, check_schema
from fel_rules.engine import GROUP_SIZE
from fel_rules.expressions.language import Evaluator
from fel_rules.testing.builder import Invoice, Item

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
#: Timed runs of a measure in a row, between the other measures' (see :func:`~benchmarks.timing.interleaved_ms`).
_BLOCK = 10


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

    schema_set = builtin_schema_set()
    start = time.perf_counter()
    schema_set.schema  # noqa: B018 - xmlschema's compile, timed here (the auto engine needs it only for errors)
    print(f"schema compile, xmlschema (on first invalid document): {(time.perf_counter() - start) * 1000:.0f} ms")
    bundle = BUILTIN_XSD_DIR / "fel-bundle.xsd"
    compile_ms = median_ms(lambda: _decider(bundle, _XMLSCHEMA_DSIG), 5)
    print(f"schema compile, libxml2 (on first use): {compile_ms:.1f} ms\n")
    floor_schema = schema_set.decider

    auto, reference = Validator(Config(schema_engine="auto")), Validator(Config(schema_engine="xmlschema"))
    columns = ("document", "auto", "xmlschema", "parse", "schema", "facts", "rules", "floor", "auto/floor")
    widths = (18, 8, 10, 7, 7, 7, 7, 7, 10)
    header = " ".join(f"{name:>{width}}" for name, width in zip(columns, widths, strict=True))
    print(header)
    print("-" * len(header))
    documents = [(f"FACT {n} line{'s' * (n > 1)}", invoice(n)) for n in (1, 10, 100)]
    documents.append(("signed certified", (EXAMPLES_DIR / "factura-certificada.xml").read_bytes()))
    for name, data in documents:
        print(_row(name, data, auto, reference, floor_schema, args.repeat))
    print("\nfloor = lxml parse + libxml2 validation of the same bytes; auto/floor = the pipeline's cost over it.")
    print(f"\n{'rules stage':>18} {'compiled':>9} {'interpreted':>12} {'interp/compiled':>16}")
    for name, data in documents:
        print(_rules_row(name, data, auto, args.repeat))
    print(f"\n{'many documents':>18} {'one by one':>11} {'together':>9} {'floor':>7} {'together/floor':>15}")
    with tempfile.TemporaryDirectory() as folder:
        for name, data in documents:
            print(_many_row(name, data, auto, floor_schema, Path(folder), args.repeat))
    print(f"\na document's share of {GROUP_SIZE} files of it validated one by one (validate_path) and together "
          "(validate_many).")


def _rules_row(name: str, data: bytes, validator: Validator, repeat: int) -> str:
    """The rules stage on ``data`` with compiled and with interpreted expressions, side by side."""
    root = parse_xml(data, max_bytes=validator.config.max_bytes).root
    header = extract_facts(root, lines=False)
    plan = validator._plan(header.kind, "FACT", validator._as_of(header))
    config = validator.config
    engines = {
        engine: Evaluator(tolerance=config.tolerance, rounding=config.rounding_mode,
                          catalogues=validator.catalog.catalogues, engine=engine)
        for engine in ("compiled", "interpreted")
    }

    def run_rules(evaluator: Evaluator) -> list:
        doc = CheckInput(root=root, header=header, config=config, evaluator=evaluator, source=data)
        return [list(check.check(doc)) for _rule, _severity, check in plan]

    assert run_rules(engines["compiled"]) == run_rules(engines["interpreted"]), name
    times = interleaved_ms({engine: lambda evaluator=evaluator: run_rules(evaluator)
                            for engine, evaluator in engines.items()}, repeat, block=_BLOCK)
    compiled, interpreted = times["compiled"], times["interpreted"]
    return f"{name:>18} {compiled:>7.2f}ms {interpreted:>10.2f}ms {interpreted / compiled:>15.1f}×"


def _many_row(name: str, data: bytes, validator: Validator, floor_schema, folder: Path, repeat: int) -> str:
    """:data:`GROUP_SIZE` files holding ``data``, validated one by one and together: a document's share of each."""
    paths = []
    for number in range(GROUP_SIZE):
        path = folder / f"{name.replace(' ', '-')}-{number}.xml"
        path.write_bytes(data)
        paths.append(path)
    alone = [report.to_json(include_run=False) for report in map(validator.validate_path, paths)]
    assert [report.to_json(include_run=False) for report in validator.validate_many(paths)] == alone, name

    def floor() -> None:  # (as many documents as the others take a round)
        for _ in paths:
            floor_schema.validate(etree.fromstring(data))

    times = interleaved_ms({"one": lambda: [validator.validate_path(path) for path in paths],
                            "together": lambda: validator.validate_many(paths), "floor": floor},
                           max(5, repeat // 10))
    one, together, base = (times[name] / GROUP_SIZE for name in ("one", "together", "floor"))
    return f"{name:>18} {one:>9.2f}ms {together:>7.2f}ms {base:>5.2f}ms {together / base:>14.1f}×"


def _row(name: str, data: bytes, auto: Validator, reference: Validator, floor_schema, repeat: int) -> str:
    """One line of the table: ``data`` validated both ways, its stages, and the floor, side by side."""
    report = auto.validate_bytes(data)
    assert report.valid, [i.message for i in report.issues]
    for _ in range(PLAN_FUNCTION_AFTER):  # a validator's steady state: the function of this plan made
        auto.validate_bytes(data)
    max_bytes = auto.config.max_bytes
    root = parse_xml(data, max_bytes=max_bytes).root
    header = extract_facts(root, lines=False)  # what validation reads; the lines' facts are lazy
    schema_set = auto.schema_set

    def run_rules():  # the engine's rules stage (the plan's function, then the rules it leaves), with a new memo
        auto._run_rules(root, header, data, {})

    def floor():
        floor_schema.validate(etree.fromstring(data))

    times = interleaved_ms({
        "pipeline": lambda: auto.validate_bytes(data),
        "parse": lambda: parse_xml(data, max_bytes=max_bytes),
        "schema": lambda: check_schema(schema_set, root, source=data),
        "facts": lambda: extract_facts(root, lines=False),
        "rules": run_rules,
        "floor": floor,
    }, repeat, block=_BLOCK)
    pipeline, parse, schema, extract, rules, base = (times[name] for name in ("pipeline", "parse", "schema", "facts",
                                                                               "rules", "floor"))
    slow = median_ms(lambda: reference.validate_bytes(data), max(5, repeat // 4))
    return (f"{name:>18} {pipeline:>6.2f}ms {slow:>8.2f}ms {parse:>5.2f}ms {schema:>5.2f}ms {extract:>5.2f}ms "
            f"{rules:>5.2f}ms {base:>5.2f}ms {pipeline / base:>9.1f}×")


if __name__ == "__main__":
    main()
