"""Record, per document, the verdict and issue ids fel-rules gives; compare two such records.

    python scripts/verdicts.py corpus CORPUS_DIR          # write every example, SAT sample and rule case
    python scripts/verdicts.py record CORPUS_DIR OUT.json # validate each document (the importable fel_rules)
    python scripts/verdicts.py compare BEFORE.json AFTER.json [--renamed OLD=NEW,NEW2 ...]

``corpus`` materializes the rule cases (base document + patches) once, so two versions of the code
validate byte-identical documents. ``record`` uses only the public API (``fel_rules.Validator``) and,
for the cross-document rules, the ``batch`` command over the whole corpus. ``compare`` prints
every document whose verdict (valid, complete) or sorted issue ids differ, and exits 1 if any do.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT.parent / "shared" / "fel-reference" / "samples"


def write_corpus(out: Path) -> None:
    """Copy the examples and SAT samples, and build each rule case's document, into ``out``."""
    sys.path.insert(0, str(ROOT))
    try:
        from fel_rules.authoring.rule_cases import apply_patches, load_case_file
    except ImportError:  # later layouts
        from fel_rules.authoring.tools.rule_cases import apply_patches, load_case_file
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted((ROOT / "examples").glob("*.xml")):
        (out / f"example--{path.name}").write_bytes(path.read_bytes())
    for path in sorted(SAMPLES.rglob("*")):
        if path.suffix.lower() == ".xml":
            (out / f"sample--{path.parent.name}--{path.name}").write_bytes(path.read_bytes())
    cases = ROOT / "rules" / "tests"
    for path in sorted(cases.glob("*.yaml")):
        case_file = load_case_file(path)
        for case in case_file.cases:
            if getattr(case, "documents", None) is not None:
                continue  # a batch rule's case is a small batch of its own, meaningful only together
            base = cases / (case.base or case_file.base)
            document = apply_patches(base.read_bytes(), case.patch)
            (out / f"case--{case_file.rule}--{case.name}.xml").write_bytes(document)


def record(corpus: Path, out: Path) -> None:
    """Validate every document of the corpus and write {name: {valid, complete, ids}} as JSON."""
    from fel_rules import Validator

    validator = Validator()
    result = {}
    for path in sorted(corpus.glob("*.xml")):
        report = validator.validate_path(path)
        result[path.name] = _verdict(report.to_dict())
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "fel_rules", "batch", str(corpus), "--out", tmp,
                        "--no-render", "--format", "json"], check=False, capture_output=True)
        for path in sorted(Path(tmp).glob("*.json")):
            if path.name != "manifest.json":
                result[f"batch--{path.name}"] = _verdict(json.loads(path.read_text(encoding="utf-8")))
    out.write_text(json.dumps(result, indent=1, sort_keys=True), encoding="utf-8")
    print(f"{len(result)} documents recorded in {out}")


def _verdict(report: dict) -> dict:
    return {"valid": report.get("valid"), "complete": report.get("complete"),
            "ids": sorted(issue["rule_id"] for issue in report.get("issues", []))}


def compare(before: Path, after: Path, renamed: list[str]) -> int:
    """Print the documents whose verdict or issue ids differ; 1 if any do.

    ``renamed`` lists rules split or renamed on purpose (``OLD=NEW1,NEW2``): on both sides each of those ids
    counts as OLD, and a document where any of them fires is compared by the set of its ids (one old issue
    may become issues of several new rules)."""
    old, new = (json.loads(p.read_text(encoding="utf-8")) for p in (before, after))
    as_old = {}
    for item in renamed:
        name, _, targets = item.partition("=")
        as_old.update({target: name for target in targets.split(",")} | {name: name})
    differ = 0
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        if a is not None and b is not None and _same(a, b, as_old):
            continue
        differ += 1
        print(f"{name}\n  before: {a}\n  after:  {b}")
    print(f"{len(old)} before, {len(new)} after, {differ} differ")
    return 1 if differ else 0


def _same(a: dict, b: dict, as_old: dict[str, str]) -> bool:
    if (a["valid"], a["complete"]) != (b["valid"], b["complete"]):
        return False
    if not any(i in as_old for i in a["ids"] + b["ids"]):
        return a["ids"] == b["ids"]
    return {as_old.get(i, i) for i in a["ids"]} == {as_old.get(i, i) for i in b["ids"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("corpus").add_argument("out", type=Path)
    rec = sub.add_parser("record")
    rec.add_argument("corpus", type=Path)
    rec.add_argument("out", type=Path)
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("before", type=Path)
    cmp_.add_argument("after", type=Path)
    cmp_.add_argument("--renamed", nargs="*", default=[], metavar="OLD=NEW[,NEW2]")
    args = parser.parse_args()
    if args.command == "corpus":
        write_corpus(args.out)
        return 0
    if args.command == "record":
        record(args.corpus, args.out)
        return 0
    return compare(args.before, args.after, args.renamed)


if __name__ == "__main__":
    sys.exit(main())
