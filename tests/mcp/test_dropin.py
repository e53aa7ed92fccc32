"""fel-rules serve as a drop-in for the original hand-written FEL server, and results an assistant can act on.

The one-liner sessions are run verbatim through the real console script (``printf … | fel-rules serve``) from a
folder laid out as the original server's users have it: ``data/xml``, ``data/logos``, ``data/out``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fel_rules.cli.app import main as cli_main
from fel_rules.testing.builder import Invoice, Item

from ..conftest import EXAMPLES
from .harness import Session

SERVE = [str(Path(sys.executable).with_name("fel-rules")), "serve"]
INITIALIZE = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'
TOOLS_LIST = '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'


@pytest.fixture
def data(tmp_path) -> Path:
    """A working folder laid out as the original server's users have it."""
    for folder in ("xml", "logos", "out"):
        (tmp_path / "data" / folder).mkdir(parents=True)
    shutil.copy(EXAMPLES / "factura-fact.xml", tmp_path / "data/xml/factura.xml")
    shutil.copy(EXAMPLES / "factura-certificada.xml", tmp_path / "data/xml/certificada.xml")
    shutil.copy(EXAMPLES / "logo.png", tmp_path / "data/logos/logo.png")
    return tmp_path


def one_liner(folder: Path, *lines: str) -> dict:
    """``printf '%s\\n' LINES | fel-rules serve`` run in ``folder``: the responses by id."""
    completed = subprocess.run(SERVE, input="".join(f"{line}\n" for line in lines), capture_output=True, text=True,
                               cwd=folder, timeout=120, check=False)
    assert completed.returncode == 0, completed.stderr
    responses = [json.loads(line) for line in completed.stdout.splitlines()]
    return {response["id"]: response for response in responses}


def tool_call(request_id: int, name: str, arguments: dict) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}})


def structured(response: dict) -> dict:
    """A tool result's data as the original server's clients read it: the JSON of the first text block."""
    assert response["result"]["isError"] is False, response
    return json.loads(response["result"]["content"][0]["text"])


# --- 1. the one-liner sessions, verbatim -----------------------------------------------------------------


def test_one_liner_initialize_and_list(data):
    replies = one_liner(data, INITIALIZE, TOOLS_LIST)
    assert replies[1]["result"]["protocolVersion"] == "2024-11-05"  # no protocolVersion: the oldest revision
    assert [tool["name"] for tool in replies[2]["result"]["tools"]] == ["fel_validate", "fel_render", "fel_batch",
                                                                         "fel_rules"]


def test_one_liner_validate(data):
    replies = one_liner(data, INITIALIZE, TOOLS_LIST,
                        tool_call(3, "fel_validate", {"xml_path": "data/xml/factura.xml"}))
    result = structured(replies[3])
    assert result["ok"] is True and result["valid"] is True
    assert result["totals"] == {"subtotal": "1706.70", "iva": "204.80", "total": "1911.50"}
    assert result["issues"] == [] or all(issue["severity"] != "error" for issue in result["issues"])


def test_one_liner_render_with_logo_and_out_path(data):
    replies = one_liner(data, INITIALIZE, TOOLS_LIST, tool_call(3, "fel_render", {
        "xml_path": "data/xml/factura.xml", "logo_path": "data/logos/logo.png", "out_path": "data/out/factura.pdf"}))
    result = structured(replies[3])
    assert result["ok"] is True and result["pdf_path"] == str(data / "data/out/factura.pdf")
    assert (data / "data/out/factura.pdf").read_bytes().startswith(b"%PDF")


def test_one_liner_batch(data):
    replies = one_liner(data, INITIALIZE, TOOLS_LIST,
                        tool_call(3, "fel_batch", {"dir_xml": "data/xml", "out_dir": "data/out"}))
    result = structured(replies[3])
    assert result["ok"] is True and result["count"] == 2
    assert result["out_dir"] == str(data / "data/out")
    assert result["manifest_path"] == str(data / "data/out/manifest.json")
    assert (data / "data/out/manifest.json").is_file()


def test_without_initialize_requests_keep_being_refused(data):
    replies = one_liner(data, TOOLS_LIST)
    assert replies[2]["error"]["code"] == -32600 and "initialize" in replies[2]["error"]["message"]


def test_a_protocol_version_that_is_not_text_is_still_refused(data):
    replies = one_liner(data, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}')
    assert replies[1]["error"]["code"] == -32602


# --- 2. the original keys, in the output schemas too ------------------------------------------------------


@pytest.fixture
def session(data):
    current = Session([str(data)])
    current.initialize()
    yield current
    current.close()


def call(session, request_id: int, name: str, arguments: dict) -> dict:
    return session.call(request_id, "tools/call", {"name": name, "arguments": arguments})["result"]


def test_output_schemas_name_the_original_keys(session):
    tools = {tool["name"]: tool for tool in session.call(1, "tools/list")["result"]["tools"]}
    assert {"ok", "totals"} <= set(tools["fel_validate"]["outputSchema"]["properties"])
    assert {"ok", "pdf_path"} <= set(tools["fel_render"]["outputSchema"]["properties"])
    assert {"ok", "count", "out_dir", "manifest_path"} <= set(tools["fel_batch"]["outputSchema"]["properties"])


def test_validate_ok_follows_the_verdict(session, data):
    bad = (EXAMPLES / "factura-fact.xml").read_text(encoding="utf-8").replace(
        "<dte:GranTotal>1911.50</dte:GranTotal>", "<dte:GranTotal>1900.00</dte:GranTotal>")
    result = call(session, 1, "fel_validate", {"xml_text": bad})
    assert result["structuredContent"]["ok"] is False and result["structuredContent"]["valid"] is False
    assert result["structuredContent"]["totals"]["total"] == "1900.00"


# --- 3. results an assistant can act on --------------------------------------------------------------------


def _invalid_invoice(n: int) -> bytes:
    items = [Item.goods(f"Producto {n}", "1", "10.00")]
    xml = Invoice(tipo="FACT", receptor_id="CF", frases=[(1, 1)], items=items).to_xml()
    return xml.replace(b"<dte:GranTotal>10.00</dte:GranTotal>", b"<dte:GranTotal>11.00</dte:GranTotal>")


def test_batch_takes_logo_and_theme_and_lists_the_problems_capped(session, data):
    folder = data / "data/lote"
    folder.mkdir()
    for n in range(23):
        (folder / f"mala-{n:02d}.xml").write_bytes(_invalid_invoice(n))
    (folder / "a-rota.xml").write_bytes(b"<no es xml")
    shutil.copy(EXAMPLES / "factura-fact.xml", folder / "buena.xml")
    result = call(session, 1, "fel_batch", {"dir_xml": "data/lote", "out_dir": "data/out/lote",
                                            "logo_path": "data/logos/logo.png", "theme": "moderno"})
    output = result["structuredContent"]
    assert output["count"] == 25 and output["ok"] is True  # invalid documents, but every file was processed
    problems = output["problems"]
    assert len(problems) == 20 and output["more_problems"] == 4
    first = next(p for p in problems if p["path"] == "mala-00.xml")
    assert first["rule_id"].startswith("FEL-TOT") and first["message"]
    broken = next(p for p in problems if p["path"] == "a-rota.xml")
    assert broken["rule_id"] == "FEL-XML-03"
    assert (data / "data/out/lote/buena.pdf").read_bytes().startswith(b"%PDF")


def test_batch_logo_outside_the_roots_is_refused(session):
    result = call(session, 1, "fel_batch", {"dir_xml": "data/xml", "logo_path": "/etc/passwd"})
    assert result["isError"] and "fuera de las carpetas permitidas" in result["content"][0]["text"]


def test_render_accepts_xml_text(session, data):
    text = (EXAMPLES / "factura-fact.xml").read_text(encoding="utf-8")
    result = call(session, 1, "fel_render", {"xml_text": text, "out_path": "data/out/"})
    output = result["structuredContent"]
    assert output["ok"] is True and Path(output["pdf_path"]).parent == data / "data/out"
    assert Path(output["pdf_path"]).name.startswith("xml_text-")
    assert Path(output["pdf_path"]).read_bytes().startswith(b"%PDF")


def test_render_refusal_speaks_mcp(session):
    bad = (EXAMPLES / "factura-fact.xml").read_text(encoding="utf-8").replace(
        "<dte:GranTotal>1911.50</dte:GranTotal>", "<dte:GranTotal>1900.00</dte:GranTotal>")
    result = call(session, 1, "fel_render", {"xml_text": bad})
    message = result["content"][0]["text"]
    assert result["isError"] and "force: true" in message and "--force" not in message
    assert "FEL-TOT" in message
    forced = call(session, 2, "fel_render", {"xml_text": bad, "force": True})["structuredContent"]
    assert forced["ok"] is False and "NO VÁLIDO" in " ".join(forced["watermarks"])


def test_validate_compact_and_verdict_first(session):
    bad = (EXAMPLES / "factura-fact.xml").read_text(encoding="utf-8").replace(
        "<dte:GranTotal>1911.50</dte:GranTotal>", "<dte:GranTotal>1900.00</dte:GranTotal>")
    result = call(session, 1, "fel_validate", {"xml_text": bad, "compact": True})
    output = result["structuredContent"]
    assert not {"rulesets", "schema", "run"} & set(output) and output["issues"]
    summary = result["content"][1]["text"].splitlines()
    assert summary[0].startswith("INVÁLIDO (errores: ")
    assert summary[1].startswith("- FEL-TOT-") and "(línea " in summary[1]
    full = call(session, 2, "fel_validate", {"xml_text": bad})["structuredContent"]
    assert {"rulesets", "schema", "run"} <= set(full)


def test_rules_applies_the_profile_and_filters(session):
    default = call(session, 1, "fel_rules", {"id_prefix": "FEL-NIT"})["structuredContent"]
    tested = call(session, 2, "fel_rules", {"id_prefix": "fel-nit", "profile": "pruebas"})["structuredContent"]
    severity = {rule["id"]: rule["severity"] for rule in default["rules"]}
    under_profile = {rule["id"]: rule["severity"] for rule in tested["rules"]}
    assert severity["FEL-NIT-01"] == "error" and under_profile["FEL-NIT-01"] == "warning"
    assert set(default["rules"][0]) == {"id", "severity", "title"}  # compact by default
    by_code = call(session, 3, "fel_rules", {"sat_code": "FEL_RCP361", "detail": True})["structuredContent"]
    assert [rule["id"] for rule in by_code["rules"]] == ["FEL-FIR-01", "FEL-FIR-06"]
    assert by_code["rules"][0]["sat_code"] == "FEL_RCP361" and by_code["rulesets"]


def test_rules_is_compact_by_default(session):
    result = call(session, 1, "fel_rules", {})
    assert len(result["content"][0]["text"]) < 20_000
    assert result["structuredContent"]["count"] == len(result["structuredContent"]["rules"]) > 100


def test_rules_drops_what_a_profile_disables(session, data):
    profile = data / "sin-nit.yaml"
    profile.write_text("schema_version: 1\nprofile: {id: sin-nit, title: Sin NIT}\noverrides:\n"
                       "  FEL-NIT-02: {enabled: false, reason: receptores extranjeros}\n", encoding="utf-8")
    rules = call(session, 1, "fel_rules", {"profile": str(profile), "id_prefix": "FEL-NIT"})["structuredContent"]
    assert "FEL-NIT-02" not in {rule["id"] for rule in rules["rules"]}


def test_input_schemas_have_no_root_combinator(session):
    """Hosts refuse a tool whose input schema has ``oneOf``/``anyOf``/``allOf``/``not`` at its root (Anthropic's API
    answers 400 and Claude Code drops the tool): each one is a plain object."""
    for tool in session.call(1, "tools/list")["result"]["tools"]:
        schema = tool["inputSchema"]
        assert schema["type"] == "object", tool["name"]
        assert not {"oneOf", "anyOf", "allOf", "not", "if", "then", "else"} & set(schema), tool["name"]


def test_schemas_say_exactly_one_source_in_spanish(session):
    tools = {tool["name"]: tool for tool in session.call(1, "tools/list")["result"]["tools"]}
    for name in ("fel_validate", "fel_render"):
        schema = tools[name]["inputSchema"]
        assert schema["description"].startswith("Argumentos de ")
        assert "exactamente uno de xml_path o xml_text" in schema["description"]
    for tool in tools.values():
        for prop in tool["inputSchema"]["properties"].values():
            description = prop["description"]
            assert not description.startswith(("Path", "The ", "Language", "Rule profile", "Output")), description


@pytest.mark.parametrize("arguments, expected", [
    ({}, "Argumentos inválidos para fel_validate: dé exactamente uno de xml_path o xml_text"),
    ({"xml_path": "a.xml", "lang": "fr"}, "lang: debe ser uno de: 'es' o 'en'"),
    ({"xml_path": 5}, "xml_path: debe ser texto"),
    ({"xml_path": "a.xml", "extra": 1}, "extra: no es un argumento de esta herramienta"),
    ({"xml_path": "a.xml", "compact": "quizá"}, "compact: debe ser true o false"),
])
def test_argument_errors_are_spanish(session, arguments, expected):
    result = call(session, 1, "fel_validate", arguments)
    assert result["isError"] and expected in result["content"][0]["text"]


def test_batch_workers_out_of_range_is_spanish(session):
    result = call(session, 1, "fel_batch", {"dir_xml": "data/xml", "workers": 0})
    assert "workers: debe ser mayor o igual que 1" in result["content"][0]["text"]


def test_missing_file_names_the_root(session, data):
    result = call(session, 1, "fel_validate", {"xml_path": "data/xml/no-existe.xml"})
    message = result["content"][0]["text"]
    assert result["isError"] and f"las rutas relativas parten de la carpeta permitida {data}" in message
    assert str(data / "data/xml/no-existe.xml") in message


# --- 4. rules list --format json is fel_rules ---------------------------------------------------------------


@pytest.mark.parametrize("arguments, flags", [
    ({}, []),
    ({"profile": "pruebas", "detail": True}, ["--profile", "pruebas", "--detail"]),
    ({"id_prefix": "FEL-IVA"}, ["--id-prefix", "FEL-IVA"]),
    ({"sat_code": "FEL_RCP364", "lang": "en"}, ["--sat-code", "FEL_RCP364"]),
])
def test_cli_rules_list_json_is_the_mcp_tool(session, capsys, arguments, flags):
    tool = call(session, 1, "fel_rules", arguments)["structuredContent"]
    lang = ["--lang", arguments["lang"]] if "lang" in arguments else []
    assert cli_main(["rules", *lang, "list", "--format", "json", *flags]) == 0
    assert json.loads(capsys.readouterr().out) == tool
