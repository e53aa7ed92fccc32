"""Read the typed facts (:mod:`fel_rules.document.facts.model`) out of a parsed FEL tree.

Extraction is tolerant: missing elements become ``None``, malformed numbers keep their raw
text. It never raises for document content; the schema stage reports structural problems.
"""

from __future__ import annotations

from lxml import etree

from ...core.money import XML_SPACE, parse_decimal, parse_small_int
from ...core.namespaces import DS, DTE, DTE_ANULACION, prefixed
from ...core.record import build
from ...core.xmlpath import children_by_tag
from .model import (
    Address,
    Amount,
    Anulacion,
    Certificacion,
    Complemento,
    DatosGenerales,
    Documento,
    Emisor,
    Frase,
    Item,
    Receptor,
    Tax,
    Text,
    Totales,
    TotalImpuesto,
)

__all__ = ["extract_facts"]

_SIGNATURE = f"{{{DS}}}Signature"
_REFERENCE = f"{{{DS}}}SignedInfo/{{{DS}}}Reference"


#: Per namespace, the names of each local name read so far (the same few dozen in every document).
_TAGS: dict[str, dict[str, tuple[str, str]]] = {}

#: How a :class:`Text` is made in place (what ``build`` does, without the call).
_new = object.__new__
_set = object.__setattr__


class _Reader:
    """Child lookup and located values within one namespace, building XPaths as it goes. The children index of
    the element read last is kept at hand: a record's fields are read from one element, one after the other."""

    def __init__(self, namespace: str, memo: dict | None = None) -> None:
        self.ns = namespace
        self._tags = _TAGS.setdefault(namespace, {})  # (Clark name, prefixed name) of each local name
        self._memo = {} if memo is None else memo  # each element's children by tag (core.xmlpath.children_by_tag)
        self._parent: etree._Element | None = None  # the element whose children index is at hand
        self._children: dict = {}

    def tag(self, local: str) -> str:
        return self._names(local)[0]

    def _names(self, local: str) -> tuple[str, str]:
        names = self._tags.get(local)
        if names is None:
            clark = f"{{{self.ns}}}{local}"
            names = self._tags[local] = (clark, prefixed(clark))
        return names

    def _first(self, parent: etree._Element, clark: str) -> etree._Element | None:
        """``parent``'s first child ``clark`` (from its children index, kept at hand for the next field)."""
        if parent is not self._parent:
            self._children = children_by_tag(parent, self._memo)
            self._parent = parent
        found = self._children.get(clark)
        return found[0] if found else None

    def child(self, parent: etree._Element | None, path: str, local: str) -> tuple[etree._Element | None, str]:
        if parent is None:
            return None, ""
        clark, step = self._names(local)
        return self._first(parent, clark), f"{path}/{step}"

    def children(self, parent: etree._Element | None, path: str, local: str) -> list[tuple[etree._Element, str]]:
        if parent is None:
            return []
        clark, step = self._names(local)
        found = children_by_tag(parent, self._memo).get(clark, [])
        if len(found) == 1:
            return [(found[0], f"{path}/{step}")]
        return [(element, f"{path}/{step}[{index}]") for index, element in enumerate(found, 1)]

    @staticmethod
    def attr(element: etree._Element | None, path: str, name: str) -> Text | None:
        if element is None:
            return None
        value = element.get(name)
        if value is None:
            return None
        return build(Text, {"xpath": f"{path}/@{name}", "line": element.sourceline, "value": value})

    def text(self, parent: etree._Element | None, path: str, local: str) -> Text | None:
        if parent is None:
            return None
        clark, step = self._names(local)
        element = self._first(parent, clark)
        if element is None:
            return None
        return build(Text, {"xpath": f"{path}/{step}", "line": element.sourceline,
                            "value": (element.text or "").strip(XML_SPACE)})

    def texts(self, el: etree._Element, path: str, names: tuple[str, ...]) -> list[Text | None]:
        """The :class:`Text` of the first child of each local name of ``names`` (``None`` where there is none), in
        that order: what :meth:`text` gives for each, the children index looked up once."""
        children = children_by_tag(el, self._memo)
        texts: list[Text | None] = []
        for local in names:
            clark, step = self._names(local)
            found = children.get(clark)
            if found is None:
                texts.append(None)
            else:
                element = found[0]
                text = _new(Text)
                _set(text, "__dict__", {"xpath": f"{path}/{step}", "line": element.sourceline,
                                        "value": (element.text or "").strip(XML_SPACE)})
                texts.append(text)
        return texts

    def amount(self, parent: etree._Element | None, path: str, local: str) -> Amount | None:
        if parent is None:
            return None
        clark, step = self._names(local)
        element = self._first(parent, clark)
        if element is None:
            return None
        raw = (element.text or "").strip(XML_SPACE)
        return build(Amount, {"xpath": f"{path}/{step}", "line": element.sourceline, "raw": raw,
                              "value": parse_decimal(raw)})


def _attribute_texts(el: etree._Element, path: str, names: tuple[str, ...]) -> list[Text | None]:
    """The :class:`Text` of each attribute ``names`` of ``el`` (``None`` where it is absent), in that order: what
    :meth:`_Reader.attr` gives for each, reading the element's line once."""
    line = el.sourceline
    get = el.get
    texts: list[Text | None] = []
    for name in names:
        value = get(name)
        if value is None:
            texts.append(None)
        else:  # (build() of a Text, written in: a document has a few dozen of these)
            text = _new(Text)
            _set(text, "__dict__", {"xpath": f"{path}/@{name}", "line": line, "value": value})
            texts.append(text)
    return texts


def extract_facts(root: etree._Element, *, lines: bool = True, complements: bool = True, details: bool = True,
                  memo: dict | None = None) -> Documento | Anulacion:
    """Facts of a GTDocumento or GTAnulacionDocumento root (already checked by the parser).

    ``lines=False`` reads only the document's header (general data, parties, frases, totals,
    certification, each complement's own fields) and leaves ``items`` and the complements' ``rows`` empty:
    what a batch's cross-document rules need, at a fraction of the cost on long invoices; ``complements=False``
    leaves ``complementos`` empty too; ``details=False`` also leaves out the parties' addresses (``direccion`` is
    ``None``) and the frases (``[]``): what the engine itself reads of a document it only validates (its rule plan,
    the report's summary, the identifiers' checks). ``memo``: the document's memo, whose index of each element's
    children (:func:`~fel_rules.core.xmlpath.children_by_tag`) the rules use too.
    """
    if etree.QName(root).namespace == DTE_ANULACION:
        return _anulacion(root, memo)
    return _documento(root, lines, complements, details, memo)


def _documento(root: etree._Element, lines: bool = True, complements: bool = True, details: bool = True,
               memo: dict | None = None) -> Documento:
    r = _Reader(DTE, memo)
    path = "/dte:GTDocumento"
    sat, sat_path = r.child(root, path, "SAT")
    dte, dte_path = r.child(sat, sat_path, "DTE")
    emision, em_path = r.child(dte, dte_path, "DatosEmision")
    generales, gen_path = r.child(emision, em_path, "DatosGenerales")
    frases_el, frases_path = r.child(emision, em_path, "Frases") if details else (None, "")
    items_el, items_path = r.child(emision, em_path, "Items")
    complementos_el, comp_path = r.child(emision, em_path, "Complementos")
    return build(Documento, {
        "xpath": path,
        "line": root.sourceline,
        "kind": "documento",
        "datos_generales": _datos_generales(r, generales, gen_path),
        "emisor": _emisor(r, *r.child(emision, em_path, "Emisor"), details),
        "receptor": _receptor(r, *r.child(emision, em_path, "Receptor"), details),
        "frases": [_frase(r, el, p) for el, p in r.children(frases_el, frases_path, "Frase")],
        "items": [_item(r, el, p) for el, p in r.children(items_el, items_path, "Item")] if lines else [],
        "totales": _totales(r, *r.child(emision, em_path, "Totales")),
        "complementos": ([_complemento(r, el, p, lines)
                          for el, p in r.children(complementos_el, comp_path, "Complemento")] if complements else []),
        "certificacion": _certificacion(r, *r.child(dte, dte_path, "Certificacion")),
        "signatures": len(root.findall(_SIGNATURE)),
        "signed_references": _signed_references(root),
        "adenda": [],
        "adenda_omitted": 0,
    })


def _signed_references(root: etree._Element) -> list[str]:
    """URIs of the ds:References of the root's signatures, in document order."""
    signatures = root.iterchildren(_SIGNATURE)
    return [reference.get("URI", "") for signature in signatures for reference in signature.iterfind(_REFERENCE)]


def _datos_generales(r: _Reader, el: etree._Element | None, path: str) -> DatosGenerales | None:
    if el is None:
        return None
    tipo, fecha, moneda, exp, acceso, personeria = _attribute_texts(el, path, _DATOS_GENERALES)
    return build(DatosGenerales, {
        "xpath": path,
        "line": el.sourceline,
        "tipo": tipo,
        "fecha_hora_emision": fecha,
        "codigo_moneda": moneda,
        "exp": exp,
        "numero_acceso": acceso,
        "tipo_personeria": personeria,
    })


_DATOS_GENERALES = ("Tipo", "FechaHoraEmision", "CodigoMoneda", "Exp", "NumeroAcceso", "TipoPersoneria")


def _address(r: _Reader, el: etree._Element | None, path: str) -> Address | None:
    if el is None:
        return None
    direccion, codigo_postal, municipio, departamento, pais = r.texts(el, path, _ADDRESS)
    return build(Address, {
        "xpath": path,
        "line": el.sourceline,
        "direccion": direccion,
        "codigo_postal": codigo_postal,
        "municipio": municipio,
        "departamento": departamento,
        "pais": pais,
    })


_ADDRESS = ("Direccion", "CodigoPostal", "Municipio", "Departamento", "Pais")


def _emisor(r: _Reader, el: etree._Element | None, path: str, details: bool = True) -> Emisor | None:
    if el is None:
        return None
    nit, nombre, establecimiento, comercial, afiliacion, correo = _attribute_texts(el, path, _EMISOR)
    return build(Emisor, {
        "xpath": path,
        "line": el.sourceline,
        "nit": nit,
        "nombre": nombre,
        "codigo_establecimiento": establecimiento,
        "nombre_comercial": comercial,
        "afiliacion_iva": afiliacion,
        "correo": correo,
        "direccion": _address(r, *r.child(el, path, "DireccionEmisor")) if details else None,
    })


_EMISOR = ("NITEmisor", "NombreEmisor", "CodigoEstablecimiento", "NombreComercial", "AfiliacionIVA", "CorreoEmisor")


def _receptor(r: _Reader, el: etree._Element | None, path: str, details: bool = True) -> Receptor | None:
    if el is None:
        return None
    id_receptor, nombre, tipo_especial, correo = _attribute_texts(el, path, _RECEPTOR)
    return build(Receptor, {
        "xpath": path,
        "line": el.sourceline,
        "id": id_receptor,
        "nombre": nombre,
        "tipo_especial": tipo_especial,
        "correo": correo,
        "direccion": _address(r, *r.child(el, path, "DireccionReceptor")) if details else None,
    })


_RECEPTOR = ("IDReceptor", "NombreReceptor", "TipoEspecial", "CorreoReceptor")


def _frase(r: _Reader, el: etree._Element, path: str) -> Frase:
    tipo, escenario, resolucion, fecha = _attribute_texts(el, path, _FRASE)
    return build(Frase, {
        "xpath": path,
        "line": el.sourceline,
        "tipo_frase": tipo,
        "codigo_escenario": escenario,
        "numero_resolucion": resolucion,
        "fecha_resolucion": fecha,
    })


_FRASE = ("TipoFrase", "CodigoEscenario", "NumeroResolucion", "FechaResolucion")


def _tax(r: _Reader, el: etree._Element, path: str) -> Tax:
    return build(Tax, {
        "xpath": path,
        "line": el.sourceline,
        "nombre_corto": r.text(el, path, "NombreCorto"),
        "codigo_unidad_gravable": r.text(el, path, "CodigoUnidadGravable"),
        "monto_gravable": r.amount(el, path, "MontoGravable"),
        "cantidad_unidades_gravables": r.amount(el, path, "CantidadUnidadesGravables"),
        "monto_impuesto": r.amount(el, path, "MontoImpuesto"),
    })


def _item(r: _Reader, el: etree._Element, path: str) -> Item:
    number = el.get("NumeroLinea", "")
    impuestos_el, impuestos_path = r.child(el, path, "Impuestos")
    return build(Item, {
        "xpath": path,
        "line": el.sourceline,
        "numero_linea": parse_small_int(number),
        "bien_o_servicio": r.attr(el, path, "BienOServicio"),
        "codigo_producto": r.text(el, path, "CodigoProducto"),
        "cantidad": r.amount(el, path, "Cantidad"),
        "unidad_medida": r.text(el, path, "UnidadMedida"),
        "descripcion": r.text(el, path, "Descripcion"),
        "precio_unitario": r.amount(el, path, "PrecioUnitario"),
        "precio": r.amount(el, path, "Precio"),
        "descuento": r.amount(el, path, "Descuento"),
        "otros_descuento": r.amount(el, path, "OtrosDescuento"),
        "impuestos": [_tax(r, tax, p) for tax, p in r.children(impuestos_el, impuestos_path, "Impuesto")],
        "total": r.amount(el, path, "Total"),
    })


def _totales(r: _Reader, el: etree._Element | None, path: str) -> Totales | None:
    if el is None:
        return None
    impuestos_el, impuestos_path = r.child(el, path, "TotalImpuestos")
    return build(Totales, {
        "xpath": path,
        "line": el.sourceline,
        "total_impuestos": [
            build(TotalImpuesto, {
                "xpath": p,
                "line": t.sourceline,
                "nombre_corto": r.attr(t, p, "NombreCorto"),
                "total_monto_impuesto": _attr_amount(t, p, "TotalMontoImpuesto"),
            })
            for t, p in r.children(impuestos_el, impuestos_path, "TotalImpuesto")
        ],
        "gran_total": r.amount(el, path, "GranTotal"),
    })


def _attr_amount(el: etree._Element, path: str, name: str) -> Amount | None:
    raw = el.get(name)
    if raw is None:
        return None
    return build(Amount, {"xpath": f"{path}/@{name}", "line": el.sourceline, "raw": raw.strip(XML_SPACE),
                          "value": parse_decimal(raw)})


def _complemento(r: _Reader, el: etree._Element, path: str, lines: bool = True) -> Complemento:
    """A complement: its own fields, and its rows (one per child element with leaves) only with ``lines``."""
    content = next((child for child in el if isinstance(child.tag, str)), None)
    fields: dict[str, str] = {}
    rows: list[dict[str, str]] = []
    if content is not None:
        fields.update((etree.QName(name).localname, value) for name, value in content.attrib.items())
        for child in content:
            if not isinstance(child.tag, str):
                continue
            leaves = [leaf for leaf in child if isinstance(leaf.tag, str)]
            if leaves:
                if lines:
                    rows.append({etree.QName(leaf).localname: (leaf.text or "").strip(XML_SPACE) for leaf in leaves})
            else:
                fields.setdefault(etree.QName(child).localname, (child.text or "").strip(XML_SPACE))
    return build(Complemento, {
        "xpath": path,
        "line": el.sourceline,
        "nombre": r.attr(el, path, "NombreComplemento"),
        "uri": r.attr(el, path, "URIComplemento"),
        "content_tag": content.tag if content is not None else None,
        "fields": fields,
        "rows": rows,
    })


def _certificacion(r: _Reader, el: etree._Element | None, path: str) -> Certificacion | None:
    if el is None:
        return None
    numero_el, numero_path = r.child(el, path, "NumeroAutorizacion")
    return build(Certificacion, {
        "xpath": path,
        "line": el.sourceline,
        "nit_certificador": r.text(el, path, "NITCertificador"),
        "nombre_certificador": r.text(el, path, "NombreCertificador"),
        "numero_autorizacion": r.text(el, path, "NumeroAutorizacion"),
        "serie": r.attr(numero_el, numero_path, "Serie"),
        "numero": r.attr(numero_el, numero_path, "Numero"),
        "fecha_hora_certificacion": r.text(el, path, "FechaHoraCertificacion"),
    })


def _anulacion(root: etree._Element, memo: dict | None = None) -> Anulacion:
    r = _Reader(DTE_ANULACION, memo)
    path = "/dte:GTAnulacionDocumento"
    sat, sat_path = r.child(root, path, "SAT")
    anulacion, an_path = r.child(sat, sat_path, "AnulacionDTE")
    generales, gen_path = r.child(anulacion, an_path, "DatosGenerales")
    return build(Anulacion, {
        "xpath": path,
        "line": root.sourceline,
        "kind": "anulacion",
        "numero_documento_a_anular": r.attr(generales, gen_path, "NumeroDocumentoAAnular"),
        "nit_emisor": r.attr(generales, gen_path, "NITEmisor"),
        "id_receptor": r.attr(generales, gen_path, "IDReceptor"),
        "fecha_emision_documento_anular": r.attr(generales, gen_path, "FechaEmisionDocumentoAnular"),
        "fecha_hora_anulacion": r.attr(generales, gen_path, "FechaHoraAnulacion"),
        "motivo_anulacion": r.attr(generales, gen_path, "MotivoAnulacion"),
        "certificacion": _certificacion(r, *r.child(anulacion, an_path, "Certificacion")),
        "signatures": len(root.findall(_SIGNATURE)),
        "signed_references": _signed_references(root),
    })
