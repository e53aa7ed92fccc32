"""Warming a validator up before its first documents: :meth:`fel_rules.engine.Validator.warm_up`, and the MCP
server's warm-up, which uses it while no call has come (a call that comes first is not kept waiting for it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fel_rules import warm_up_rendering as render_warm_up
from fel_rules.checks import quiet_plan
from fel_rules.checks.expression import _PLANS_KEY
from fel_rules.core.config import Config
from fel_rules.document.facts import extract_facts
from fel_rules.document.parse import parse_xml
from fel_rules.engine import WARM_UP_SAMPLE, Validator, _tipo
from fel_rules.outputs.render import RenderSettings
from fel_rules.outputs.render import api as render_api

ROOT = Path(__file__).resolve().parent.parent
SIGNED = ROOT / "examples" / "factura-certificada.xml"


def _plan_of(validator: Validator, path: Path) -> tuple:
    root = parse_xml(path.read_bytes(), max_bytes=validator.config.max_bytes).root
    assert root is not None
    facts = extract_facts(root, lines=False)
    return validator._plan(facts.kind, _tipo(facts), validator._as_of(facts))


def _function_made(validator: Validator, plan: tuple) -> bool:
    """Whether the function of ``plan`` is made already (without asking for the plan, which would make it)."""
    kept = validator._evaluator.made.get(_PLANS_KEY)
    function = kept[1].get(tuple(entry[2] for entry in plan)) if kept else None
    return isinstance(function, tuple) and callable(function[0])


def test_the_sample_is_shipped_and_valid():
    assert WARM_UP_SAMPLE.is_file()
    report = Validator(Config()).validate_path(WARM_UP_SAMPLE)
    assert report.valid and report.document.certified


def test_a_warmed_up_validator_has_the_function_of_an_invoices_plan_ready():
    """The first invoice a warmed-up validator meets runs the plan's function at once (a validator that was not
    warmed up makes it once that plan has validated enough documents to pay for it); a warm-up told not to make
    it leaves it to the documents, and what it validates asks for the plan as any document does."""
    warmed, cold, light = Validator(Config()), Validator(Config()), Validator(Config())
    assert warmed.warm_up()
    assert _function_made(warmed, _plan_of(warmed, SIGNED))
    assert not _function_made(cold, _plan_of(cold, SIGNED))
    assert quiet_plan(_plan_of(cold, SIGNED), cold._evaluator) is None
    assert light.warm_up(plan_function=False)
    assert not _function_made(light, _plan_of(light, SIGNED))
    assert light.validate_path(SIGNED).valid and not _function_made(light, _plan_of(light, SIGNED))


def test_a_warm_up_told_to_stop_starts_no_further_validation():
    """``until()`` is asked before each validation: true after the first one stops the warm-up before the second
    (the plan's function, made by the first, stays ready); true at once stops it before anything is validated,
    and makes nothing."""
    asked = []

    def until() -> bool:
        asked.append(True)
        return len(asked) > 1  # the first validation runs, the second is not started

    validator = Validator(Config())
    assert not validator.warm_up(until=until)
    assert len(asked) == 2
    assert _function_made(validator, _plan_of(validator, SIGNED))
    stopped = Validator(Config())
    assert not stopped.warm_up(until=lambda: True)
    assert not _function_made(stopped, _plan_of(stopped, SIGNED))
    assert stopped.validate_path(SIGNED).valid and not _function_made(stopped, _plan_of(stopped, SIGNED))


def test_only_the_warm_ups_own_documents_make_their_plans_function():
    """A document validated while a warm-up runs (here, in the warm-up's ``until``) makes its plan's function only
    once that plan pays for it, like any document: the warm-up asks for the function of the sample's plan alone."""
    other = ROOT / "examples" / "nota-credito-ncre.xml"
    validator = Validator(Config())

    def until() -> bool:
        assert validator.validate_path(other).valid
        return False

    assert validator.warm_up(until=until)
    assert _function_made(validator, _plan_of(validator, SIGNED))
    assert not _function_made(validator, _plan_of(validator, other))


def _server_warm_up(*, called_first: bool) -> dict:
    """Run the MCP toolbox's warm-up in a fresh process (a call marked as come before it when ``called_first``);
    what it logged, whether the default validator's plan function for an invoice was ready after it, and whether
    the renderer was (the PDF library loaded and the fonts registered)."""
    code = ("import json, sys\n"
            "from mcp_server.sandbox import Roots\n"
            "from mcp_server.toolbox import Toolbox\n"
            f"toolbox = Toolbox(None, Roots([{str(ROOT)!r}]), lambda result: result)\n"
            f"{'toolbox._called.set()' if called_first else ''}\n"
            "toolbox.warm_up()\n"
            "toolbox._warming.join()\n"
            "from mcp_server.handlers import _validator\n"
            "from tests.test_warm_up import _plan_of\n"
            "from pathlib import Path\n"
            "from tests.test_warm_up import _function_made\n"
            "validator = _validator('es', None)\n"
            f"ready = _function_made(validator, _plan_of(validator, Path({str(SIGNED)!r})))\n"
            "fonts = sys.modules.get('fel_rules.outputs.render.fonts')\n"
            "rendering = 'reportlab' in sys.modules and fonts is not None and bool(fonts._registered)\n"
            "print(json.dumps({'ready': ready, 'rendering': rendering}))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line)["message"] for line in result.stderr.splitlines() if '"warm_up"' in line]
    return {**json.loads(result.stdout.splitlines()[-1]), "events": events}


def test_an_idle_server_warms_its_validator_and_its_renderer_up():
    found = _server_warm_up(called_first=False)
    assert found == {"ready": True, "rendering": True,
                     "events": ["tools, rules and schema set ready", "validation ready", "rendering ready"]}


def test_a_call_that_comes_first_is_not_kept_waiting_for_the_validation_or_rendering_warm_up():
    found = _server_warm_up(called_first=True)
    assert found == {"ready": False, "rendering": False, "events": ["tools, rules and schema set ready"]}


def test_a_render_warm_up_lays_the_sample_out_once():
    validator = Validator(Config())
    laid_out = []
    real = render_api.render_view

    def counted(view, **options):
        laid_out.append(view.numero)
        return real(view, **options)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(render_api, "render_view", counted)
        assert render_warm_up(validator)
        assert render_warm_up(validator, until=lambda: True) is False  # (told to stop: nothing more is laid out)
    assert len(laid_out) == 1 and laid_out[0]


def test_a_render_warm_up_that_fails_says_so_and_raises_nothing(tmp_path):
    settings = RenderSettings(logo=tmp_path / "missing.png")
    assert render_warm_up(Validator(Config()), settings) is False


def test_a_render_warm_up_reads_the_logo_only_inside_the_roots_it_is_given(tmp_path):
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    logo = tmp_path / "logo.png"  # (outside the allowed folder)
    logo.write_bytes((ROOT / "examples" / "logo.png").read_bytes())
    settings = RenderSettings(logo=logo)
    assert render_warm_up(Validator(Config()), settings, roots=[allowed.resolve()]) is False
    assert render_warm_up(Validator(Config()), settings, roots=[tmp_path.resolve()]) is True
