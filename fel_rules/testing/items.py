"""dte:Item of the builder: inputs, IVA treatment, computed amounts and XML writing."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from .amounts import Amount, LineAmounts, Number, TaxAmounts, pick, quantize, split_iva
from .xmltools import NS_DTE, Element, prune, sub

__all__ = ["Impuesto", "Item", "IvaMode"]

IvaMode = Literal["gravado", "exento", "ninguno"]
"""IVA of a line: code 1 computed from the price, code 2 exempt, or no dte:Impuestos."""


@dataclass
class Impuesto:
    """An additional (non-IVA) dte:Impuesto, written as given after the IVA one.

    Its MontoImpuesto is added to the item Total ("sumable" tax, FEL_RCP348).
    """

    nombre_corto: str
    codigo_unidad_gravable: int | str
    monto_impuesto: Number
    monto_gravable: Number | None = None
    cantidad_unidades_gravables: Number | None = None

    def amounts(self) -> TaxAmounts:
        return TaxAmounts(
            nombre_corto=self.nombre_corto,
            codigo_unidad_gravable=str(self.codigo_unidad_gravable),
            monto_gravable=_given(self.monto_gravable),
            cantidad_unidades_gravables=_given(self.cantidad_unidades_gravables),
            monto_impuesto=Amount.given(self.monto_impuesto),
        )


def _given(value: Number | None) -> Amount | None:
    return None if value is None else Amount.given(value)


@dataclass
class Item:
    """One dte:Item. Inputs are written as given; the rest is computed unless overridden."""

    descripcion: str
    cantidad: Number
    precio_unitario: Number
    bien_o_servicio: str = "B"
    unidad_medida: str | None = "UNI"
    descuento: Number | None = None  # None: written as 0
    otros_descuento: Number | None = None  # written as given, not used in computations
    codigo_producto: str | None = None
    observaciones: str | None = None
    iva: IvaMode | None = None  # None: default of the document type
    otros_impuestos: Sequence[Impuesto] = ()
    # Overrides of computed values (None: computed).
    numero_linea: int | str | None = None
    precio: Number | None = None
    nombre_corto_iva: str = "IVA"
    codigo_unidad_gravable: int | str | None = None
    monto_gravable: Number | None = None
    monto_impuesto: Number | None = None
    total: Number | None = None
    omit: Collection[str] = ()

    @classmethod
    def goods(cls, descripcion: str, cantidad: Number, precio_unitario: Number,
              **options: object) -> Item:
        """A good (BienOServicio="B")."""
        return cls(descripcion, cantidad, precio_unitario, "B", **options)  # type: ignore[arg-type]

    @classmethod
    def service(cls, descripcion: str, cantidad: Number, precio_unitario: Number,
                **options: object) -> Item:
        """A service (BienOServicio="S")."""
        return cls(descripcion, cantidad, precio_unitario, "S", **options)  # type: ignore[arg-type]

    def amounts(self, iva: IvaMode, decimals: int = 2) -> LineAmounts:
        """Compute the line's amounts for the given IVA treatment."""
        cantidad = Amount.given(self.cantidad)
        precio_unitario = Amount.given(self.precio_unitario)
        precio = pick(self.precio, lambda: quantize(
            cantidad.require("Cantidad") * precio_unitario.require("PrecioUnitario"), decimals))
        descuento = pick(self.descuento, lambda: quantize(Decimal(0), decimals))

        def base() -> Decimal:  # Precio - Descuento: the IVA-inclusive amount
            return quantize(precio.require("Precio") - descuento.require("Descuento"), decimals)

        impuestos = [tax for tax in [self._iva_amounts(iva, base, decimals)] if tax is not None]
        extra = [tax.amounts() for tax in self.otros_impuestos]
        impuestos.extend(extra)
        total = pick(self.total, lambda: base() + sum(
            (tax.monto_impuesto.require("MontoImpuesto") for tax in extra), Decimal(0)))
        return LineAmounts(
            cantidad=cantidad, precio_unitario=precio_unitario, precio=precio,
            descuento=descuento, otros_descuento=_given(self.otros_descuento),
            impuestos=tuple(impuestos), total=total,
        )

    def _iva_amounts(self, iva: IvaMode, base: Callable[[], Decimal], decimals: int) -> TaxAmounts | None:
        if iva == "ninguno":
            return None
        if iva == "gravado":
            gravable = pick(self.monto_gravable, lambda: split_iva(base(), decimals)[0])
            impuesto = pick(self.monto_impuesto,
                            lambda: base() - gravable.require("MontoGravable"))
            codigo = 1
        elif iva == "exento":
            gravable = pick(self.monto_gravable, base)
            impuesto = pick(self.monto_impuesto, lambda: quantize(Decimal(0), decimals))
            codigo = 2
        else:
            raise ValueError(f"unknown IVA treatment {iva!r}")
        if self.codigo_unidad_gravable is not None:
            codigo = self.codigo_unidad_gravable
        return TaxAmounts(self.nombre_corto_iva, str(codigo), gravable, None, impuesto)

    def write(self, parent: Element, numero_linea: int, line: LineAmounts) -> Element:
        """Append the dte:Item (schema order) and apply this item's ``omit``."""
        numero = self.numero_linea if self.numero_linea is not None else numero_linea
        item = sub(parent, NS_DTE, "Item",
                   attrs={"BienOServicio": self.bien_o_servicio, "NumeroLinea": numero})

        def optional(tag: str, value: str | Amount | None) -> None:
            if value is not None:
                sub(item, NS_DTE, tag, value.text if isinstance(value, Amount) else value)

        optional("CodigoProducto", self.codigo_producto)
        sub(item, NS_DTE, "Cantidad", line.cantidad.text)
        optional("UnidadMedida", self.unidad_medida)
        sub(item, NS_DTE, "Descripcion", self.descripcion)
        sub(item, NS_DTE, "PrecioUnitario", line.precio_unitario.text)
        optional("Observaciones", self.observaciones)
        sub(item, NS_DTE, "Precio", line.precio.text)
        optional("Descuento", line.descuento)
        optional("OtrosDescuento", line.otros_descuento)
        if line.impuestos:
            impuestos = sub(item, NS_DTE, "Impuestos")
            for tax in line.impuestos:
                _write_tax(impuestos, tax)
        sub(item, NS_DTE, "Total", line.total.text)
        prune(item, self.omit)
        return item


def _write_tax(parent: Element, tax: TaxAmounts) -> None:
    element = sub(parent, NS_DTE, "Impuesto")
    sub(element, NS_DTE, "NombreCorto", tax.nombre_corto)
    sub(element, NS_DTE, "CodigoUnidadGravable", tax.codigo_unidad_gravable)
    if tax.monto_gravable is not None:
        sub(element, NS_DTE, "MontoGravable", tax.monto_gravable.text)
    if tax.cantidad_unidades_gravables is not None:
        sub(element, NS_DTE, "CantidadUnidadesGravables", tax.cantidad_unidades_gravables.text)
    sub(element, NS_DTE, "MontoImpuesto", tax.monto_impuesto.text)
