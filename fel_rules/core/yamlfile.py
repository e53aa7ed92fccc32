"""YAML loading that remembers where every key is, refuses duplicate keys, and explains errors."""

from __future__ import annotations

import copy
import hashlib
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .atomic import describe_os_error
from .catalogue import error_texts
from .errors import RuleFileError
from .foreign import yaml_error
from .inputs import InputTooLarge, NotRegularFile, describe_read_error, read_input
from .text import Text

if TYPE_CHECKING:  # PyYAML loads with the first file parsed: a run whose rules come from the cache never needs it
    import yaml

__all__ = ["MAX_YAML_BYTES", "MarkedDict", "MarkedList", "error_at", "load_yaml", "position", "value_position"]

#: Largest rule, data or profile file read (the biggest shipped one is under 50 kB).
MAX_YAML_BYTES = 10 * 1024 * 1024


class MarkedDict(dict):
    """A mapping that knows the (line, column) of itself and of each key, 1-based."""

    start: tuple[int, int] = (1, 1)
    keys_at: dict[Any, tuple[int, int]]
    values_at: dict[Any, tuple[int, int]]
    quoted: set[Any]


class MarkedList(list):
    """A sequence that knows the (line, column) of each element."""

    start: tuple[int, int] = (1, 1)
    items_at: list[tuple[int, int]]


def _pos(mark: yaml.Mark) -> tuple[int, int]:
    return mark.line + 1, mark.column + 1


@cache
def _loader() -> type:
    """A safe loader whose mappings and sequences carry positions: libyaml's parser when PyYAML was built with it
    (ten times faster), else PyYAML's own; both give every node its position."""
    import yaml

    class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    _Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    _Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
    return _Loader


def _construct_mapping(loader: Any, node: yaml.MappingNode) -> MarkedDict:
    import yaml

    loader.flatten_mapping(node)
    result = MarkedDict()
    result.start = _pos(node.start_mark)
    result.keys_at, result.values_at, result.quoted = {}, {}, set()
    for key_node, value_node in node.value:
        key = _construct(loader, key_node)
        try:
            hash(key)
        except TypeError:  # (a list or a mapping written as a key: ``? [a, b]``, ``{a: 1}: c``)
            line, column = _pos(key_node.start_mark)
            raise RuleFileError("una clave debe ser un texto o un número, no una lista ni un mapa",
                                message_en="a key must be a text or a number, not a list or a mapping",
                                line=line, column=column) from None
        if key in result:
            line, column = _pos(key_node.start_mark)
            first = result.keys_at[key][0]
            raise RuleFileError(
                f"clave duplicada '{key}' (ya definida en la línea {first})",
                message_en=f"duplicate key '{key}' (already defined on line {first})",
                line=line,
                column=column,
            )
        result[key] = _construct(loader, value_node)
        result.keys_at[key] = _pos(key_node.start_mark)
        result.values_at[key] = _pos(value_node.start_mark)
        if isinstance(value_node, yaml.ScalarNode) and value_node.style in ('"', "'"):
            result.quoted.add(key)
    return result


def _construct(loader: Any, node: yaml.Node) -> Any:
    """The value of ``node``; a value its tag cannot take (``2025-02-30`` read as a date, ``!!int abc``) is an error
    at its place, as a syntax error is."""
    try:
        return loader.construct_object(node, deep=True)
    except RuleFileError:
        raise
    except (ValueError, TypeError, OverflowError, AttributeError) as exc:  # (PyYAML's constructors' failures)
        line, column = _pos(node.start_mark)
        value = getattr(node, "value", "")
        shown = value if isinstance(value, str) and len(value) <= 60 else "…"
        raise RuleFileError(f"el valor '{shown}' no es válido para el tipo con que YAML lo lee (una fecha que no "
                            f"existe, un número mal escrito); escríbalo entre comillas si es un texto",
                            message_en=f"the value '{shown}' is not valid for the type YAML reads it as (a date that "
                                       f"does not exist, a malformed number); quote it if it is a text",
                            line=line, column=column, detail=str(exc)) from None


def _construct_sequence(loader: Any, node: yaml.SequenceNode) -> MarkedList:
    result = MarkedList(_construct(loader, child) for child in node.value)
    result.start = _pos(node.start_mark)
    result.items_at = [_pos(child.start_mark) for child in node.value]
    return result


def load_yaml(path: Path) -> Any:
    """Parse one YAML file; syntax errors and duplicate keys become :class:`RuleFileError`."""
    import yaml

    try:
        text = read_input(path, MAX_YAML_BYTES).decode("utf-8")
    except InputTooLarge as exc:
        raise RuleFileError(f"mide {exc.size} bytes y el límite es {MAX_YAML_BYTES}",
                            message_en=f"it is {exc.size} bytes and the limit is {MAX_YAML_BYTES}",
                            path=str(path)) from None
    except NotRegularFile as exc:
        reason = describe_read_error(exc)
        raise RuleFileError(**error_texts(Text.of("file.cannot_read", reason=reason)), path=str(path)) from None
    except OSError as exc:
        raise RuleFileError(**error_texts(Text.of("file.cannot_read", reason=describe_os_error(exc))), path=str(path),
                            detail=str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise RuleFileError(**error_texts(Text("yaml.not_utf8")), path=str(path), detail=str(exc)) from None
    try:
        return _parse(text)
    except RuleFileError as exc:
        # raised without a path (so its text carries no location prefix); add the file now
        raise RuleFileError(
            exc.message,
            message_en=exc.message_en,
            path=str(path),
            line=exc.line,
            column=exc.column,
        ) from None
    except RecursionError:  # the loader recurses per level of nesting
        raise _too_deep(text, path) from None
    except (ValueError, TypeError, OverflowError, AttributeError) as exc:  # (the document one scalar of a bad tag)
        raise RuleFileError("el documento no es un valor que YAML pueda leer",
                            message_en="the document is not a value YAML can read", path=str(path),
                            detail=str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc)
        if "nesting depth" in problem:  # libyaml's own limit, past ours
            raise _too_deep(text, path) from None
        line: int | None = None
        column: int | None = None
        offset = getattr(exc, "position", None)
        if mark is None and isinstance(offset, int):  # a ReaderError: a character offset
            line = text.count("\n", 0, offset) + 1
            column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        elif mark is not None:
            line, column = mark.line + 1, mark.column + 1
        raise RuleFileError(
            **error_texts(Text.of("yaml.invalid", reason=yaml_error(problem))),
            path=str(path), line=line, column=column, detail=str(exc),
        ) from None


#: Files up to this size are parsed once per content and handed out as copies: rule folders are often
#: copies of one another (a profile, a test, a batch folder), and parsing is most of loading a catalogue.
_SHARED_PARSE_CHARS = 256 * 1024


def _parse(text: str) -> Any:
    """The document in ``text``, a fresh copy the caller may change. A content seen for the first time is
    parsed and handed out as it is (a one-shot run reads each file once: no copy); from its second sight on,
    it is parsed once more and kept, and every caller gets a copy of it."""
    if len(text) > _SHARED_PARSE_CHARS:
        return _load(text)
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
    if digest not in _seen:
        if len(_seen) >= _SEEN_LIMIT:
            _seen.clear()
        _seen.add(digest)
        return _load(text)
    return copy.deepcopy(_parsed(text))


_seen: set[bytes] = set()  # digests of the contents parsed once (set.add is atomic: safe across threads)
_SEEN_LIMIT = 4096


@lru_cache(maxsize=256)
def _parsed(text: str) -> Any:
    """One parse per distinct content (failures are not kept: they raise again)."""
    return _load(text)


def _load(text: str) -> Any:
    import yaml

    return yaml.load(text, Loader=_loader())  # noqa: S506 - the loader derives from SafeLoader


#: Nesting a rule file never needs (rules nest a few levels); where :func:`_too_deep` points.
_DEEP_NESTING = 100


def _too_deep(text: str, path: Path) -> RuleFileError:
    """The error for a file nested too deep to load, at the first collection ``_DEEP_NESTING`` levels deep
    (found from the parser's event stream, which does not recurse)."""
    import yaml

    depth, mark = 0, None
    for event in yaml.parse(text, Loader=yaml.SafeLoader):  # the pure-Python parser: no depth limit of its own
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > _DEEP_NESTING:
                mark = event.start_mark
                break
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return RuleFileError(
        f"YAML anidado a más de {_DEEP_NESTING} niveles",
        message_en=f"YAML nested more than {_DEEP_NESTING} levels deep",
        path=str(path), line=mark.line + 1 if mark else None, column=mark.column + 1 if mark else None,
    )


def position(data: Any, loc: tuple[Any, ...]) -> tuple[int | None, int | None]:
    """Best (line, column) for the path ``loc`` inside loaded YAML data."""
    line = column = None
    node = data
    if isinstance(node, (MarkedDict, MarkedList)):
        line, column = node.start
    for key in loc:
        if isinstance(node, MarkedDict) and key in node:
            line, column = node.keys_at[key]
            node = node[key]
        elif isinstance(node, MarkedList) and isinstance(key, int) and 0 <= key < len(node):
            line, column = node.items_at[key]
            node = node[key]
        else:
            break
    return line, column


def error_at(path: Path, data: Any, loc: tuple[Any, ...], message: str, message_en: str) -> RuleFileError:
    """The error ``message`` (``message_en`` in English) about the file ``path``, at the line and column of ``loc``
    in its loaded data (see :func:`position`)."""
    line, column = position(data, loc)
    return RuleFileError(message, message_en=message_en, path=str(path), line=line, column=column)


def value_position(data: Any, loc: tuple[Any, ...]) -> tuple[int | None, int | None]:
    """(line, column) where the text of the scalar value at ``loc`` starts (after a quote)."""
    parent = data
    for key in loc[:-1]:
        if isinstance(parent, (MarkedDict, MarkedList)):
            try:
                parent = parent[key]
            except (KeyError, IndexError, TypeError):
                return position(data, loc)
    key = loc[-1] if loc else None
    if isinstance(parent, MarkedDict) and key in parent.values_at:
        line, column = parent.values_at[key]
        return line, column + (1 if key in parent.quoted else 0)
    return position(data, loc)
