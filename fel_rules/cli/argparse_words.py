"""argparse's own words (``usage:``, ``options``, ``invalid choice``…) said in Spanish, unless the command line
asks for English (``--lang en``): the frame of the help and of usage errors speaks the language of the rest.

argparse looks its words up through :mod:`gettext` when it prints them; :func:`argparse_language` swaps the
lookup for the time of one command and puts it back after.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

__all__ = ["argparse_language", "wants_english"]

#: argparse's English messages (Python 3.10–3.13) and their Spanish wording; placeholders kept as they are.
SPANISH = {
    "usage: ": "uso: ",
    "positional arguments": "argumentos posicionales",
    "options": "opciones",
    "optional arguments": "opciones",
    "show this help message and exit": "mostrar esta ayuda y salir",
    "show program's version number and exit": "mostrar la versión del programa y salir",
    "invalid choice: %(value)r (choose from %(choices)s)": "opción inválida: %(value)r (elija entre %(choices)s)",
    "the following arguments are required: %s": "faltan estos argumentos: %s",
    "unrecognized arguments: %s": "argumentos no reconocidos: %s",
    "expected one argument": "se esperaba un argumento",
    "expected at most one argument": "se esperaba a lo sumo un argumento",
    "expected at least one argument": "se esperaba al menos un argumento",
    "ambiguous option: %(option)s could match %(matches)s": "opción ambigua: %(option)s puede ser %(matches)s",
    "argument %(argument_name)s: %(message)s": "argumento %(argument_name)s: %(message)s",
    "not allowed with argument %s": "no se admite junto con el argumento %s",
    "invalid %(type)s value: %(value)r": "valor %(type)s inválido: %(value)r",
    "one of the arguments %s is required": "se requiere uno de los argumentos %s",
    "ignored explicit argument %r": "argumento explícito ignorado: %r",
    "%(prog)s: error: %(message)s\n": "%(prog)s: error: %(message)s\n",
}
_PLURALS = {
    ("expected %s argument", "expected %s arguments"): ("se esperaba %s argumento", "se esperaban %s argumentos"),
}


def _spanish(message: str) -> str:
    return SPANISH.get(message, message)


def _spanish_plural(singular: str, plural: str, count: int) -> str:
    one, many = _PLURALS.get((singular, plural), (singular, plural))
    return one if count == 1 else many


def wants_english(argv: Sequence[str]) -> bool:
    """Whether ``argv`` (a command's arguments) holds ``--lang en``."""
    return any(arg == "--lang=en" or (arg == "--lang" and argv[index + 1:index + 2] == ["en"])
               for index, arg in enumerate(argv))


@contextmanager
def argparse_language(argv: Sequence[str]) -> Iterator[None]:
    """argparse speaks Spanish inside the block, English when ``argv`` holds ``--lang en``."""
    if wants_english(argv):
        yield
        return
    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = _spanish, _spanish_plural  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]
