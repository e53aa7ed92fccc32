"""Paths are resolved as :meth:`Path.resolve` resolves them, whichever way :func:`confine` takes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fel_rules.core.confine import OutsideRoots, confine


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    base = tmp_path.resolve()
    (base / "a" / "b").mkdir(parents=True)
    (base / "a" / "b" / "f.xml").write_bytes(b"<a/>")
    links = {"to-b": "a/b", "to-f": "a/b/f.xml", "dangling": "nowhere", "loop": "loop", "up": "a/b/.."}
    for name, target in links.items():
        os.symlink(target, base / name)
    return base


@pytest.mark.parametrize("name", ["a/b", "to-b", "to-b/f.xml", "to-f", "to-b/../b", "to-b/..", "a/./b/", "up",
                                  "dangling", "missing/tail.xml", "to-b/missing.xml", "a/b/f.xml/below"])
def test_resolved_as_path_resolve_does(tree, name):
    assert confine(tree / name) == (tree / name).resolve()


def test_relative_paths_resolve_from_the_working_folder(tree, monkeypatch):
    monkeypatch.chdir(tree / "a")
    assert confine(Path("b/f.xml")) == tree / "a" / "b" / "f.xml"


def test_a_symlink_loop_is_an_os_error(tree):
    with pytest.raises(OSError):
        confine(tree / "loop")


def test_roots_are_checked_on_the_resolved_path(tree):
    assert confine(tree / "to-f", [tree / "a"]) == tree / "a" / "b" / "f.xml"
    with pytest.raises(OutsideRoots):
        confine(tree / "to-f", [tree / "c"])
