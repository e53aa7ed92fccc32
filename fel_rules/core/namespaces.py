"""FEL namespace URIs and the prefixes reports use for them."""

from __future__ import annotations

__all__ = ["DS", "DTE", "DTE_ANULACION", "PREFIXES", "clark", "prefixed"]

DTE = "http://www.sat.gob.gt/dte/fel/0.2.0"
DTE_ANULACION = "http://www.sat.gob.gt/dte/fel/0.1.0"
DS = "http://www.w3.org/2000/09/xmldsig#"

#: Canonical prefix of every namespace a FEL document may use (for readable XPaths).
PREFIXES: dict[str, str] = {
    DTE: "dte",
    DTE_ANULACION: "dte",
    DS: "ds",
    "http://www.sat.gob.gt/dte/fel/CompCambiaria/0.1.0": "cfc",
    "http://www.sat.gob.gt/face2/ComplementoReferenciaNota/0.1.0": "cno",
    "http://www.sat.gob.gt/face2/ComplementoFacturaEspecial/0.1.0": "cfe",
    "http://www.sat.gob.gt/face2/ComplementoExportaciones/0.1.0": "cex",
    "http://www.sat.gob.gt/face2/CobroXCuentaAjena/0.1.0": "cca",
    "http://www.sat.gob.gt/face2/ComplementoReferenciaConstancia/0.1.0": "crc",
    "http://www.sat.gob.gt/face2/ComplementoEspectaculos/0.1.0": "ces",
    "http://www.sat.gob.gt/face2/ComplementoMediosDePago/0.1.0": "cmdp",
    "http://uri.etsi.org/01903/v1.3.2#": "xades",
}


def clark(namespace: str, local: str) -> str:
    """``{namespace}local``, the tag form lxml uses."""
    return f"{{{namespace}}}{local}"


def prefixed(tag: str) -> str:
    """``dte:Item`` for ``{http://…/0.2.0}Item``; unknown namespaces keep the Clark form."""
    if not tag.startswith("{"):
        return tag
    namespace, _, local = tag[1:].partition("}")
    prefix = PREFIXES.get(namespace)
    return f"{prefix}:{local}" if prefix else tag
