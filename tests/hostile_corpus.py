"""The hostile-input corpus, generated (never downloaded): each case writes one input and says what
fel-rules must answer. Shared by tests/test_hostile_corpus.py and benchmarks/hostile.py."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fel_rules.testing.builder import Invoice, Item

ROOT = Path(__file__).resolve().parent.parent
FACT = (ROOT / "examples" / "factura-fact.xml").read_bytes()
CERTIFIED = (ROOT / "examples" / "factura-certificada.xml").read_bytes()
NS = b'xmlns:dte="http://www.sat.gob.gt/dte/fel/0.2.0"'


@dataclass(frozen=True)
class Case:
    """One hostile input and the expected outcome (``rule``: the issue that must appear; ``exit``: the CLI code)."""

    name: str
    what: str
    make: Callable[[Path], Path]
    rule: str | None
    exit: int
    answer: str


def _write(name: str, data: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(data)
        return path

    return make


def _replace(old: bytes, new: bytes) -> bytes:
    assert old in FACT, old
    return FACT.replace(old, new, 1)


#: The example invoice's emission time, which the date and time-zone cases replace.
_EMITTED = b'FechaHoraEmision="2026-03-02T09:15:00-06:00"'


def _sparse(name: str, size: int) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        with path.open("wb") as handle:
            handle.write(FACT[:200])
            handle.seek(size - 1)
            handle.write(b"\n")
        return path

    return make


def _directory(folder: Path) -> Path:
    path = folder / "carpeta.xml"
    path.mkdir()
    return path


def _loop(folder: Path) -> Path:
    first, second = folder / "bucle-a.xml", folder / "bucle-b.xml"
    os.symlink(second, first)
    os.symlink(first, second)
    return first


def _fifo(folder: Path) -> Path:
    path = folder / "tuberia.xml"
    os.mkfifo(path)
    return path


def _zero_link(folder: Path) -> Path:
    path = folder / "ceros.xml"
    os.symlink("/dev/zero", path)
    return path


def _many_items(count: int) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        items = [Item.goods(f"Artículo {n}", "1", "10.00") for n in range(count)]
        path = folder / f"{count}-items.xml"
        path.write_bytes(Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items).to_xml())
        return path

    return make


_XSLT_SIGNATURE = (  # an issuer's signature whose reference asks for an XSLT transform (never run)
    b'<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="Firma"><ds:SignedInfo>'
    b'<ds:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>'
    b'<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>'
    b'<ds:Reference URI="#DatosEmision"><ds:Transforms>'
    b'<ds:Transform Algorithm="http://www.w3.org/TR/1999/REC-xslt-19991116">'
    b'<xsl:stylesheet xmlns:xsl="http://www.w3.org/1999/XSL/Transform" version="1.0">'
    b'<xsl:template match="/"><xsl:value-of select="document(\'file:///etc/passwd\')"/></xsl:template>'
    b'</xsl:stylesheet></ds:Transform></ds:Transforms>'
    b'<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>AAAA</ds:DigestValue>'
    b'</ds:Reference></ds:SignedInfo><ds:SignatureValue>AAAA</ds:SignatureValue></ds:Signature>'
)

def _long_description(folder: Path) -> Path:
    description = "Servicio de mantenimiento preventivo del equipo de bombeo. " * 169 + "Fin."  # 9,975 characters
    path = folder / "descripcion-larga.xml"
    path.write_bytes(Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)],
                             items=[Item.goods(description, "1", "10.00")]).to_xml())
    return path


_LAUGHS = b"".join(b'<!ENTITY l%d "%s">' % (n, b"&l%d;" % (n - 1) * 10) for n in range(1, 10))
_QUADRATIC_ENTITY = b"x" * 100_000

CASES: list[Case] = [
    Case("xxe-file", "XXE: external entity reading /etc/passwd",
         _write("xxe-file.xml", b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                b"<dte:GTDocumento " + NS + b">&x;</dte:GTDocumento>"),
         "FEL-XML-04", 1, "refused: DOCTYPE; the entity is never resolved"),
    Case("xxe-network", "XXE: external entity over HTTP",
         _write("xxe-red.xml", b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "http://203.0.113.9/x">]>'
                b"<dte:GTDocumento " + NS + b">&x;</dte:GTDocumento>"),
         "FEL-XML-04", 1, "refused: DOCTYPE; no network access is attempted"),
    Case("billion-laughs", "Billion laughs (10⁹ expansions)",
         _write("risas.xml", b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY l0 "lol">' + _LAUGHS + b"]>"
                b"<dte:GTDocumento " + NS + b">&l9;</dte:GTDocumento>"),
         "FEL-XML-04", 1, "refused: DOCTYPE (entities are not expanded)"),
    Case("quadratic-blowup", "Quadratic blow-up (100 kB entity used 10,000 times)",
         _write("cuadratico.xml", b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "' + _QUADRATIC_ENTITY + b'">]>'
                b"<dte:GTDocumento " + NS + b">" + b"&a;" * 10_000 + b"</dte:GTDocumento>"),
         "FEL-XML-04", 1, "refused: DOCTYPE; libxml2's amplification guard also trips"),
    Case("external-dtd", "External DTD over HTTP",
         _write("dtd-externa.xml", b'<?xml version="1.0"?><!DOCTYPE dte:GTDocumento SYSTEM "http://203.0.113.9/fel.dtd">'
                b"<dte:GTDocumento " + NS + b"/>"),
         "FEL-XML-04", 1, "refused: DOCTYPE; the network load is blocked"),
    Case("deep-nesting", "100,000 nested elements",
         _write("profundo.xml", b"<dte:GTDocumento " + NS + b">" + b"<a>" * 100_000 + b"</a>" * 100_000
                + b"</dte:GTDocumento>"),
         "FEL-XML-03", 1, "malformed: nesting deeper than 256 levels"),
    Case("huge-attribute", "A 15 MB attribute value",
         _write("atributo.xml", b"<dte:GTDocumento " + NS + b' Version="' + b"x" * 15_000_000 + b'"/>'),
         "FEL-XML-03", 1, "malformed: a text or attribute larger than 10 MB"),
    Case("100mb", "A 100 MB file", _sparse("enorme.xml", 100 * 1024 * 1024),
         "FEL-XML-02", 2, "refused before reading (limit 20 MB, --max-bytes)"),
    Case("truncated", "Truncated document", _write("truncado.xml", FACT[: len(FACT) // 2]),
         "FEL-XML-03", 1, "malformed, with the line where it stops"),
    Case("wrong-encoding", "Declares UTF-16, is UTF-8",
         _write("codificacion.xml", _replace(b'encoding="UTF-8"', b'encoding="UTF-16"')),
         "FEL-XML-03", 1, "malformed"),
    Case("utf16-bom", "UTF-16 with BOM (a valid invoice)",
         _write("utf16.xml", _replace(b'encoding="UTF-8"', b'encoding="UTF-16"').decode().encode("utf-16")),
         None, 0, "valid"),
    Case("utf8-bom", "UTF-8 with BOM (a valid invoice)", _write("bom.xml", b"\xef\xbb\xbf" + FACT),
         None, 0, "valid"),
    Case("nul-bytes", "NUL bytes inside the document", _write("nul.xml", _replace(b'Tipo="FACT"', b'Tipo="FA\x00CT"')),
         "FEL-XML-03", 1, "malformed"),
    Case("html", "An HTML page", _write("pagina.xml", b"<!DOCTYPE html><html><body><p>Factura</p></body></html>"),
         "FEL-XML-05", 1, "not a FEL document"),
    Case("json", "A JSON file", _write("datos.xml", b'{"Tipo": "FACT", "GranTotal": 100}'),
         "FEL-XML-03", 1, "malformed, \"the file looks like JSON\""),
    Case("empty", "An empty file", _write("vacio.xml", b""), "FEL-XML-01", 1, "empty document"),
    Case("directory", "A directory named .xml", _directory, None, 2,
         "CLI: \"the directory contains no .xml files\"; batch: skipped (not a file)"),
    Case("symlink-loop", "A symlink loop", _loop, None, 2,
         "CLI on the file: \"no such file\"; in a folder or a batch: its own FEL-XML-07 entry"),
    Case("9999-items", "A FEL document with 9,999 items", _many_items(9999), None, 0, "valid (SAT's maximum)"),
    Case("10000-items", "A FEL document with 10,000 items", _many_items(10000), "FEL-XML-08", 2,
         "refused before the schema (limit 9,999, --max-items)"),
    Case("22-digits", "Amounts with 22 digits, 10 of them decimals",
         _write("digitos.xml",
                _replace(b"<dte:PrecioUnitario>85.00<", b"<dte:PrecioUnitario>123456789012.1234567890<")),
         "FEL-LIN-01", 1, "schema-valid number; arithmetic rules report the inconsistency"),
    Case("23-digits", "An amount with 23 digits",
         _write("digitos23.xml", _replace(b"<dte:GranTotal>1911.50<", b"<dte:GranTotal>1234567890123.1234567891<")),
         "FEL-XSD-01", 1, "schema error: more than 22 digits"),
    Case("negative", "A negative amount",
         _write("negativo.xml", _replace(b"<dte:GranTotal>1911.50<", b"<dte:GranTotal>-1911.50<")),
         "FEL-XSD-01", 1, "schema error: must be ≥ 0"),
    Case("exponent", "Exponent notation (1.9115E3)",
         _write("exponente.xml", _replace(b"<dte:GranTotal>1911.50<", b"<dte:GranTotal>1.9115E3<")),
         "FEL-XSD-01", 1, "schema error: not an xs:decimal; rules never read it as a number"),
    Case("invalid-date", "Invalid date 2025-02-30",
         _write("fecha.xml", _replace(_EMITTED, b'FechaHoraEmision="2025-02-30T09:15:00-06:00"')),
         "FEL-XSD-01", 1, "schema error: not a date"),
    Case("tz-none", "Emission time without a time zone",
         _write("sin-zona.xml", _replace(_EMITTED, b'FechaHoraEmision="2026-03-02T09:15:00"')),
         None, 0, "valid (SAT reads it as Guatemala time)"),
    Case("tz-utc", "Emission time in UTC (Z)",
         _write("utc.xml", _replace(_EMITTED, b'FechaHoraEmision="2026-03-02T15:15:00Z"')),
         None, 0, "valid"),
    Case("tz-bad", "Emission time with an impossible offset (+25:00)",
         _write("zona-mala.xml", _replace(_EMITTED, b'FechaHoraEmision="2026-03-02T09:15:00+25:00"')),
         "FEL-XSD-01", 1, "schema error"),
    # concurrency: an element under a schema wildcard, in a namespace the schema set does not import
    Case("xslt-transform", "A signature asking for an XSLT transform",
         _write("xslt.xml", _replace(b"</dte:SAT>", b"</dte:SAT>" + _XSLT_SIGNATURE)),
         "FEL-FIR-01", 1, "the transform is refused, never run; the schema set never loads the XSLT namespace"),
    # work without bounds: the schema engine's work grows with the square of the attributes of one element
    Case("2000-attributes", "2,000 attributes on one element (27 kB)",
         _write("atributos.xml", _replace(b"<dte:DatosGenerales ", b"<dte:DatosGenerales "
                                          + b" ".join(b'a%d="x"' % n for n in range(2000)) + b" ")),
         "FEL-XML-09", 2, "refused before the schema (limit 100 attributes per element, Config.max_attributes)"),
    # work without bounds: the schema engine's explanation of unexpected children grows with the square of their number
    Case("64000-children", "64,000 unexpected empty elements in dte:DatosEmision (260 kB)",
         _write("hijos.xml", _replace(b'<dte:DatosEmision ID="DatosEmision">',
                                      b'<dte:DatosEmision ID="DatosEmision">' + b"<a/>" * 64_000)),
         "FEL-XSD-06", 1, "invalid; the element's 64,000 children are said in one finding, not one by one"),
    # valid documents that strain the renderer: SAT allows a 10,000-character description
    Case("long-description", "A 9,975-character item description (SAT's limit: 10,000)", _long_description,
         None, 0, "valid; the PDF splits the description across pages"),
    # unreadable values and stripped certified documents (never a false "VÁLIDO")
    Case("space-in-amount", "An amount with an inner space (99 999.99)",
         _write("espacio.xml", _replace(b"<dte:GranTotal>1911.50<", b"<dte:GranTotal>99 999.99<")),
         "FEL-DAT-01", 1, "schema error (not an xs:decimal) and FEL-DAT-01: the rules cannot read it"),
    Case("nbsp-in-amount", "An amount with a no-break space (1\u00a0911.50)",
         _write("nbsp.xml", _replace(b"<dte:GranTotal>1911.50<", "<dte:GranTotal>1\u00a0911.50<".encode())),
         "FEL-DAT-01", 1, "schema error (not an xs:decimal) and FEL-DAT-01: the rules cannot read it"),
    Case("underscore-integer", "A line number written 0_1 (Python's int() reads it)",
         _write("guion-bajo.xml", _replace(b'NumeroLinea="1"', b'NumeroLinea="0_1"')),
         "FEL-XSD-01", 1, "schema error: not an xs:positiveInteger"),
    Case("stripped-certified", "A certified document stripped of its ds:Signature elements",
         _write("sin-firmas.xml", CERTIFIED[:CERTIFIED.index(b"<ds:Signature")] + b"</dte:GTDocumento>"),
         "FEL-FIR-05", 1, "schema error (ds:Signature required) and FEL-FIR-05/FEL-FEC-03: never pre-signature"),
    # odd files: only regular files are read, always with a byte cap; names need not be UTF-8
    Case("fifo", "A FIFO named .xml (no writer)", _fifo, "FEL-XML-07", 2,
         "not read: not a regular file (never waits for a writer)"),
    Case("dev-zero-link", "A symlink to /dev/zero named .xml", _zero_link, "FEL-XML-07", 2,
         "not read: a character device (no endless read)"),
    Case("latin1-name", "A valid invoice whose file name is Latin-1, not UTF-8",
         _write(os.fsdecode(b"factura-a\xf1o.xml"), FACT), None, 0, "valid; the name is shown as factura-a\\xf1o.xml"),
]
