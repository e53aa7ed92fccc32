"""Generate the base documents of the test cases of the reformatting rules (FEL-FIR-06, FEL-FIR-07).

Certifiers return certified documents without indentation (no whitespace between the elements of the
signed data, a line break between the elements of each ds:Signature). These bases are written that
way: ``examples/factura-certificada.xml`` and the certified annulment of ``complementos-anulacion-
certificada.xml``, without whitespace between elements, signed by their issuer and their certifier with
the tests' self-signed certificate (``fel_rules/testing/signing.py``, not SAT's). The output is
deterministic.

Usage::

    .venv/bin/python rules/tests/bases/make_firmas.py
"""

from __future__ import annotations

from pathlib import Path

from fel_rules.testing.signing import sign_certified
from fel_rules.testing.xmltools import NS_DS, XML_DECLARATION, etree

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent.parent.parent / "examples"

SOURCES = {
    "firmas-factura-compacta.xml": EXAMPLES / "factura-certificada.xml",
    "firmas-anulacion-compacta.xml": HERE / "complementos-anulacion-certificada.xml",
}


def compact_and_signed(source: Path) -> bytes:
    """``source`` without its signatures and the whitespace between its elements, signed again."""
    root = etree.fromstring(source.read_bytes(), etree.XMLParser(remove_blank_text=True))
    for signature in root.findall(f"{{{NS_DS}}}Signature"):
        root.remove(signature)
    return sign_certified(XML_DECLARATION + etree.tostring(root, encoding="UTF-8"))


def main() -> None:
    for name, source in SOURCES.items():
        (HERE / name).write_bytes(compact_and_signed(source))
        print(f"written: {HERE / name}")


if __name__ == "__main__":
    main()
