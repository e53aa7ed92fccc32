"""Builder of dte:GTAnulacionDocumento (annulment, namespace http://www.sat.gob.gt/dte/fel/0.1.0).

All data are attributes of dte:DatosGenerales ID="DatosAnulacion".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .defaults import (
    DEFAULT_EMISOR_NIT,
    DEFAULT_FECHA,
    SAT_CERTIFICADOR_NIT,
    SAT_CERTIFICADOR_NOMBRE,
)
from .signing import document_bytes
from .xmltools import (
    NS_ANULACION,
    NS_DS,
    Element,
    add_placeholder_signature,
    apply_attributes,
    etree,
    prune,
    sub,
)

__all__ = ["Anulacion", "CertificacionAnulacion"]

if TYPE_CHECKING:
    from .builder import Invoice


@dataclass
class CertificacionAnulacion:
    """dte:Certificacion of an annulment (no authorization number)."""

    fecha: str
    nit: str = SAT_CERTIFICADOR_NIT
    nombre: str = SAT_CERTIFICADOR_NOMBRE


@dataclass(kw_only=True)
class Anulacion:
    """dte:GTAnulacionDocumento (namespace .../dte/fel/0.1.0); data are attributes."""

    numero_documento: str  # UUID of the DTE to annul
    nit_emisor: str = DEFAULT_EMISOR_NIT
    id_receptor: str = "CF"
    fecha_emision_documento: str = DEFAULT_FECHA
    fecha_hora_anulacion: str = "2026-03-16T09:00:00-06:00"
    motivo: str = "Error en los datos del receptor"
    certificacion: CertificacionAnulacion | None = None
    omit: Collection[str] = ()
    attributes: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    version: str = "0.1"

    @classmethod
    def for_invoice(cls, invoice: Invoice, fecha_hora_anulacion: str, motivo: str,
                    **options: object) -> Anulacion:
        """Annul a certified invoice (its UUID, emisor, receptor and date of emission)."""
        if invoice.certificacion is None:
            raise ValueError("only a certified document can be annulled: call certify() first")
        return cls(numero_documento=invoice.certificacion.uuid, nit_emisor=invoice.emisor_nit,
                   id_receptor=invoice.receptor_id, fecha_emision_documento=invoice.fecha,
                   fecha_hora_anulacion=fecha_hora_anulacion, motivo=motivo,
                   **options)  # type: ignore[arg-type]

    def certify(self, fecha: str, *, nit: str = SAT_CERTIFICADOR_NIT,
                nombre: str = SAT_CERTIFICADOR_NOMBRE) -> Anulacion:
        """Add the certifier's dte:Certificacion; returns self."""
        self.certificacion = CertificacionAnulacion(fecha, nit, nombre)
        return self

    def to_xml(self, signature: bool = False, *, signed: bool = True) -> bytes:
        """The document as UTF-8 bytes (declaration, 2-space indentation).

        A certified document is returned as its certifier would: signed by its issuer and its certifier
        (with the test signer of :mod:`.signing`), unless ``signed=False`` (a stripped certified document)
        or a placeholder ``signature`` is asked for.
        """
        return document_bytes(self.to_element(signature=signature), certified=self.certificacion is not None,
                              sign=signed and not signature)

    def to_element(self, signature: bool = False) -> Element:
        nsmap = {"dte": NS_ANULACION, **({"ds": NS_DS} if signature else {})}
        root = etree.Element(f"{{{NS_ANULACION}}}GTAnulacionDocumento", nsmap=nsmap)
        root.set("Version", self.version)
        sat = sub(root, NS_ANULACION, "SAT")
        anulacion = sub(sat, NS_ANULACION, "AnulacionDTE", attrs={"ID": "DatosCertificados"})
        sub(anulacion, NS_ANULACION, "DatosGenerales", attrs={
            "ID": "DatosAnulacion",
            "NumeroDocumentoAAnular": self.numero_documento,
            "NITEmisor": self.nit_emisor,
            "IDReceptor": self.id_receptor,
            "FechaEmisionDocumentoAnular": self.fecha_emision_documento,
            "FechaHoraAnulacion": self.fecha_hora_anulacion,
            "MotivoAnulacion": self.motivo,
        })
        if self.certificacion is not None:
            cert = sub(anulacion, NS_ANULACION, "Certificacion")
            sub(cert, NS_ANULACION, "NITCertificador", self.certificacion.nit)
            sub(cert, NS_ANULACION, "NombreCertificador", self.certificacion.nombre)
            sub(cert, NS_ANULACION, "FechaHoraCertificacion", self.certificacion.fecha)
        if signature:
            add_placeholder_signature(root, "#DatosAnulacion")
        prune(root, self.omit)
        apply_attributes(root, self.attributes)
        return root
