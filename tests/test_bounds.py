"""Work without bounds: every per-document cost the input controls is capped, with a precise message
and no verdict (or a truncation notice) instead of minutes of CPU or gigabytes of memory."""

from __future__ import annotations

import json
import re
import struct
import time
import zlib

import pytest

from fel_rules import Config, RenderError, Validator
from fel_rules.batch import BatchOptions, run_batch
from fel_rules.batch.cross import cross_issues
from fel_rules.batch.executors import default_workers
from fel_rules.checks.batch_input import CrossFacts
from fel_rules.cli.app import main
from fel_rules.outputs.render import RenderSettings, render_bytes
from fel_rules.testing.builder import Invoice, Item

from .conftest import EXAMPLES

FACT = (EXAMPLES / "factura-fact.xml").read_bytes()


def _with_attributes(count: int) -> bytes:
    attributes = b" ".join(b'a%d="x"' % n for n in range(count))
    return FACT.replace(b"<dte:DatosGenerales ", b"<dte:DatosGenerales " + attributes + b" ", 1)


def _refused_before_the_schema(report, rule_id: str, message: str, line: int, element: str) -> None:
    """``report`` has one issue, ``rule_id`` at ``element`` (line ``line``) saying ``message``, and no verdict."""
    assert [i.rule_id for i in report.issues] == [rule_id]
    issue = report.issues[0]
    assert issue.message == message
    assert issue.location.line == line and issue.location.xpath.endswith(element)
    assert (report.valid, report.complete, report.exit_code()) == (False, False, 2)


def test_attributes_per_element_are_bounded(validator: Validator):
    report = validator.validate_bytes(_with_attributes(2_000))  # 23 s of schema work before the limit
    _refused_before_the_schema(report, "FEL-XML-09", "El elemento dte:DatosGenerales (línea 6) tiene 2003 atributos "
                               "y el límite es 100; no se validó.", 6, "dte:DatosGenerales")
    relaxed = Validator(Config(max_attributes=3_000), catalog=validator.catalog).validate_bytes(_with_attributes(20))
    assert "FEL-XML-09" not in {i.rule_id for i in relaxed.issues}


def _with_children(count: int, child: bytes = b"<a/>") -> bytes:
    opening = b'<dte:DatosEmision ID="DatosEmision">'
    return FACT.replace(opening, opening + child * count, 1)


def test_unexpected_children_of_one_element_are_said_in_one_finding(validator: Validator):
    """64,000 empty elements the schema does not admit in dte:DatosEmision (260 kB: 43 s when each was explained):
    one finding for the element (see tests/test_schema_budget.py), the verdict invalid."""
    report = validator.validate_bytes(_with_children(64_000))
    crowded = [issue for issue in report.issues if issue.rule_id == "FEL-XSD-06"]
    assert [issue.message for issue in crowded] == [
        "El elemento dte:DatosEmision (línea 5) tiene 64000 elementos hijos o atributos que el esquema no admite "
        "ahí; no se detallan uno por uno."]
    assert (report.valid, report.complete, report.exit_code()) == (False, True, 1)


def test_many_rows_the_schema_admits_are_validated(validator: Validator):
    """An adenda (free-form certifier data the schema never sees) and a complement's rows the schema admits any number
    of (cfc:Abono) are not limited: the exchange-bill example with 10,500 abonos is valid."""
    rows = b"<dte:Adenda>" + b"<fila>1</fila>" * 20_000 + b"</dte:Adenda>"
    assert validator.validate_bytes(FACT.replace(b"</dte:DTE>", b"</dte:DTE>" + rows, 1)).valid
    source = (EXAMPLES / "factura-cambiaria-fcam.xml").read_bytes()
    abono = re.search(rb"<cfc:Abono>.*?</cfc:Abono>", source, re.S).group(0)
    zero = re.sub(rb"<cfc:MontoAbono>[0-9.]+<", b"<cfc:MontoAbono>0.00<", abono)
    many = b"".join(zero.replace(b"<cfc:NumeroAbono>1<", b"<cfc:NumeroAbono>%d<" % (n % 999 + 1))
                    for n in range(10_499))
    document = source.replace(abono, abono + many, 1)
    assert document.count(b"<cfc:Abono>") >= 10_500
    report = validator.validate_bytes(document)
    assert report.valid, [issue.message for issue in report.issues if issue.severity.value == "error"][:3]


def test_schema_errors_per_report_are_bounded(validator: Validator):
    items = [Item.goods(f"Artículo {n}", "1", "10.00") for n in range(300)]
    data = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items).to_xml()
    data = data.replace(b"<dte:Cantidad>1</dte:Cantidad>", b"<dte:Cantidad>uno</dte:Cantidad>")
    report = validator.validate_bytes(data)
    schema = [i for i in report.issues if i.stage == "schema"]
    assert sum(1 for i in schema if i.rule_id == "FEL-XSD-01") == 200
    notice = next(i for i in schema if i.rule_id == "FEL-XSD-05")
    assert notice.message == ("El documento tiene más de 200 errores de esquema; el reporte muestra los primeros "
                              "200.")
    assert not report.valid
    small = Validator(Config(max_schema_errors=5), catalog=validator.catalog).validate_bytes(data)
    assert sum(1 for i in small.issues if i.rule_id == "FEL-XSD-01") == 5


def _png_header(width: int, height: int) -> bytes:
    """A PNG that declares ``width`` × ``height`` pixels in a few dozen bytes (a decompression bomb's header)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = lambda kind, data: (struct.pack(">I", len(data)) + kind + data  # noqa: E731
                                + struct.pack(">I", zlib.crc32(kind + data)))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))


def test_logo_pixels_and_bytes_are_bounded(validator: Validator, tmp_path, capsys):
    bomb = tmp_path / "bomba.png"
    bomb.write_bytes(_png_header(12_000, 12_000))  # 2 GB and 10 s once decoded
    settings = RenderSettings.from_env({}, logo=bomb)
    with pytest.raises(RenderError) as info:
        render_bytes(FACT, settings=settings, validator=validator)
    assert info.value.message == (f"El logo {bomb} mide 12000 × 12000 píxeles y el límite es 16777216 píxeles "
                                  "(FEL_RULES_LOGO_PIXELS); use una imagen más pequeña")
    logo = EXAMPLES / "logo.png"
    small = RenderSettings.from_env({"FEL_RULES_LOGO_BYTES": "1000"}, logo=logo)
    with pytest.raises(RenderError) as info:
        render_bytes(FACT, settings=small, validator=validator)
    assert info.value.message == (f"El logo {logo} mide {logo.stat().st_size} bytes y el límite es 1000 "
                                  "(FEL_RULES_LOGO_BYTES)")
    assert main(["render", str(EXAMPLES / "factura-fact.xml"), "--logo", str(bomb), "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1  # one clear line, no warning from the image library


def _uuid(n: int) -> str:
    return f"5D8A3F21-9C4B-4E7A-B2D6-{n:012X}"


def test_batch_rule_findings_are_bounded(validator):
    copies = [(f"copia-{n:04d}.xml", CrossFacts(tipo="FACT", uuid=_uuid(0))) for n in range(3_000)]
    found = cross_issues(copies, validator.catalog)
    assert len(found) == 3_000
    issue, = found["copia-0000.xml"]
    assert issue.message == ("El número de autorización 5D8A3F21-9C4B-4E7A-B2D6-000000000000 también está en "
                             + ", ".join(f"copia-{n:04d}.xml" for n in range(1, 21)) + " y 2979 más.")
    constancias = [(f"civa-{n}.xml", CrossFacts(tipo="CIVA", uuid=_uuid(n + 10), origin_uuid=_uuid(1)))
                   for n in range(100)]
    note = ("nota.xml", CrossFacts(tipo="NCRE", uuid=_uuid(2), origin_uuid=_uuid(1)))
    issues = cross_issues([*constancias, note], validator.catalog, lang="en", limit=5)["nota.xml"]
    assert [i.rule_id for i in issues] == ["FEL-LOT-16"] * 6
    assert issues[-1].severity.value == "info"
    assert issues[-1].message == "Rule FEL-LOT-16 found 100 problems; the report shows the first 5."


def test_workers_are_capped_to_the_cores(tmp_path, capsys):
    folder = tmp_path / "entrada"
    folder.mkdir()
    for name in ("a.xml", "b.xml"):
        (folder / name).write_bytes(FACT)
    result = run_batch(BatchOptions(folder, tmp_path / "salida", workers=64, render=False, progress=False))
    assert result.manifest.run.workers == default_workers() < 64
    assert main(["batch", str(folder), "--out", str(tmp_path / "cli"), "--workers", "64", "--no-render",
                 "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["run"]["workers"] == default_workers()


def test_batch_file_time_is_bounded(tmp_path, monkeypatch):
    """A file whose work goes over the time limit. No input known to fel-rules takes that long any more, so the
    schema stage is made to take a minute here for one file (the workers are forked: they inherit it)."""
    from fel_rules import engine

    def slow_schema_stage(validator, work):
        if b"lenta" in work.data:
            time.sleep(60)
        return schema_stage(validator, work)

    schema_stage = engine.Validator._schema_stage
    monkeypatch.setattr(engine, "_PIPELINE", tuple(
        slow_schema_stage if stage is schema_stage else stage for stage in engine._PIPELINE))
    monkeypatch.setattr(engine, "_GROUP_PIPELINE", tuple(
        slow_schema_stage if stage is schema_stage else stage for stage in engine._GROUP_PIPELINE))
    folder = tmp_path / "entrada"
    folder.mkdir()
    (folder / "lenta.xml").write_bytes(FACT.replace(b"</dte:GTDocumento>", b"<!-- lenta --></dte:GTDocumento>"))
    (folder / "normal.xml").write_bytes(FACT)
    options = BatchOptions(folder, tmp_path / "salida", workers=1, progress=False, file_time_limit=3)
    result = run_batch(options)
    slow, normal = result.manifest.entries
    assert slow.path == "lenta.xml" and slow.error == ("el archivo superó el límite de tiempo por archivo (3 s); "
                                                       "no se procesó")
    assert (slow.report, slow.pdf) == (None, None)
    assert not (tmp_path / "salida" / "lenta.report.json").exists()
    assert (normal.valid, normal.error, normal.pdf) == (True, None, "normal.pdf")
    assert result.exit_code == 2


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), 1e12, -1.0, 0, True, "60"])
def test_a_time_limit_that_is_not_a_number_of_seconds_stops_the_batch_before_any_work(tmp_path, seconds):
    from fel_rules.core.errors import InputError

    folder = tmp_path / "entrada"
    folder.mkdir()
    (folder / "a.xml").write_bytes(FACT)
    with pytest.raises(InputError, match="límite de tiempo por archivo") as raised:
        run_batch(BatchOptions(folder, tmp_path / "salida", workers=1, progress=False, file_time_limit=seconds))
    assert "time limit per file" in raised.value.message_en
    assert not (tmp_path / "salida").exists()


def test_the_largest_time_limit_and_none_are_taken(tmp_path):
    from fel_rules.batch.options import MAX_FILE_TIME_LIMIT

    folder = tmp_path / "entrada"
    folder.mkdir()
    (folder / "a.xml").write_bytes(FACT)
    for number, seconds in enumerate((MAX_FILE_TIME_LIMIT, None)):
        result = run_batch(BatchOptions(folder, tmp_path / f"salida{number}", workers=1, progress=False,
                                        render=False, file_time_limit=seconds))
        assert result.exit_code == 0
