"""The built wheel carries everything the program reads at run time, found through importlib.resources."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from fel_rules import __version__
from fel_rules.core.resources import BUILTIN_RULES_DIR, BUILTIN_XSD_DIR

from .conftest import ROOT

# Where each installed package's files come from in the checkout.
SOURCES = {"fel_rules.rules": ROOT / "rules", "fel_rules.xsd": ROOT / "xsd"}
# Author tooling kept beside the data (the scripts that generate the case documents), never read by the program.
NOT_RUNTIME = {path.relative_to(ROOT).as_posix() for path in (ROOT / "rules" / "tests").rglob("*.py")}

_LIST_DATA = """
import json, sys
sys.path.insert(0, sys.argv[1])
from importlib.resources import files
def walk(node, prefix=""):
    for child in node.iterdir():
        name = prefix + child.name
        if child.is_dir():
            yield from walk(child, name + "/")
        elif child.name != "__init__.py":
            yield name
import fel_rules.core.resources
print(json.dumps({package: sorted(walk(files(package))) for package in sys.argv[2:]}))
"""


def _checkout_files(folder: Path) -> set[str]:
    """Files of a checkout folder, relative to the repository, without caches."""
    return {path.relative_to(ROOT).as_posix() for path in folder.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}


def _python_packages() -> set[str]:
    """Every folder of the checkout that holds Python modules of the product, as a dotted name."""
    found = set()
    for top in ("fel_rules", "mcp_server"):
        for init in (ROOT / top).rglob("__init__.py"):
            found.add(".".join(init.parent.relative_to(ROOT).parts))
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``python -m build`` makes (sdist first, then the wheel from the sdist) from a clean copy of
    the checkout's files, so no leftover of an earlier build (build/, *.egg-info) can fill a gap."""
    source = tmp_path_factory.mktemp("source")
    tracked = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(source)],
                   check=True, capture_output=True, timeout=900)
    (built,) = out.glob("fel_rules-*.whl")
    return built


def test_every_product_package_is_declared():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    assert set(declared) == _python_packages() | set(SOURCES)


@pytest.mark.slow
def test_wheel_holds_every_runtime_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = set()
    for package, folder in SOURCES.items():
        prefix = package.replace(".", "/")
        expected |= {prefix + name[len(folder.name):] for name in _checkout_files(folder) - NOT_RUNTIME}
    for top in ("fel_rules", "mcp_server"):
        expected |= _checkout_files(ROOT / top)
    missing = sorted(expected - names)
    assert not missing, f"missing from the wheel: {missing}"
    assert not any(name.endswith(".py") and name.startswith("fel_rules/rules/tests/") for name in names)


@pytest.mark.slow
def test_installed_wheel_finds_its_data_through_importlib_resources(wheel, tmp_path):
    """Unpacked alone (no checkout on the path), the package lists the same data files the checkout has."""
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    listing = subprocess.run([sys.executable, "-I", "-B", "-c", _LIST_DATA, str(target), *SOURCES], cwd=tmp_path,
                             capture_output=True, text=True, check=True, timeout=60).stdout
    found = json.loads(listing)
    for package, folder in SOURCES.items():
        in_checkout = {name[len(folder.name) + 1:] for name in _checkout_files(folder) - NOT_RUNTIME
                       if not name.endswith("/__init__.py")}
        assert set(found[package]) == in_checkout, package


@pytest.mark.slow
def test_wheel_version_is_the_package_version(wheel):
    assert wheel.name.startswith(f"fel_rules-{__version__}-")


def test_editable_install_reads_the_checkout():
    """Tests run on an editable install: an edit to rules/*.yaml is seen without reinstalling."""
    assert BUILTIN_RULES_DIR == ROOT / "rules"
    assert BUILTIN_XSD_DIR == ROOT / "xsd"
