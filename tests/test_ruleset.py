"""Rule files are checked when they load: every mistake names file, line, column and rule."""

from __future__ import annotations

import textwrap
from datetime import date

import pytest

from fel_rules import Config, RuleFileError, Validator
from fel_rules.ruleset import load_catalog, load_rule_file

from .conftest import EXAMPLES, encoded_forms

HEADER = """\
schema_version: 1
ruleset: {id: prueba, version: "1", title: Reglas de prueba}
rules:
"""

GOOD_RULE = """\
  - id: TST-01
    title: Descuento no mayor que el precio
    context: "//dte:Item[dte:Descuento]"
    let: {precio: dte:Precio, descuento: dte:Descuento}
    assert: descuento <= precio
    message: "Línea {item}: descuento {descuento} > precio {precio}"
"""


def write(tmp_path, body: str, name: str = "prueba.yaml"):
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(body), encoding="utf-8")
    return path


def load_error(tmp_path, body: str) -> RuleFileError:
    path = write(tmp_path, body)
    with pytest.raises(RuleFileError) as info:
        load_rule_file(path)
    return info.value


def test_good_rule_loads(tmp_path):
    ruleset = load_rule_file(write(tmp_path, GOOD_RULE))
    (rule,) = ruleset.rules
    assert (rule.id, rule.line, type(rule.check).__name__) == ("TST-01", 4, "ExpressionCheck")


def test_unknown_key(tmp_path):
    error = load_error(tmp_path, GOOD_RULE + "    severidad: alta\n")
    assert (error.line, error.column, error.rule_id) == (10, 3, "TST-01")
    assert "clave desconocida 'severidad'" in error.message
    assert "unknown key 'severidad'" in error.message_en
    assert error.message.startswith(f"{tmp_path / 'prueba.yaml'}:10:3 [TST-01]: ")


def test_unknown_check_kind(tmp_path):
    error = load_error(tmp_path, """\
      - id: TST-02
        title: x
        check: digito_magico
        message: x
    """)
    assert error.line == 6 and error.rule_id == "TST-02"
    assert "Tipo de verificación desconocido 'digito_magico'" in error.message and "nit" in error.message


def test_bad_params(tmp_path):
    error = load_error(tmp_path, """\
      - id: TST-03
        title: x
        check: nit
        params: {party: vendedor}
        message: x
    """)
    assert error.line == 7 and error.rule_id == "TST-03"
    assert "party" in error.message


def test_bad_expression_names_the_column(tmp_path):
    error = load_error(tmp_path, GOOD_RULE.replace("assert: descuento <= precio", "assert: descuento.real <= precio"))
    assert error.line == 8 and error.rule_id == "TST-01"
    assert "acceso a atributos" in error.message and error.column == 11  # "descuento.real" starts there


def test_unknown_name_in_expression(tmp_path):
    error = load_error(tmp_path, GOOD_RULE.replace("descuento <= precio", "descuento <= costo"))
    assert "nombre desconocido 'costo'" in error.message and "unknown name 'costo'" in error.message_en


def test_bad_xpath(tmp_path):
    error = load_error(tmp_path, GOOD_RULE.replace('"//dte:Item[dte:Descuento]"', '"//dte:Item[["'))
    assert error.rule_id == "TST-01" and "XPath inválido" in error.message


def test_duplicate_rule_id_in_one_file(tmp_path):
    error = load_error(tmp_path, GOOD_RULE + GOOD_RULE)
    assert error.line == 10 and "duplicado" in error.message and "line 4" in error.message_en


def test_duplicate_rule_id_across_files(tmp_path):
    write(tmp_path, GOOD_RULE, "a.yaml")
    other = (HEADER.replace("id: prueba", "id: otra") + GOOD_RULE)
    (tmp_path / "b.yaml").write_text(other, encoding="utf-8")
    with pytest.raises(RuleFileError) as info:
        load_catalog(tmp_path)
    assert "b.yaml" in info.value.message and "a.yaml:4" in info.value.message


def test_duplicate_yaml_key(tmp_path):
    error = load_error(tmp_path, GOOD_RULE + "    title: otra vez\n")
    assert error.line == 10 and "clave duplicada 'title'" in error.message


@pytest.mark.parametrize(("extra", "said"), [
    ("    effective: {from: 2025-02-30}\n", "'2025-02-30' no es válido"),  # a date that does not exist
    ("    version: !!int abc\n", "'abc' no es válido"),
    ("    version: !!timestamp abc\n", "'abc' no es válido"),
    ("    ? [a, b]\n    : c\n", "una clave debe ser un texto o un número"),
])
def test_a_value_yaml_cannot_construct_is_an_error_at_its_place(tmp_path, extra, said):
    error = load_error(tmp_path, GOOD_RULE + extra)
    assert error.line == 10 and said in error.message and error.message_en


def test_yaml_syntax_error(tmp_path):
    error = load_error(tmp_path, "  - id: [sin cerrar\n")
    assert error.line is not None and "YAML inválido" in error.message


def test_expression_keys_with_another_kind(tmp_path):
    error = load_error(tmp_path, """\
      - id: TST-04
        title: x
        check: required
        params: {fields: ["@NITEmisor"]}
        assert: "True"
        message: x
    """)
    assert error.line == 8 and "solo se usa con check: expression" in error.message


def test_missing_message(tmp_path):
    error = load_error(tmp_path, """\
      - id: TST-05
        title: x
        context: //dte:Item
        assert: "True"
    """)
    assert "falta la clave obligatoria 'message'" in error.message and error.rule_id == "TST-05"


def test_bad_rule_id(tmp_path):
    error = load_error(tmp_path, GOOD_RULE.replace("TST-01", "regla uno"))
    assert "'id' no tiene el formato requerido" in error.message


def test_unknown_dte_type(tmp_path):
    error = load_error(tmp_path, GOOD_RULE + "    applies_to: [FACT, FACTURA]\n")
    assert "FACTURA" in error.message


def test_let_uses_a_later_variable(tmp_path):
    error = load_error(tmp_path, GOOD_RULE.replace(
        "let: {precio: dte:Precio, descuento: dte:Descuento}",
        "let: {precio: 'dte:Precio[. > $descuento]', descuento: dte:Descuento}"))
    assert "$descuento" in error.message


# --- named places, computed values and tables ----------------------------------------------------

PLACES_RULE = """\
  - id: TST-20
    title: Cada línea de una factura lleva descripción
    context: items
    let:
      tipo: {path: generales/@Tipo, type: text}
      descripcion: {path: dte:Descripcion, type: text}
      requerida: {value: "lookup(largo_minimo, tipo)"}
    constants:
      largo_minimo: {FACT: 50, FCAM: 3}
    assert: len(descripcion) >= requerida
    message: "Línea {item}: en un {tipo} la descripción lleva al menos {requerida} caracteres; tabla {largo_minimo}."
"""


def test_places_stand_for_their_xpaths(tmp_path):
    (rule,) = load_rule_file(write(tmp_path, PLACES_RULE)).rules
    assert rule.check.context.path == "/dte:GTDocumento/dte:SAT/dte:DTE/dte:DatosEmision/dte:Items/dte:Item"
    assert rule.check.bindings[0].path == "/dte:GTDocumento/dte:SAT/dte:DTE/dte:DatosEmision/dte:DatosGenerales/@Tipo"


def test_a_computed_value_reads_a_table(tmp_path):
    report = Validator(Config(rules_dir=write(tmp_path, PLACES_RULE).parent)).validate_bytes(FACT)
    messages = [i.message for i in report.issues if i.rule_id == "TST-20"]
    assert messages and all("en un FACT la descripción lleva al menos 50 caracteres" in m for m in messages)
    assert "tabla FACT: 50, FCAM: 3." in messages[0]


def test_unknown_place_names_line_and_column(tmp_path):
    error = load_error(tmp_path, PLACES_RULE.replace("context: items", "context: lineas[dte:Descuento]"))
    assert (error.line, error.column, error.rule_id) == (6, 12, "TST-20")  # where 'lineas' starts
    assert "context: lugar desconocido 'lineas'" in error.message and "generales" in error.message
    assert "unknown place 'lineas'" in error.message_en


def test_unknown_place_in_a_let_path_points_into_the_path(tmp_path):
    error = load_error(tmp_path, PLACES_RULE.replace("generales/@Tipo", "general/@Tipo"))
    assert (error.line, error.column) == (8, 18)
    assert "let.tipo.path: lugar desconocido 'general'" in error.message


def test_unknown_place_in_a_required_rule(tmp_path):
    error = load_error(tmp_path, """\
      - id: TST-21
        title: x
        check: required
        params: {context: emisores, fields: ["@NITEmisor"]}
        message: x
    """)
    assert (error.line, error.column, error.rule_id) == (7, 21, "TST-21")
    assert "context: lugar desconocido 'emisores'" in error.message

def test_a_batch_rule_points_through_places(tmp_path):
    """A batch rule's ``at`` may start with a place: its issues point at the absolute XPath; an unknown place is
    an error of the rule file."""
    rule = """\
      - id: TST-22
        title: x
        scope: batch
        check: repeated_authorization
        params: {at: certificacion/dte:NumeroAutorizacion}
        message: x
    """
    (loaded,) = load_rule_file(write(tmp_path, rule)).rules
    assert loaded.check.at == "/dte:GTDocumento/dte:SAT/dte:DTE/dte:Certificacion/dte:NumeroAutorizacion"
    error = load_error(tmp_path, rule.replace("at: certificacion", "at: certificado"))
    assert (error.line, error.rule_id) == (8, "TST-22") and "at: lugar desconocido 'certificado'" in error.message


def test_a_computed_value_may_only_use_earlier_names(tmp_path):
    error = load_error(tmp_path, PLACES_RULE.replace('lookup(largo_minimo, tipo)', 'lookup(largo_minimo, otro)'))
    assert "let.requerida.value: nombre desconocido 'otro'" in error.message
    assert (error.line, error.column) == (10, 46)


def test_a_computed_value_takes_no_type(tmp_path):
    error = load_error(tmp_path, PLACES_RULE.replace('{value: "lookup(largo_minimo, tipo)"}',
                                                     '{value: "lookup(largo_minimo, tipo)", type: int}'))
    assert "no lleva type, many ni default" in error.message


def test_a_folder_defines_its_own_places(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "lugares.yaml").write_text(
        "documento:\n  raiz: /dte:GTDocumento\n  emision: raiz/dte:SAT/dte:DTE/dte:DatosEmision\n"
        "  items: emision/dte:Items/dte:Item\n  generales: emision/dte:DatosGenerales\n", encoding="utf-8")
    (rule,) = load_rule_file(write(tmp_path, PLACES_RULE)).rules
    assert rule.check.context.path == "/dte:GTDocumento/dte:SAT/dte:DTE/dte:DatosEmision/dte:Items/dte:Item"


def test_without_places_a_bare_name_keeps_its_xpath_meaning():
    from fel_rules.checks.places import expand_places

    assert expand_places("m[. > 1] | count(r/m)", {}) == "m[. > 1] | count(r/m)"
    assert expand_places("count(r/m) div 2 and @Tipo", {"r": "/dte:R"}) == "count(/dte:R/m) div 2 and @Tipo"

@pytest.mark.parametrize(
    ("places", "line", "fragment"),
    [
        ("documento:\n  emision: dte:DatosEmision\n", 2, "la ruta debe ser absoluta"),
        ("documento:\n  items: emision/dte:Items\n", 2, "empezar con un lugar anterior"),
        ("documento:\n  emision: /dte:GTDocumento\n  items: emison/dte:Items\n", 3, "lugar desconocido 'emison'"),
        ("documento:\n  Emision: /dte:GTDocumento\n", 2, "nombre de lugar no permitido"),
        ("documento:\n  todo: /dte:GTDocumento | /dte:GTAnulacionDocumento\n", 2, "sin |"),
        ("documento:\n  raiz: /dte:GTDocumento[\n", 2, "XPath inválido"),
        ("factura:\n  raiz: /dte:GTDocumento\n", 1, "clave desconocida 'factura'"),
    ],
)
def test_a_bad_places_file_names_file_and_line(tmp_path, places, line, fragment):
    from fel_rules.ruleset.places import load_places

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "lugares.yaml").write_text(places, encoding="utf-8")
    with pytest.raises(RuleFileError) as info:
        load_places(tmp_path)
    assert info.value.line == line and fragment in info.value.message
    assert "lugares.yaml" in info.value.path


# --- profiles and effective dates ------------------------------------------------------------

FACT = (EXAMPLES / "factura-fact.xml").read_bytes()
BAD_RECEPTOR = FACT.replace(b'IDReceptor="38461528"', b'IDReceptor="38461529"')


def _profile(tmp_path, overrides: str):
    path = tmp_path / "perfil.yaml"
    path.write_text("schema_version: 1\nprofile: {id: perfil, title: Perfil}\noverrides:\n"
                    + textwrap.indent(textwrap.dedent(overrides), "  "), encoding="utf-8")
    return path


def test_profile_override_until_a_date(tmp_path):
    profile = _profile(tmp_path, """\
        FEL-NIT-02: {severity: info, reason: Migración de clientes, until: 2026-03-01}
    """)
    validator = Validator(Config(profile=str(profile)))
    issue = next(i for i in validator.validate_bytes(BAD_RECEPTOR).issues if i.rule_id == "FEL-NIT-02")
    assert issue.severity.value == "error"  # the document is from 2026-03-02: the override has expired
    early = Validator(Config(profile=str(profile), as_of=date(2026, 2, 1)))
    issue = next(i for i in early.validate_bytes(BAD_RECEPTOR).issues if i.rule_id == "FEL-NIT-02")
    assert issue.severity.value == "info"


def test_profile_can_disable_a_rule(tmp_path):
    profile = _profile(tmp_path, "FEL-NIT-02: {enabled: false, reason: Receptores extranjeros sin TipoEspecial}\n")
    report = Validator(Config(profile=str(profile))).validate_bytes(BAD_RECEPTOR)
    assert report.valid and report.run.profile == "perfil"


def test_profile_can_change_params(tmp_path):
    profile = _profile(tmp_path, "FEL-NIT-02: {params: {allow: [CF, '38461529']}, reason: NIT histórico conocido}\n")
    assert Validator(Config(profile=str(profile))).validate_bytes(BAD_RECEPTOR).valid


def test_profile_needs_a_reason(tmp_path):
    profile = _profile(tmp_path, "FEL-NIT-02: {enabled: false}\n")
    with pytest.raises(RuleFileError) as info:
        Validator(Config(profile=str(profile)))
    assert "reason" in info.value.message and info.value.line == 4


def test_profile_names_an_unknown_rule(tmp_path):
    profile = _profile(tmp_path, "FEL-NADA-99: {enabled: false, reason: No existe}\n")
    with pytest.raises(RuleFileError) as info:
        Validator(Config(profile=str(profile)))
    assert info.value.rule_id == "FEL-NADA-99" and info.value.line == 4


def test_effective_dates_follow_the_emission_date(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "fechas.yaml").write_text(HEADER + textwrap.dedent("""\
      - id: TST-10
        title: Regla vigente desde abril de 2026
        effective: {from: 2026-04-01}
        context: //dte:Totales
        assert: "False"
        message: siempre falla
    """), encoding="utf-8")
    in_march = Validator(Config(rules_dir=rules)).validate_bytes(FACT)
    assert "TST-10" not in {i.rule_id for i in in_march.issues}
    as_of_april = Validator(Config(rules_dir=rules, as_of=date(2026, 4, 1))).validate_bytes(FACT)
    assert "TST-10" in {i.rule_id for i in as_of_april.issues}


def test_shipped_profile_loads():
    validator = Validator(Config(profile="pruebas"))
    assert validator.catalog.profile == "pruebas"


def test_profile_changes_a_rule_constant(tmp_path):
    """The CF limit (RCP535) is a constant a profile can change without editing the rule."""
    fcam = (EXAMPLES / "factura-cambiaria-fcam.xml").read_bytes()
    document = fcam.replace(b'IDReceptor="61930474"', b'IDReceptor="CF"')
    default = Validator(Config()).validate_bytes(document)
    (issue,) = [i for i in default.issues if i.rule_id == "FEL-CF-01"]
    assert issue.severity.value == "warning" and "Q 4,815.00" in issue.message and "Q 2,500.00" in issue.message
    profile = _profile(tmp_path,
                       "FEL-CF-01: {params: {constants: {limite: '10000'}}, reason: 'Límite de Q10,000 anunciado'}\n")
    raised = Validator(Config(profile=str(profile))).validate_bytes(document)
    assert "FEL-CF-01" not in {i.rule_id for i in raised.issues}


def test_bad_tax_unit_catalogue_names_file_and_line(tmp_path):
    from fel_rules.core.errors import RuleFileError
    from fel_rules.expressions.catalogues import load_tax_units

    path = tmp_path / "impuestos.yaml"
    path.write_text('impuestos:\n  "IVA":\n    unidades:\n      1: {factor: "0.12", base: Precio}\n', encoding="utf-8")
    with pytest.raises(RuleFileError) as caught:
        load_tax_units(path)
    assert caught.value.line == 4
    assert "base" in str(caught.value)


BATCH_RULE = """\
  - id: TST-LOT-01
    title: La nota usa la moneda de su origen
    scope: batch
    check: same_as_referenced
    params: {at: "//dte:DatosGenerales/@CodigoMoneda", reference: origin, field: moneda, referenced_field: moneda}
    message: "La nota está en {valor} y su origen {other} en {origen}."
"""


def test_batch_rule_loads_with_its_scope(tmp_path):
    (rule,) = load_rule_file(write(tmp_path, BATCH_RULE)).rules
    assert (rule.scope, type(rule.check).__name__) == ("batch", "SameAsReferencedCheck")


def test_batch_kind_needs_scope_batch(tmp_path):
    error = load_error(tmp_path, BATCH_RULE.replace("    scope: batch\n", ""))
    assert (error.line, error.column, error.rule_id) == (6, 3, "TST-LOT-01")
    assert "'same_as_referenced' es de lote" in error.message and "write scope: batch" in error.message_en


def test_document_kind_cannot_run_over_the_batch(tmp_path):
    error = load_error(tmp_path, """\
      - id: TST-LOT-02
        title: NIT del emisor
        scope: batch
        check: nit
        params: {party: emisor}
        message: "NIT {value}"
    """)
    assert (error.line, error.rule_id) == (7, "TST-LOT-02")
    assert "scope: document" in error.message


def test_batch_kind_params_are_checked(tmp_path):
    error = load_error(tmp_path, BATCH_RULE.replace("field: moneda,", "field: total,"))
    assert (error.line, error.rule_id) == (8, "TST-LOT-01")
    assert "params.field" in error.message or "'field'" in error.message


def test_batch_rule_placeholders_are_checked(tmp_path):
    error = load_error(tmp_path, BATCH_RULE.replace("{origen}", "{fecha}"))
    assert "marcador desconocido {fecha}" in error.message


def test_single_documents_ignore_batch_rules(validator):
    batch_rules = {rule.id for rule in validator.catalog.batch_rules}
    assert len(batch_rules) == 23 and all(rule_id.startswith("FEL-LOT-") for rule_id in batch_rules)
    assert not batch_rules & {rule.id for rule in validator.catalog.document_rules}
    report = validator.validate_path(EXAMPLES / "nota-credito-ncre.xml")  # a batch kind run on it would crash
    assert [(i.stage, i.rule_id) for i in report.issues] == [("schema", "FEL-XSD-02")]
    assert "fel-lote" not in {ruleset.id for ruleset in report.rulesets}


@pytest.mark.parametrize("word, severity", [("advertencia", "warning"), ("Informativo", "info"), ("error", "error"),
                                            ("warning", "warning"), ("info", "info")])
def test_severity_is_written_as_reports_write_it(tmp_path, word, severity):
    """Rule files take the reports' Spanish words for a severity, and the English ones."""
    (rule,) = load_rule_file(write(tmp_path, GOOD_RULE + f"    severity: {word}\n")).rules
    assert rule.severity.value == severity


def test_an_unknown_severity_word_is_refused_with_its_line(tmp_path):
    error = load_error(tmp_path, GOOD_RULE + "    severity: grave\n")
    assert error.rule_id == "TST-01" and error.line is not None
    assert "severidad desconocida 'grave': use error, advertencia o informativo" in error.message


ANYWHERE_RULE = """\
  - id: TST-30
    title: Todo GranTotal pasa de 10
    context: //dte:GranTotal
    let:
      monto: {path: ., type: decimal}
    assert: monto > 10
    message: "GranTotal {monto}."
"""


def test_a_rule_never_sees_inside_an_adenda(tmp_path):
    """dte:Adenda is free-form certifier data: it is gone before the rules, even for a path that reaches anywhere,
    whatever the document's encoding (in UTF-8 a document without the word "Adenda" has none to remove)."""
    validator = Validator(Config(rules_dir=write(tmp_path, ANYWHERE_RULE).parent))
    adenda = b"<dte:Adenda><dte:GranTotal>1.00</dte:GranTotal></dte:Adenda></dte:SAT>"
    data = FACT.replace(b"</dte:SAT>", adenda, 1)
    assert [issue.rule_id for issue in validator.validate_bytes(FACT).issues if issue.stage == "rules"] == []
    for name, form in {"UTF-8": data, **encoded_forms(data)}.items():
        assert [issue.rule_id for issue in validator.validate_bytes(form).issues if issue.stage == "rules"] == [], name
    shown = data.replace(b"<dte:Adenda>", b"<dte:Otra>").replace(b"</dte:Adenda>", b"</dte:Otra>")
    assert "TST-30" in {issue.rule_id for issue in validator.validate_bytes(shown).issues}  # (seen elsewhere)


SIBLINGS_RULE = """\
  - id: TST-40
    title: Frases anteriores
    context: //dte:Frase
    let:
      tipo: {path: "@TipoFrase", type: int}
      clave: {value: "tipo != 9 if tipo > 2 else tipo"}
      antes: {path: "count(preceding-sibling::dte:Frase[@TipoFrase = $clave])"}
    assert: antes < 0
    message: "Frase {tipo}: clave {clave}, antes {antes}."
"""


def test_a_whole_number_and_a_boolean_of_a_path_are_never_taken_for_each_other(tmp_path):
    """``$clave`` holds 1 at one node (written into the path as a numeral) and ``true`` at another (left to XPath,
    which compares a boolean with the attribute's presence): equal in Python, never the same path."""
    validator = Validator(Config(rules_dir=write(tmp_path, SIBLINGS_RULE).parent))
    frases = b"".join(b'<dte:Frase TipoFrase="%d" CodigoEscenario="1"/>' % tipo for tipo in (1, 2, 3))
    data = FACT.replace(b'<dte:Frase TipoFrase="1" CodigoEscenario="1"/>', frases, 1)
    assert data.count(b"<dte:Frase ") == 3
    for _ in range(3):  # (the paths written for values are kept: the same each time)
        said = [issue.message for issue in validator.validate_bytes(data).issues if issue.rule_id == "TST-40"]
        assert said == ["Frase 1: clave 1, antes 0.", "Frase 2: clave 2, antes 0.", "Frase 3: clave true, antes 2."]


@pytest.mark.parametrize("prefix", ["dte", "ds"])
def test_the_document_prefixes_are_not_redefined(tmp_path, prefix):
    """With ``dte`` bound to another namespace every path of the file would find nothing: its rules never fire."""
    path = tmp_path / "prueba.yaml"
    path.write_text(HEADER.replace("rules:\n", f"namespaces: {{{prefix}: 'urn:otro'}}\nrules:\n") + GOOD_RULE,
                    encoding="utf-8")
    with pytest.raises(RuleFileError) as info:
        load_rule_file(path)
    assert f"el prefijo '{prefix}'" in info.value.message and info.value.line == 3


def test_a_document_prefix_may_be_declared_as_it_is(tmp_path):
    path = tmp_path / "prueba.yaml"
    declared = "namespaces: {dte: 'http://www.sat.gob.gt/dte/fel/0.2.0', x: 'urn:x'}\n"
    header = HEADER.replace("rules:\n", declared + "rules:\n")
    path.write_text(header + GOOD_RULE, encoding="utf-8")
    assert len(load_rule_file(path).rules) == 1


@pytest.mark.parametrize("condition", ["codigo == 1", "1 != codigo", "codigo == 1 or precio > 0"])
def test_a_text_compared_with_a_number_is_refused(tmp_path, condition):
    """A text never equals a number: ``when: codigo == 1`` would never apply, on any document."""
    rule = f"""\
  - id: TST-01
    title: Código de unidad gravable
    context: "//dte:Impuesto"
    let: {{codigo: {{path: dte:CodigoUnidadGravable, type: text}}, precio: dte:MontoGravable}}
    when: {condition}
    assert: precio >= 0
    message: "Línea {{item}}"
"""
    error = load_error(tmp_path, rule)
    assert "'codigo' es un texto y 1 un número" in error.message and error.line is not None


def test_a_text_compared_with_a_quoted_number_loads(tmp_path):
    rule = GOOD_RULE.replace("let: {precio: dte:Precio, descuento: dte:Descuento}",
                             "let: {precio: dte:Precio, descuento: dte:Descuento, b: {path: '@BienOServicio', "
                             "type: text}}").replace("assert: descuento <= precio",
                                                     "assert: descuento <= precio or b == '1'")
    assert len(load_rule_file(write(tmp_path, rule)).rules) == 1
