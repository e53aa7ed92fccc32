"""Paths are resolved as :meth:`Path.resolve` resolves them, whichever way :func:`confine` takes; folders are opened
only inside the roots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fel_rules.core.atomic import write_atomic
from fel_rules.core.confine import OutsideRoots, _inside, confine, open_folder


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    base = tmp_path.resolve()
    (base / "a" / "b").mkdir(parents=True)
    (base / "a" / "b" / "f.xml").write_bytes(b"<a/>")
    links = {"to-b": "a/b", "to-f": "a/b/f.xml", "dangling": "nowhere", "loop": "loop", "up": "a/b/.."}
    for name, target in links.items():
        os.symlink(target, base / name)
    return base


_PATHS = [Path(name) for name in ("/", "/a", "/a/b", "/ab", "/a/bc", "/a/b/c", "/b", "/a b", "/aa/b", "/a/b c/d")]


@pytest.mark.parametrize("real", _PATHS, ids=str)
def test_inside_is_being_a_root_or_under_one(real):
    """Judged as text, whatever the roots' names share with the path's (``/a`` is not a folder of ``/ab``)."""
    for root in _PATHS:
        assert _inside(real, [root]) == (real == root or root in real.parents), root
        for other in _PATHS:
            assert _inside(real, [root, other]) == (_inside(real, [root]) or _inside(real, [other]))


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


# open_folder: the folder it opens is the one at the path now, never one reached through a link out of the roots


def _held(handle: int) -> tuple[int, int]:
    try:
        info = os.fstat(handle)
    finally:
        os.close(handle)
    return info.st_dev, info.st_ino


def _identity(path: Path) -> tuple[int, int]:
    info = path.stat()
    return info.st_dev, info.st_ino


def test_open_folder_holds_the_folder_now_at_the_path(tree):
    """A folder renamed away and another put in its place: the descriptor is of the new one (nothing is written
    into the folder that was moved)."""
    assert _held(open_folder(tree / "a" / "b", [tree])) == _identity(tree / "a" / "b")
    (tree / "a" / "b").rename(tree / "moved")
    (tree / "a" / "b").mkdir()
    assert _held(open_folder(tree / "a" / "b", [tree])) == _identity(tree / "a" / "b") != _identity(tree / "moved")
    assert _held(open_folder(tree / "to-b", [tree / "a"])) == _identity(tree / "a" / "b")  # a link inside the roots


@pytest.mark.parametrize("create", [True, False])
def test_open_folder_refuses_a_folder_swapped_for_a_link_out_of_the_roots(tree, create):
    (tree / "out").mkdir()
    (tree / "a" / "b").rename(tree / "out" / "b")
    (tree / "a" / "b").symlink_to(tree / "out" / "b", target_is_directory=True)
    with pytest.raises(OutsideRoots):
        open_folder(tree / "a" / "b", [tree / "a"], create=create)
    with pytest.raises(OutsideRoots):
        open_folder(tree / "a" / "b" / "below", [tree / "a"], create=create)
    assert not (tree / "out" / "b" / "below").exists()
    with pytest.raises(OutsideRoots):
        write_atomic(tree / "a" / "b" / "x.json", b"{}", roots=[tree / "a"])
    assert sorted(os.listdir(tree / "out" / "b")) == ["f.xml"]


@pytest.fixture
def other_namespace(tmp_path: Path):
    """A process in its own mount namespace where ``roots/x`` is the folder ``outside/x`` (bind-mounted there);
    yields ``(roots, outside, pid)``. Skipped where unprivileged namespaces or ``unshare`` are missing."""
    import shutil
    import subprocess

    base = tmp_path.resolve()
    roots, outside = base / "roots", base / "outside"
    (roots / "x").mkdir(parents=True)
    (outside / "x").mkdir(parents=True)
    if not shutil.which("unshare"):
        pytest.skip("no unshare")
    script = f'mount --bind "{outside / "x"}" "{roots / "x"}" && echo ready && exec sleep 60'
    child = subprocess.Popen(["unshare", "-Urm", "--propagation", "private", "sh", "-c", script],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        if child.stdout is None or child.stdout.readline().strip() != "ready":
            pytest.skip("no mount namespace can be made here")
        yield roots, outside, child.pid
    finally:
        child.kill()
        child.wait()


def test_a_link_into_another_mount_namespace_never_writes_outside_the_roots(other_namespace):
    """``roots/evil`` -> ``/proc/PID/root/.../roots/x``: there the kernel names the folder ``roots/x`` although it is
    ``outside/x``; the folder is then opened by its name in this process's view, and nothing lands outside."""
    roots, outside, pid = other_namespace
    (roots / "evil").symlink_to(f"/proc/{pid}/root{roots / 'x'}", target_is_directory=True)
    assert _held(open_folder(roots / "evil", [roots], create=False)) == _identity(roots / "x")
    write_atomic(roots / "evil" / "out.json", b"{}", roots=[roots])
    assert os.listdir(outside / "x") == [] and os.listdir(roots / "x") == ["out.json"]


# ---- inputs read inside the roots ------------------------------------------------------------------------


def test_an_input_is_read_inside_the_roots_and_never_through_a_link_out_of_them(tree):
    from fel_rules.core.inputs import input_sha256, read_input

    inside, outside = tree / "a", tree / "a" / "b"
    assert read_input(tree / "to-f", 100, roots=[outside]) == b"<a/>"  # the link resolves inside
    for read in (read_input, input_sha256):
        with pytest.raises(OutsideRoots):
            read(tree / "to-f", 100, roots=[tree / "elsewhere"])
    assert read_input(inside / "b" / "f.xml", 100) == b"<a/>"  # no roots: anywhere


def test_an_input_swapped_for_a_link_after_its_check_is_judged_on_the_opened_file(tree, monkeypatch):
    """The path is checked, then becomes a link out of the roots before the open (someone writing to the input
    folder meanwhile): what is open is refused, not read."""
    from fel_rules.core import inputs

    root, secret = tree / "a" / "b", tree / "secret.xml"
    secret.write_bytes(b"<secreto/>")
    checked = inputs.confine

    def check_then_swap(path, roots=()):
        real = checked(path, roots)
        path.unlink()
        path.symlink_to(secret)
        return real

    monkeypatch.setattr(inputs, "confine", check_then_swap)
    with pytest.raises(OutsideRoots):
        inputs.read_input(root / "f.xml", 100, roots=[root])


def test_without_the_kernels_name_the_path_must_still_name_the_open_file(tree, monkeypatch):
    """No ``/proc`` (another system), or the open file removed since: the path is checked now and must be the very
    file that is open, else the file opened is no longer there."""
    from fel_rules.core import confine as confining

    root, outside = tree / "a" / "b", tree / "outside.xml"
    outside.write_bytes(b"<fuera/>")
    monkeypatch.setattr(confining, "_opened_path", lambda handle: None)
    for opened, named, allowed in ((root / "f.xml", root / "f.xml", True), (outside, root / "f.xml", False)):
        handle = os.open(opened, os.O_RDONLY)  # the path was swapped for a link out and back around this open
        try:
            if allowed:
                confining.confine_opened(handle, named, [root])
            else:
                with pytest.raises(FileNotFoundError):
                    confining.confine_opened(handle, named, [root])
        finally:
            os.close(handle)


def test_a_logo_out_of_the_roots_is_never_printed(tree, tmp_path):
    from fel_rules import BatchOptions, RenderError, RenderSettings, run_batch
    from fel_rules.outputs.render.api import load_logo

    root = tree / "a"
    logo = Path(__file__).resolve().parent.parent / "examples" / "logo.png"
    (root / "logo.png").symlink_to(logo)  # resolves outside the root
    assert load_logo(root / "logo.png")  # no roots: anywhere
    with pytest.raises(RenderError, match="fuera de las carpetas permitidas"):
        load_logo(root / "logo.png", roots=[root])
    (root / "in").mkdir()
    (root / "in" / "f.xml").write_bytes((logo.parent / "factura-fact.xml").read_bytes())
    settings = RenderSettings.from_env({}, logo=root / "logo.png")
    with pytest.raises(RenderError, match="fuera de las carpetas permitidas"):  # before any work
        run_batch(BatchOptions(input_dir=root / "in", out_dir=root / "out", render_settings=settings,
                               roots=(root,), progress=False))
    assert not (root / "out").exists()


def test_what_a_batch_reads_back_for_a_tool_stays_inside_the_roots(tree, tmp_path):
    """The first error of an invalid entry and the manifest itself, read back for an MCP host, are judged inside
    the roots once open: a report or a manifest swapped for a link to a file outside is not read."""
    import json

    from fel_rules.batch import BatchResult
    from fel_rules.batch.manifest import Entry, Summary, first_error

    outside = tree / "a" / "afuera.json"
    outside.write_text(json.dumps({"issues": [{"severity": "error", "rule_id": "SECRETO", "message": "x"}]}))
    out = tree / "salida"
    out.mkdir()
    os.symlink(outside, out / "f.report.json")
    entry = Entry(path="f.xml", sha256=None, valid=False, complete=True,
                  counts={"error": 1, "warning": 0, "info": 0}, report="f.report.json", pdf=None)
    assert first_error(out, entry) == ("SECRETO", "x")  # (no roots: anywhere)
    assert first_error(out, entry, roots=[out]) is None  # (as a report that can no longer be read)
    os.symlink(outside, out / "manifest.json")
    result = BatchResult(out / "manifest.json", Summary(files=0, valid=0, invalid=0, errors=0, rendered=0), 0,
                         (out,))
    with pytest.raises(OutsideRoots):
        result.manifest  # noqa: B018


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(["a", "b.json", ".", "..", "", ".hidden", "c d", "ñ"]), min_size=1, max_size=5),
       st.booleans())
def test_an_atomic_write_names_its_folder_and_file_as_pathlib_does(parts, absolute):
    from fel_rules.core.atomic import _split

    path = ("/" if absolute else "") + "/".join(parts)
    parent, name = _split(path)
    assert name == Path(path).name and Path(parent) == Path(path).parent, path


def test_a_failed_write_names_its_target_as_given(tmp_path, monkeypatch):
    """A relative target's error names it as the caller did: a symlink loop where its folder should be is that
    folder (not the folder inside itself), and a folder where the file should be is the file's name."""
    from fel_rules.core.atomic import UnsafeTarget

    monkeypatch.chdir(tmp_path)
    os.symlink("loop", "loop")
    with pytest.raises(OSError) as looped:
        write_atomic("loop/x.json", b"{}")
    assert looped.value.filename == "loop"
    os.mkdir("a")
    with pytest.raises(UnsafeTarget) as refused:
        write_atomic("a", b"{}")
    assert refused.value.filename == "a"
