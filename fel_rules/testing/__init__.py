"""Test support: build FEL documents (valid or broken on purpose), sign them with a TEST key, check them.

Used by the test suite, ``examples/generate.py``, the benchmarks and the scripts that write the rule
cases' base documents; the validator itself never imports it. Modules:

* :mod:`.builder` — :class:`Invoice`, :class:`Item` and the complements: documents from plain Python
  values, SAT's IVA-inclusive arithmetic in Decimal, every computed value overridable;
* :mod:`.signing` — XMLDSig + XAdES-BES signatures made with a fixed, self-signed **test** key
  (``test-signer-key.pem``, made for these tests; never SAT's, never for real documents);
* :mod:`.verify` — XSD errors against a compiled bundle and independent arithmetic checks.

::

    from fel_rules.testing import Invoice, Item

    xml = Invoice(tipo="FACT", items=[Item.goods("Cemento", cantidad="2", precio_unitario="85.00")]).to_xml()
"""

from __future__ import annotations

from .builder import Anulacion, Impuesto, Invoice, Item, sample_invoice

__all__ = ["Anulacion", "Impuesto", "Invoice", "Item", "sample_invoice"]
