"""The batch's page in a real browser (headless Chromium): it renders, its script builds the table's controls and
lists every document, sorts by a clicked column, filters by text and verdict, expands findings, and shows hostile
names as text. Screenshots are written for a person to look at (``FEL_SCREENSHOTS=DIR`` keeps them)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from fel_rules.batch import BatchOptions, run_batch
from fel_rules.core.printable import escape_controls
from fel_rules.outputs.render import RenderSettings

from .browser import Browser, chromium_command, requires_chromium
from .conftest import EXAMPLES
from .overview_folder import HOSTILE_NAME, NAMES, fill

pytestmark = requires_chromium

SETTINGS = RenderSettings.from_env({}, logo=EXAMPLES / "logo.png")
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("navegador")
    out = root / "salida"
    run_batch(BatchOptions(input_dir=fill(root / "entrada"), out_dir=out, render_settings=SETTINGS, progress=False,
                           workers=2))
    return out / "reporte.html"


@pytest.fixture(scope="module")
def browser(page):
    with Browser() as driver:
        yield driver


@pytest.fixture
def opened(browser, page):
    browser.open(page)
    return browser


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    kept = os.environ.get("FEL_SCREENSHOTS")
    folder = Path(kept) if kept else tmp_path_factory.mktemp("capturas")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _search(browser: Browser, text: str) -> None:
    """Type ``text`` into the search box (as its input event says)."""
    browser.eval(f"(() => {{ const q = document.getElementById('search'); q.value = {json.dumps(text)}; "
                 "q.dispatchEvent(new Event('input')); })()")


def _choose_verdict(browser: Browser, value: str) -> None:
    browser.eval(f"(() => {{ const v = document.getElementById('verdict'); v.value = {json.dumps(value)}; "
                 "v.dispatchEvent(new Event('change')); })()")


def _paths(browser: Browser) -> list[str]:
    """The file names of the visible rows, top to bottom."""
    return browser.eval("Array.from(document.querySelectorAll('#documents tbody:not([hidden]) td.path'))"
                        ".map(cell => cell.textContent)")


def test_dump_dom_lists_every_document_once_the_script_ran(page, tmp_path):
    command = chromium_command(tmp_path / "perfil", "--dump-dom", page.as_uri())
    dom = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout
    assert '<html data-generator="fel-rules" lang="es" class="js">' in dom  # the script ran
    assert '<div class="controls" id="controls">' in dom  # ... and showed the controls
    assert f'<span id="count" data-template="{{shown}} de {{total}} documentos">{len(NAMES)} de {len(NAMES)} ' \
           "documentos</span>" in dom
    for name in NAMES:
        assert f'<td class="path">{name}</td>' in dom, name


def test_screenshot_from_the_command_line(page, tmp_path, shots):
    target = shots / "reporte-cli.png"
    command = chromium_command(tmp_path / "perfil", "--window-size=1400,1000", f"--screenshot={target}", page.as_uri())
    subprocess.run(command, capture_output=True, timeout=120, check=True)
    data = target.read_bytes()
    assert data.startswith(PNG) and len(data) > 20_000  # a page, not a blank


def test_the_page_renders_summary_and_table(opened, shots):
    assert opened.eval("document.title") == "Reporte de validación FEL"
    assert opened.eval("document.querySelectorAll('.cards .card').length") == 5
    assert opened.eval("document.getElementById('documents').getBoundingClientRect().height") > 300
    assert _paths(opened) == list(NAMES)
    assert opened.eval("getComputedStyle(document.querySelector('tr.issues')).display") == "none"  # folded
    opened.screenshot(shots / "reporte-resumen.png")


def test_clicking_a_header_sorts_and_clicking_again_reverses(opened):
    opened.eval("document.querySelectorAll('#documents thead th')[6].querySelector('button').click()")  # Total
    totals = opened.eval("Array.from(document.querySelectorAll('#documents tbody')).map(b => "
                         "b.rows[0].cells[6].getAttribute('data-sort'))")
    numbers = [float(t) for t in totals if t]
    assert numbers == sorted(numbers) and totals[len(numbers):] == [""] * (len(totals) - len(numbers))
    assert opened.eval("document.querySelectorAll('#documents thead th')[6].getAttribute('aria-sort')") == "ascending"
    opened.eval("document.querySelectorAll('#documents thead th')[6].querySelector('button').click()")
    again = [float(t) for t in opened.eval("Array.from(document.querySelectorAll('#documents tbody')).map(b => "
                                           "b.rows[0].cells[6].getAttribute('data-sort'))") if t]
    assert again == sorted(numbers, reverse=True)
    opened.eval("document.querySelectorAll('#documents thead th')[0].querySelector('button').click()")  # File
    assert _paths(opened) == list(NAMES)


def test_filters_by_text_and_by_verdict(opened, shots):
    _search(opened, "nota")
    assert _paths(opened) == ["b-nota-credito.xml", "c-nota-debito.xml"]
    assert opened.eval("document.getElementById('count').textContent") == f"2 de {len(NAMES)} documentos"
    _search(opened, "fel-tot-03")
    assert _paths(opened) == ["h-invalida.xml"]  # a rule id finds the documents it fired on
    _search(opened, "")
    _choose_verdict(opened, "invalid")
    assert _paths(opened) == ["h-invalida.xml", "j-no-es-xml.xml"]
    opened.screenshot(shots / "reporte-filtro.png")


def test_a_top_rule_filters_the_table(opened):
    opened.eval("document.querySelector('button.rule[data-rule=\"FEL-TOT-03\"]').click()")
    assert opened.eval("document.getElementById('search').value") == "FEL-TOT-03"
    assert _paths(opened) == ["h-invalida.xml"]


def test_findings_expand_one_by_one_and_all_at_once(opened, shots):
    opened.eval("document.querySelector('#documents tbody[data-verdict=invalid] button.toggle').click()")
    opened_rows = opened.eval("Array.from(document.querySelectorAll('tr.issues')).filter(r => "
                              "getComputedStyle(r).display !== 'none').map(r => r.textContent)")
    assert len(opened_rows) == 1 and "FEL-TOT-03" in opened_rows[0] and "Sugerencia" in opened_rows[0]
    opened.eval("document.getElementById('expand').click()")
    shown = opened.eval("Array.from(document.querySelectorAll('tr.issues')).filter(r => "
                        "getComputedStyle(r).display !== 'none').length")
    assert shown == opened.eval("document.querySelectorAll('tr.issues').length") == len(NAMES)
    assert opened.eval("document.getElementById('expand').textContent") == "Contraer todo"
    opened.eval("document.querySelector('#documents tbody[data-verdict=invalid]').scrollIntoView()")
    opened.screenshot(shots / "reporte-hallazgos.png")
    opened.screenshot(shots / "reporte-completo.png", full_page=True)


def test_hostile_names_are_text(opened, shots):
    names = opened.eval("Array.from(document.querySelectorAll('td.party > span:first-child'))"
                        ".map(s => s.textContent)")
    assert escape_controls(HOSTILE_NAME) in names
    assert opened.eval("document.scripts.length") == 1
    assert opened.eval("document.querySelectorAll('#documents script, #documents b, [onerror], [onclick]').length") == 0
    _search(opened, "hostil")
    opened.eval("document.getElementById('expand').click()")
    opened.screenshot(shots / "reporte-hostil.png")


def test_the_page_stays_within_the_output_folder(opened):
    """Nothing but the page itself and the relative links to its outputs: no request leaves the folder."""
    resources = opened.eval("JSON.stringify(performance.getEntriesByType('resource').map(e => e.name))")
    assert json.loads(resources) == []
