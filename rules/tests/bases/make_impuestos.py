"""Writes the base documents of the tax rule cases: every tax of SAT's taxable-units catalogue.

Run ``python rules/tests/bases/make_impuestos.py`` from the repository root; the documents are
built with the test builder, so every amount follows the catalogue rates in rules/data/impuestos.yaml.
"""

from __future__ import annotations

from pathlib import Path

from fel_rules.testing.builder import Direccion, Impuesto, Invoice, Item, nit_with_check_digit

HERE = Path(__file__).resolve().parent

HOTEL = dict(
    emisor_nit=nit_with_check_digit("6183547"),
    emisor_nombre="INVERSIONES HOTELERAS DEL LAGO, SOCIEDAD ANÓNIMA",
    emisor_nombre_comercial="HOTEL VISTA AL LAGO",
    codigo_establecimiento=1,
    afiliacion_iva="GEN",
    emisor_direccion=Direccion("Calle Santander 3-10", "07010", "Panajachel", "Sololá"),
)
CLIENTE = dict(receptor_id=nit_with_check_digit("2846193"), receptor_nombre="DISTRIBUIDORA LA CEIBA, S.A.")


def impuestos_gtq() -> Invoice:
    """FACT in GTQ with one line per tax that SAT's catalogue rates in quetzales or percent."""
    return Invoice(
        tipo="FACT", fecha="2026-04-20T09:15:00-06:00", **HOTEL, **CLIENTE, frases=[(1, 1)],
        items=[
            # MontoGravable 500.00 (560 / 1.12) × 10 %
            Item.service("Hospedaje habitación doble, 1 noche", "1", "560.00", otros_impuestos=[
                Impuesto("TURISMO HOSPEDAJE", 1, "50.00", monto_gravable="500.00")]),
            # 200.00 × 5 por millar
            Item.service("Publicación de anuncio en prensa", "1", "224.00", otros_impuestos=[
                Impuesto("TIMBRE DE PRENSA", 1, "1.00", monto_gravable="200.00")]),
            # (1120.00 / 1.12) × 2 %
            Item.service("Prima de seguro contra incendio", "1", "1120.00", otros_impuestos=[
                Impuesto("BOMBEROS", 1, "20.00", monto_gravable="1000.00")]),
            # 10 bolsas × Q1.50
            Item.goods("Cemento gris, bolsa de 42.5 kg", "10", "85.00", otros_impuestos=[
                Impuesto("CEMENTO", 1, "15.00", cantidad_unidades_gravables="10")]),
            # 12 litros × Q0.18
            Item.goods("Gaseosa, botella de 3 litros", "4", "18.00", otros_impuestos=[
                Impuesto("BEBIDAS NO ALCOHOLICAS", 1, "2.16", cantidad_unidades_gravables="12")]),
            # precio sugerido 214.29 × 6 %
            Item.goods("Cerveza, caja de 24 unidades", "1", "240.00", otros_impuestos=[
                Impuesto("BEBIDAS ALCOHOLICAS", 1, "12.86", cantidad_unidades_gravables="214.29")]),
            # precio sugerido 60.00 × 75 %
            Item.goods("Cigarrillos, cajetilla de 20", "2", "30.00", otros_impuestos=[
                Impuesto("TABACO", 2, "45.00", cantidad_unidades_gravables="60.00")]),
        ],
    )


def impuestos_usd() -> Invoice:
    """FACT in USD with the taxes SAT's catalogue rates in US dollars per unit."""
    return Invoice(
        tipo="FACT", moneda="USD", fecha="2026-04-21T11:00:00-06:00", **HOTEL, **CLIENTE, frases=[(1, 1)],
        items=[
            # 2 pasajes × US$30
            Item.service("Paquete turístico con boleto aéreo", "2", "450.00", otros_impuestos=[
                Impuesto("TURISMO PASAJES", 1, "60.00", cantidad_unidades_gravables="2")]),
            # 1000 unidades × US$0.05
            Item.service("Manejo portuario de carga", "1", "800.00", otros_impuestos=[
                Impuesto("TARIFA PORTUARIA", 1, "50.00", cantidad_unidades_gravables="1000")]),
        ],
    )


BASES = {"impuestos-gtq.xml": impuestos_gtq, "impuestos-usd.xml": impuestos_usd}


def main() -> None:
    for name, factory in BASES.items():
        (HERE / name).write_bytes(factory().to_xml())
        print(f"written: {HERE / name}")


if __name__ == "__main__":
    main()
