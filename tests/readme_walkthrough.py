"""Follow a README's walkthrough literally: the files it shows, the commands it gives, the output it prints.

A walkthrough is the part of a README between two HTML comments (``<!-- recorrido: inicio … -->`` and
``<!-- recorrido: fin -->``, or ``walkthrough: start``/``end``). Inside it, a fenced block whose first line is
``# archivo: PATH`` (or ``# file: PATH``) is a file to write; a ``sh`` block is commands to run in order, and a
``text`` block right after one is output those commands must print, line by line. A command's trailing
``# código N`` (``# exit N``) is the exit code it must end with (0 otherwise).
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Block", "Step", "code_blocks", "fel_rules_commands", "walkthrough"]

_FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
_FILE = re.compile(r"^#\s*(?:archivo|file):\s*(\S+)\s*$")
_EXIT = re.compile(r"#\s*(?:código|exit)\s+(\d+)\s*$")
_START = re.compile(r"<!--\s*(?:recorrido:\s*inicio|walkthrough:\s*start)\b")
_END = re.compile(r"<!--\s*(?:recorrido:\s*fin|walkthrough:\s*end)\b")


@dataclass(frozen=True)
class Block:
    """A fenced code block: its language, its lines (indentation of the fence removed) and where it starts."""

    lang: str
    lines: tuple[str, ...]
    line: int

    @property
    def file(self) -> str | None:
        """The path a file block is written to (its ``# archivo:`` line), else ``None``."""
        match = _FILE.match(self.lines[0]) if self.lines else None
        return match.group(1) if match else None

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass(frozen=True)
class Step:
    """One thing a walkthrough does: write a file, or run commands (and the output they must print)."""

    file: Block | None = None
    commands: Block | None = None
    output: Block | None = None


def code_blocks(markdown: str) -> list[Block]:
    """Every fenced block of ``markdown``, in order."""
    blocks, current, lang, indent, start = [], None, "", "", 0
    for number, line in enumerate(markdown.splitlines(), start=1):
        fence = _FENCE.match(line)
        if current is None:
            if fence:
                current, indent, lang, start = [], fence.group(1), fence.group(2), number
        elif fence and fence.group(1) == indent:
            blocks.append(Block(lang, tuple(current), start))
            current = None
        else:
            current.append(line.removeprefix(indent))
    return blocks


def walkthrough(markdown: str) -> list[Step]:
    """The steps between the walkthrough markers of ``markdown``."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if _START.search(line))
    end = next(i for i, line in enumerate(lines) if _END.search(line) and i > start)
    steps: list[Step] = []
    for block in code_blocks("\n".join(lines[start:end + 1])):
        if block.file:
            steps.append(Step(file=block))
        elif block.lang == "sh":
            steps.append(Step(commands=block))
        elif block.lang == "text" and steps and steps[-1].commands is not None and steps[-1].output is None:
            steps[-1] = Step(commands=steps[-1].commands, output=block)
    return steps


def commands_of(block: Block) -> Iterator[tuple[list[str], int]]:
    """(argv, expected exit code) of each command line of an ``sh`` block."""
    for _, line in _joined(block.lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        wanted = _EXIT.search(line)
        yield shlex.split(line, comments=True), int(wanted.group(1)) if wanted else 0


def fel_rules_commands(markdown: str) -> Iterator[tuple[int, list[str]]]:
    """(line, arguments) of every ``fel-rules`` command in the ``sh`` blocks of ``markdown``: a command that starts
    a line or follows ``&&`` or ``--`` (``claude mcp add fel-rules -- fel-rules serve …``)."""
    for block in code_blocks(markdown):
        if block.lang != "sh":
            continue
        for offset, line in _joined(block.lines):
            for segment in line.split("&&"):
                words = shlex.split(segment, comments=True)
                for index, word in enumerate(words):
                    program = index == 0 or words[index - 1] == "--"
                    if program and (word == "fel-rules" or word.endswith("/fel-rules")):
                        yield block.line + offset, words[index + 1:]
                        break


def _joined(lines: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """(line number in the block, command) with lines ending in ``\\`` joined to the next."""
    pending, first = "", 0
    for number, line in enumerate(lines, start=1):
        if not pending:
            first = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield first, pending + line
        pending = ""


def copy(arguments: list[str], cwd: Path) -> None:
    """``cp SOURCE TARGET`` of a walkthrough, in ``cwd``."""
    source, target = arguments
    shutil.copy(cwd / source, cwd / target)
