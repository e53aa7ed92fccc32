"""Printed labels of the PDF, in Spanish and English."""

from __future__ import annotations

__all__ = ["labels"]

_ES = {
    "emisor": "Emisor", "receptor": "Receptor", "nit": "NIT", "cui": "CUI", "ext": "ID extranjero",
    "cf": "Consumidor final", "establecimiento": "Establecimiento", "serie": "Serie", "numero": "Número",
    "autorizacion": "Número de autorización", "emision": "Fecha de emisión", "certificacion": "Fecha de certificación",
    "certificador": "Certificador", "moneda": "Moneda", "cantidad": "Cant.", "bs": "B/S", "descripcion": "Descripción",
    "unitario": "P. unitario", "descuento": "Descuento", "total": "Total", "subtotal": "Subtotal",
    "gran_total": "Gran total", "en_letras": "Total en letras", "frases": "Frases", "bien": "B", "servicio": "S",
    "pagina": "Página {page} de {pages}", "no_certificado": "DOCUMENTO NO CERTIFICADO", "no_valido": "NO VÁLIDO",
    "verificar": "Verifique este documento en el portal de SAT", "abonos": "Abonos (factura cambiaria)",
    "abono": "Abono", "vencimiento": "Vencimiento", "monto": "Monto", "retenciones": "Retenciones (factura especial)",
    "retencion_isr": "Retención ISR", "retencion_iva": "Retención IVA", "total_menos": "Total menos retenciones",
    "origen": "Documento de origen", "motivo": "Motivo del ajuste", "fecha_origen": "Fecha de emisión del origen",
    "exportacion": "Datos de exportación", "consignatario": "Consignatario", "direccion": "Dirección",
    "incoterm": "INCOTERM", "comprador": "Comprador", "exportador": "Exportador", "complemento": "Complemento",
    "sin_certificar": "Sin código de verificación de SAT: el documento no está certificado con sus firmas "
                      "o su gran total no se puede leer.",
    "observaciones": "Observaciones",
}

_EN = {
    "emisor": "Issuer", "receptor": "Customer", "nit": "NIT", "cui": "CUI", "ext": "Foreign ID",
    "cf": "Final consumer", "establecimiento": "Establishment", "serie": "Series", "numero": "Number",
    "autorizacion": "Authorization number", "emision": "Issue date", "certificacion": "Certification date",
    "certificador": "Certifier", "moneda": "Currency", "cantidad": "Qty", "bs": "G/S", "descripcion": "Description",
    "unitario": "Unit price", "descuento": "Discount", "total": "Total", "subtotal": "Subtotal",
    "gran_total": "Grand total", "en_letras": "Amount in words", "frases": "Legends", "bien": "G", "servicio": "S",
    "pagina": "Page {page} of {pages}", "no_certificado": "DOCUMENTO NO CERTIFICADO", "no_valido": "NO VÁLIDO",
    "verificar": "Verify this document on SAT's portal", "abonos": "Instalments (exchange invoice)",
    "abono": "Instalment", "vencimiento": "Due date", "monto": "Amount", "retenciones": "Withholdings (special invoice)",
    "retencion_isr": "ISR withheld", "retencion_iva": "IVA withheld", "total_menos": "Total less withholdings",
    "origen": "Origin document", "motivo": "Reason", "fecha_origen": "Origin issue date",
    "exportacion": "Export data", "consignatario": "Consignee", "direccion": "Address",
    "incoterm": "INCOTERM", "comprador": "Buyer", "exportador": "Exporter", "complemento": "Complement",
    "sin_certificar": "No SAT verification code: the document is not certified with its signatures, "
                      "or its grand total cannot be read.",
    "observaciones": "Remarks",
}


_LABELS = {"es": _ES, "en": _EN}


def labels(lang: str) -> dict[str, str]:
    """All printed labels in ``lang`` (the watermarks stay in Spanish: they are legal notices)."""
    return _LABELS.get(lang, _ES)
