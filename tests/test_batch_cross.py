"""Cross-document rules FEL-LOT-08…23: each fires on a batch that breaks it and stays quiet on a near twin
that keeps it (same documents, the one value that matters corrected)."""

from __future__ import annotations

import dataclasses
import json
import shutil
from datetime import date
from pathlib import Path

import pytest
from lxml import etree

from fel_rules import Config, Report, Validator
from fel_rules.batch import BatchOptions, run_batch
from fel_rules.core.resources import BUILTIN_RULES_DIR
from fel_rules.expressions.holidays import HOLIDAYS_FILE, HolidayCalendar, load_holidays, nth_business_day
from fel_rules.ruleset.files import catalog_files
from fel_rules.testing.builder import (
    Anulacion,
    Exportacion,
    Invoice,
    Item,
    RawComplemento,
    ReferenciasNota,
    nit_with_check_digit,
)

from .conftest import FEL_REFERENCE, requires_shared

NS_CRC = "http://www.sat.gob.gt/face2/ComplementoReferenciaConstancia/0.1.0"
OTRO_CERTIFICADOR = nit_with_check_digit("2345678")
OTRO_EMISOR = nit_with_check_digit("3456789")
RECEPTOR = nit_with_check_digit("4729185")


def uid(n: int) -> str:
    return f"{n:08X}-0000-4000-8000-000000000000"


def certified(n: int, fecha: str, **fields) -> Invoice:
    """A certified document (certified a few seconds after its emission, by SAT unless ``nit`` is given)."""
    nit = fields.pop("nit", None)
    invoice = Invoice(fecha=fecha, **fields)
    return invoice.certify(uid(n), fecha[:17] + "30" + fecha[19:], **({"nit": nit} if nit else {}))


def constancia(origin: Invoice, monto_iva_exento: str | None = None) -> RawComplemento:
    """crc:ReferenciasConstancia of a CIVA/CAIS pointing to ``origin``."""
    element = etree.Element(f"{{{NS_CRC}}}ReferenciasConstancia", nsmap={"crc": NS_CRC})
    element.set("Version", "1")
    element.set("NumeroAutorizacionDocumentoOrigen", origin.certificacion.uuid)
    element.set("FechaEmisionDocumentoOrigen", origin.fecha[:10])
    if monto_iva_exento is not None:
        element.set("MontoIVAExento", monto_iva_exento)
    return RawComplemento(element=element, nombre_complemento="ReferenciasConstancia")


def export(n: int, fecha: str, provisional: Invoice, **fields) -> Invoice:
    complement = Exportacion(nombre_consignatario="Importadora Ejemplo, LLC", direccion_consignatario="100 Main St",
                             incoterm="FOB", numero_autorizacion_provisional=provisional.certificacion.uuid)
    return certified(n, fecha, tipo="FACT", exp=True, complementos=[complement], **fields)


def annul(invoice: Invoice, fecha: str, **changes) -> Anulacion:
    return dataclasses.replace(Anulacion.for_invoice(invoice, fecha, "Error en los datos"), **changes)


def write_folder(folder: Path, bad: bool) -> Path:
    """Every scenario in one folder; ``bad`` breaks each rule once, otherwise the same documents keep them."""
    docs: dict[str, Invoice | Anulacion] = {}
    # a note against its origin: certifier (LOT-08), stated emission date (LOT-09)
    origin = docs["n1-origen.xml"] = certified(1, "2026-03-02T09:00:00-06:00")
    note = Invoice(tipo="NCRE", items=[Item.goods("Devolución", "1", "85.00")], complementos=[ReferenciasNota(
        numero_autorizacion=uid(1), fecha_emision="2026-03-01" if bad else "2026-03-02", motivo="Devolución")])
    other_certifier = {"nit": OTRO_CERTIFICADOR} if bad else {}
    docs["n2-nota.xml"] = note.certify(uid(2), "2026-03-05T10:00:00-06:00", **other_certifier)
    # an annulment against the annulled document: issuer (LOT-10), receiver (LOT-11), certifier (LOT-12), date (LOT-13)
    annulled = docs["a1-anulada.xml"] = certified(3, "2026-03-03T10:00:00-06:00", receptor_id=RECEPTOR)
    wrong = {"nit_emisor": OTRO_EMISOR, "id_receptor": "CF", "fecha_emision_documento": "2026-03-04T10:00:00-06:00"}
    docs["a2-anulacion.xml"] = annul(annulled, "2026-03-10T08:00:00-06:00", **(wrong if bad else {})).certify(
        "2026-03-10T08:00:09-06:00", **other_certifier)
    # annulled twice (LOT-14): the later annulment is flagged, whatever its path
    twice = docs["d1-factura.xml"] = certified(4, "2026-03-04T10:00:00-06:00")
    docs["d3-primera.xml"] = annul(twice, "2026-03-10T08:00:00-06:00")
    if bad:
        docs["d2-segunda.xml"] = annul(twice, "2026-03-11T08:00:00-06:00")
    # constancias: CIVA amount (LOT-23), annulling (LOT-15) or noting (LOT-16) a document with an active CIVA
    exempt = docs["c1-factura.xml"] = certified(5, "2026-03-05T10:00:00-06:00")  # IVA 91.07
    civa = docs["c2-civa.xml"] = certified(6, "2026-03-06T10:00:00-06:00", tipo="CIVA",
                                           complementos=[constancia(exempt, "91.18" if bad else "91.17")])
    if not bad:
        docs["c3-anulacion-civa.xml"] = annul(civa, "2026-03-09T08:00:00-06:00")
    docs["c4-anulacion.xml"] = annul(exempt, "2026-03-10T08:00:00-06:00")
    docs["c5-nota.xml"] = Invoice(tipo="NCRE", items=[Item.goods("Descuento", "1", "5.00")], complementos=[
        ReferenciasNota.of(exempt, "Descuento")])
    # CAIS whose origin lacks the maquila phrase (LOT-22)
    maquila = docs["m1-factura.xml"] = certified(7, "2026-03-05T10:00:00-06:00",
                                                 frases=[(1, 1)] if bad else [(1, 1), (4, 11)])
    docs["m2-cais.xml"] = certified(8, "2026-03-06T10:00:00-06:00", tipo="CAIS", complementos=[constancia(maquila)])
    # export against its provisional invoice: receiver (LOT-19), currency (LOT-20), 20 business days (LOT-21),
    # annulled (LOT-18), not a FACP (LOT-17)
    facp = docs["e1-provisional.xml"] = certified(9, "2026-03-20T09:00:00-06:00", tipo="FACP", receptor_id=RECEPTOR,
                                                  moneda="USD", frases=[(9, 11)])
    same = {} if bad else {"receptor_id": RECEPTOR, "moneda": "USD"}
    docs["e2-exportacion.xml"] = export(10, "2026-04-23T09:00:00-06:00" if bad else "2026-04-22T09:00:00-06:00",
                                        facp, **same)
    if bad:
        docs["e3-anulacion.xml"] = annul(facp, "2026-03-25T08:00:00-06:00")
    docs["e4-exportacion.xml"] = export(11, "2026-03-25T09:00:00-06:00", origin if bad else facp, **same)
    folder.mkdir(parents=True)
    for name, doc in docs.items():
        (folder / name).write_bytes(doc.to_xml())
    return folder


def lot_issues(tmp_path_factory, bad: bool) -> dict[str, dict[str, list]]:
    """FEL-LOT issues of every report, by file stem and rule id."""
    base = tmp_path_factory.mktemp("malo" if bad else "bueno")
    out = base / "salida"
    run_batch(BatchOptions(input_dir=write_folder(base / "entrada", bad), out_dir=out, render=False, workers=2,
                           progress=False))
    found: dict[str, dict[str, list]] = {}
    for path in sorted(out.glob("*.report.json")):
        report = Report.from_json(path.read_text(encoding="utf-8"))
        lot = {}
        for issue in report.issues:
            if issue.rule_id.startswith("FEL-LOT-"):
                lot.setdefault(issue.rule_id, []).append(issue)
        found[path.name.removesuffix(".report.json")] = lot
    return found


@pytest.fixture(scope="module")
def bad(tmp_path_factory):
    return lot_issues(tmp_path_factory, bad=True)


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    return lot_issues(tmp_path_factory, bad=False)


# rule id → the document it is reported on, and what its message names
EXPECTED = {
    "FEL-LOT-08": ("n2-nota", [OTRO_CERTIFICADOR, "16693949", "n1-origen.xml"]),
    "FEL-LOT-09": ("n2-nota", ["2026-03-01", "2026-03-02"]),
    "FEL-LOT-10": ("a2-anulacion", [OTRO_EMISOR, "a1-anulada.xml"]),
    "FEL-LOT-11": ("a2-anulacion", ["CF", RECEPTOR]),
    "FEL-LOT-12": ("a2-anulacion", [OTRO_CERTIFICADOR, "16693949"]),
    "FEL-LOT-13": ("a2-anulacion", ["2026-03-04", "2026-03-03"]),
    "FEL-LOT-14": ("d2-segunda", [uid(4), "d3-primera.xml", "2026-03-10T08:00:00-06:00"]),
    "FEL-LOT-15": ("c4-anulacion", [uid(5), "CIVA", "c2-civa.xml"]),
    "FEL-LOT-16": ("c5-nota", [uid(5), "CIVA", "c2-civa.xml"]),
    "FEL-LOT-17": ("e4-exportacion", ["n1-origen.xml", "FACT"]),
    "FEL-LOT-18": ("e2-exportacion", [uid(9), "e3-anulacion.xml"]),
    "FEL-LOT-19": ("e2-exportacion", ["CF", RECEPTOR, "e1-provisional.xml"]),
    "FEL-LOT-20": ("e2-exportacion", ["GTQ", "USD"]),
    "FEL-LOT-21": ("e2-exportacion", ["2026-04-23", "2026-03-20", "2026-04-22"]),
    "FEL-LOT-22": ("m2-cais", ["m1-factura.xml"]),
    "FEL-LOT-23": ("c2-civa", ["91.18", "91.07", "c1-factura.xml"]),
}


@pytest.mark.parametrize("rule_id", sorted(EXPECTED))
def test_rule_fires_on_the_right_document(validator, bad, rule_id):
    stem, named = EXPECTED[rule_id]
    (issue,) = bad[stem].get(rule_id, [None])
    assert issue is not None, f"{rule_id} not reported on {stem}: {sorted(bad[stem])}"
    assert issue.refs.sat_code == validator.catalog.get(rule_id).spec.refs.sat_code and issue.severity.value == "error"
    for value in named:
        assert value in issue.message
    assert [other for other, lot in bad.items() if rule_id in lot] == [stem]  # and nowhere else


def test_exactly_the_expected_issues(bad):
    reported = {(stem, rule_id) for stem, lot in bad.items() for rule_id in lot}
    assert reported == {(stem, rule_id) for rule_id, (stem, _) in EXPECTED.items()}


def test_nothing_fires_when_the_documents_agree(good):
    assert {stem: sorted(lot) for stem, lot in good.items() if lot} == {}


def test_reports_become_invalid(tmp_path):
    folder = tmp_path / "entrada"
    folder.mkdir()
    facp = certified(9, "2026-03-20T09:00:00-06:00", tipo="FACP", frases=[(9, 11)])
    (folder / "provisional.xml").write_bytes(facp.to_xml())
    (folder / "definitiva.xml").write_bytes(export(10, "2026-05-04T09:00:00-06:00", facp).to_xml())
    result = run_batch(BatchOptions(input_dir=folder, out_dir=tmp_path / "out", render=False, workers=1,
                                    progress=False, config=Config(lang="en")))
    entry = next(e for e in result.manifest.entries if e.path == "definitiva.xml")
    report = json.loads((tmp_path / "out" / entry.report).read_text(encoding="utf-8"))
    (issue,) = [i for i in report["issues"] if i["rule_id"] == "FEL-LOT-21"]
    assert not entry.valid and issue["title"].startswith("The final invoice")
    assert "feriados-gt.yaml" in issue["hint"] and "2026-04-22" in issue["message"]


def test_business_days_skip_weekends_and_holy_week():
    holidays = load_holidays(BUILTIN_RULES_DIR / HOLIDAYS_FILE)
    assert nth_business_day(date(2026, 3, 2), 20, holidays) == date(2026, 3, 30)
    assert nth_business_day(date(2026, 3, 20), 20, holidays) == date(2026, 4, 22)  # Holy Week: 1–3 April 2026
    assert nth_business_day(date(2026, 6, 26), 1, holidays) == date(2026, 7, 1)  # 30 June (Tuesday), the Monday before
    assert nth_business_day(date(2025, 12, 23), 4, holidays) == date(2026, 1, 2)  # not 24, 25, 31 December, 1 January


def _late_by_a_day(tmp_path: Path, rules_dir: Path) -> list[str]:
    """The FEL-LOT-21 issues of a final invoice issued the business day after its deadline (22 April 2026, with
    the shipped holidays), in a batch with the rules of ``rules_dir``."""
    folder = tmp_path / "entrada"
    folder.mkdir(exist_ok=True)
    facp = certified(9, "2026-03-20T09:00:00-06:00", tipo="FACP", frases=[(9, 11)])
    (folder / "provisional.xml").write_bytes(facp.to_xml())
    (folder / "definitiva.xml").write_bytes(export(10, "2026-04-23T09:00:00-06:00", facp).to_xml())
    out = tmp_path / "out"
    shutil.rmtree(out, ignore_errors=True)
    result = run_batch(BatchOptions(input_dir=folder, out_dir=out, render=False, workers=1, progress=False,
                                    config=Config(rules_dir=rules_dir)))
    entry = next(e for e in result.manifest.entries if e.path == "definitiva.xml")
    report = json.loads((out / entry.report).read_text(encoding="utf-8"))
    return [issue["message"] for issue in report["issues"] if issue["rule_id"] == "FEL-LOT-21"]


def test_the_holidays_are_those_of_the_rules_in_force(tmp_path):
    """A rules folder's own holiday file sets the deadlines, and an edit of it is read again in the same process."""
    rules = tmp_path / "reglas"
    shutil.copytree(BUILTIN_RULES_DIR, rules, ignore=shutil.ignore_patterns("tests"))
    assert _late_by_a_day(tmp_path, rules)  # one day late
    calendar = rules / HOLIDAYS_FILE
    calendar.write_text(calendar.read_text(encoding="utf-8").replace("fechas: []", 'fechas: ["2026-04-22"]'),
                        encoding="utf-8")
    assert _late_by_a_day(tmp_path, rules) == []  # 22 April is a holiday there: the deadline is the 23rd
    assert _late_by_a_day(tmp_path, BUILTIN_RULES_DIR)  # and not in the shipped rules


def test_a_folder_without_holidays_uses_the_shipped_ones(tmp_path):
    rules = tmp_path / "reglas"
    shutil.copytree(BUILTIN_RULES_DIR, rules, ignore=shutil.ignore_patterns("tests"))
    (rules / HOLIDAYS_FILE).unlink()
    holidays = Validator(Config(rules_dir=rules)).catalog.catalogues.holidays
    assert holidays == load_holidays(BUILTIN_RULES_DIR / HOLIDAYS_FILE) != HolidayCalendar()
    assert date(2026, 4, 2) in holidays.of_year(2026)  # Holy Thursday
    assert BUILTIN_RULES_DIR / HOLIDAYS_FILE in catalog_files(rules)  # (watched by the caches)


@pytest.mark.parametrize("text, line, said", [
    ("fijos: [\"13-01\"]\n", 1, "no es un día"),
    ("semana_santa: [\"jueves\"]\n", 1, "desde el domingo de Pascua"),
    ("fechas:\n  - \"2026-02-30\"\n", 2, "no es una fecha"),
    ("fijos: \"01-01\"\n", 1, "debe ser una lista"),
    ("feriados: []\n", 1, "clave desconocida"),
])
def test_a_bad_holiday_file_is_said_with_its_line(tmp_path, text, line, said):
    from fel_rules.core.errors import RuleFileError

    (tmp_path / "data").mkdir()
    (tmp_path / HOLIDAYS_FILE).write_text(text, encoding="utf-8")
    with pytest.raises(RuleFileError) as raised:
        load_holidays(tmp_path / HOLIDAYS_FILE)
    error = raised.value
    assert error.line == line and said in str(error) and str(tmp_path / HOLIDAYS_FILE) in str(error)


def batch_rule_codes(catalog) -> dict[str, list[str]]:
    """Batch rule id → the SAT codes it implements."""
    return {rule.id: [rule.spec.refs.sat_code] if isinstance(rule.spec.refs.sat_code, str) else rule.spec.refs.sat_code
            for rule in catalog.batch_rules}


def test_rule_table_lists_sat_codes(validator):
    codes = batch_rule_codes(validator.catalog)
    assert codes["FEL-LOT-07"] == ["FEL_RCP333", "FEL_RCP337", "FEL_RCP339", "FEL_RCP341", "FEL_RCP343",
                                   "FEL_RCP345", "FEL_RCP347"]
    assert codes["FEL-LOT-01"] == ["FEL_GEN106", "FEL_RCP365"]
    new = {"FEL_ANU369", "FEL_ANU371", "FEL_ANU372", "FEL_ANU374", "FEL_ANU451", "FEL_ANU458", "FEL_RCP356",
           "FEL_RCP358", "FEL_RCP443", "FEL_RCP447", "FEL_RCP448", "FEL_RCP449", "FEL_RCP453", "FEL_RCP454",
           "FEL_RCP463", "FEL_RCP465"}
    assert new <= {code for cited in codes.values() for code in cited}


@requires_shared
def test_cited_codes_exist_in_sats_catalogue(validator):
    catalogue = json.loads((FEL_REFERENCE / "catalogos" / "catalogoMensajes-0.3.0.json").read_text(encoding="utf-8"))
    rows = catalogue if isinstance(catalogue, list) else next(v for v in catalogue.values() if isinstance(v, list))
    known = {row["codigo"] for row in rows}
    assert {code for cited in batch_rule_codes(validator.catalog).values() for code in cited} <= known


def test_tax_excess_cites_the_code_of_its_tax(validator):
    from fel_rules.batch.cross import cross_issues
    from fel_rules.checks.batch_input import CrossFacts

    origin = CrossFacts(tipo="FACT", uuid=uid(1), tax_totals=(("IVA", "10"), ("PETROLEO", "4")))
    note = CrossFacts(tipo="NCRE", uuid=uid(2), origin_uuid=uid(1), tax_totals=(("IVA", "12"), ("PETROLEO", "5")))
    issues = cross_issues([("origen.xml", origin), ("nota.xml", note)], validator.catalog)["nota.xml"]
    assert sorted((i.rule_id, i.refs.sat_code) for i in issues) == [("FEL-LOT-07", "FEL_RCP333"),
                                                                  ("FEL-LOT-07", "FEL_RCP337")]


def test_a_profile_lowers_or_disables_batch_rules(tmp_path):
    folder = tmp_path / "entrada"
    folder.mkdir()
    facp = certified(9, "2026-03-20T09:00:00-06:00", tipo="FACP", frases=[(9, 11)], moneda="USD")
    (folder / "provisional.xml").write_bytes(facp.to_xml())
    (folder / "definitiva.xml").write_bytes(export(10, "2026-05-04T09:00:00-06:00", facp).to_xml())  # late, in GTQ
    profile = tmp_path / "lote.yaml"
    profile.write_text("schema_version: 1\nprofile: {id: lote, title: Lote}\noverrides:\n"
                       "  FEL-LOT-20: {enabled: false, reason: La moneda se revisa aparte}\n"
                       "  FEL-LOT-21: {severity: warning, reason: El plazo se controla en la aduana}\n",
                       encoding="utf-8")
    result = run_batch(BatchOptions(input_dir=folder, out_dir=tmp_path / "out", render=False, workers=1,
                                    progress=False, config=Config(profile=str(profile))))
    entry = next(e for e in result.manifest.entries if e.path == "definitiva.xml")
    report = Report.from_json((tmp_path / "out" / entry.report).read_text(encoding="utf-8"))
    lot = {i.rule_id: i.severity.value for i in report.issues if i.rule_id.startswith("FEL-LOT-")}
    assert lot == {"FEL-LOT-21": "warning"} and entry.valid


class _ReversedExecutor:
    """Runs the per-file function in this process and gives the results in the reverse order of the inputs (as
    workers may finish them)."""

    name, workers, crashes = "process", 1, 0

    def run(self, function, items, crashed=None, stop=None):
        return reversed([function(item) for item in items])

    def close(self, *, abort: bool = False) -> None:
        pass


def test_files_are_named_in_path_order_whatever_order_the_workers_finish_in(tmp_path, monkeypatch):
    from fel_rules.batch import runner

    monkeypatch.setattr(runner, "open_executor", lambda *args: _ReversedExecutor())
    folder = tmp_path / "entrada"
    folder.mkdir()
    names = ["b.xml", "a.xml", "d.xml", "c.xml", "e.xml"]
    for name in names:
        (folder / name).write_bytes(certified(7, "2026-03-02T09:00:00-06:00", tipo="FACT").to_xml())
    run_batch(BatchOptions(input_dir=folder, out_dir=tmp_path / "out", render=False, progress=False,
                           config=Config(lang="en")))
    for name in names:
        report = json.loads((tmp_path / "out" / name.replace(".xml", ".report.json")).read_text(encoding="utf-8"))
        (issue,) = [i for i in report["issues"] if i["rule_id"] == "FEL-LOT-01"]
        others = sorted(set(names) - {name})
        assert issue["message"].endswith(f"also appears in {', '.join(others)}."), issue["message"]
