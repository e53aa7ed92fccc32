"""What other libraries say when they refuse something, said in the catalogue's words.

libxml2 (through lxml: XML syntax, XPath), PyYAML, pydantic and Python's own parsers (expressions, ``matches``
patterns, message templates) explain problems in English. A user reads the catalogue's text instead (Spanish, or
English with ``--lang en``); the library's own words are kept by the caller as a *detail* (the report's
``detail``, :attr:`FelRulesError.detail <fel_rules.core.errors.FelRulesError.detail>`), never as the message.

Each function takes what the library said and returns a :class:`~fel_rules.core.text.Text` of the ``foreign.*``
entries of ``messages.yaml``; a message no table knows gets the general text of its kind. Nothing here imports
those libraries.
"""

from __future__ import annotations

import decimal
import errno
import re
from collections.abc import Iterator, Mapping

from .text import Text

__all__ = [
    "PYDANTIC_TYPES", "evaluation", "os_error", "pydantic_error", "python_syntax", "regex_error", "template_error",
    "xml_syntax", "xpath_error", "yaml_error",
]

class _Table:
    """Patterns and the text each one means, compiled on first use: most runs never read a library's message."""

    def __init__(self, rows: tuple[tuple[str, str], ...]) -> None:
        self._rows = rows
        self._compiled: list[tuple[re.Pattern[str], str]] | None = None

    def __iter__(self) -> Iterator[tuple[re.Pattern[str], str]]:
        if self._compiled is None:
            self._compiled = [(re.compile(pattern, re.S), id) for pattern, id in self._rows]
        return iter(self._compiled)


def _first(table: _Table, message: str, fallback: str, **values: object) -> Text:
    """The text of the first pattern of ``table`` that ``message`` matches (its named groups as values)."""
    for pattern, id in table:
        match = pattern.search(message)
        if match:
            return Text(id, {**values, **{k: v for k, v in match.groupdict().items() if v is not None}})
    return Text(fallback, values)


def _table(*rows: tuple[str, str]) -> _Table:
    return _Table(rows)


# ---- libxml2: XML syntax -----------------------------------------------------------------------------------

#: libxml2's error name (``lxml.etree.ErrorTypes``, without its ``XML_`` prefix) → text, when one text says it.
_XML_BY_NAME = {
    "ERR_DOCUMENT_END": "foreign.xml.extra_content",
    "ERR_ATTRIBUTE_NOT_STARTED": "foreign.xml.attribute_quotes",
    "ERR_LT_IN_ATTRIBUTE": "foreign.xml.lt_in_attribute",
    "ERR_ENTITYREF_SEMICOL_MISSING": "foreign.xml.ampersand",
    "ERR_HYPHEN_IN_COMMENT": "foreign.xml.comment_hyphens",
    "ERR_COMMENT_NOT_FINISHED": "foreign.xml.comment_unclosed",
    "ERR_RESERVED_XML_NAME": "foreign.xml.declaration_not_first",
    "ERR_INVALID_CHAR": "foreign.xml.bad_character",
    "ERR_INVALID_ENCODING": "foreign.xml.bad_encoding",
    "ERR_UNKNOWN_ENCODING": "foreign.xml.bad_encoding",
    "ERR_CDATA_NOT_FINISHED": "foreign.xml.cdata_unclosed",
    "ERR_MISPLACED_CDATA_END": "foreign.xml.cdata_end",
    "ERR_SPACE_REQUIRED": "foreign.xml.space_required",
    "ERR_INVALID_HEX_CHARREF": "foreign.xml.bad_charref",
    "ERR_INVALID_DEC_CHARREF": "foreign.xml.bad_charref",
    "ERR_INVALID_CHARREF": "foreign.xml.bad_charref",
    "ERR_VERSION_MISSING": "foreign.xml.bad_declaration",
    "ERR_XMLDECL_NOT_STARTED": "foreign.xml.bad_declaration",
    "ERR_XMLDECL_NOT_FINISHED": "foreign.xml.bad_declaration",
    "ERR_PI_NOT_FINISHED": "foreign.xml.pi_unclosed",
    "ERR_PI_NOT_STARTED": "foreign.xml.pi_unclosed",
    "ERR_LTSLASH_REQUIRED": "foreign.xml.end_tag_missing",
    "ERR_EQUAL_REQUIRED": "foreign.xml.attribute_equal",
    "ERR_ATTRIBUTE_NOT_FINISHED": "foreign.xml.attribute_quotes",
    "ERR_STRING_NOT_CLOSED": "foreign.xml.attribute_quotes",
    "NS_ERR_QNAME": "foreign.xml.bad_name",
    "NS_ERR_XML_NAMESPACE": "foreign.xml.empty_namespace",
    "NS_ERR_EMPTY": "foreign.xml.empty_namespace",
    "ERR_NO_MEMORY": "foreign.xml.too_big",
}

#: Errors whose English names something worth repeating (an element, an attribute, a line).
_XML_BY_TEXT = _table(
    (r"^Start tag expected", "foreign.xml.no_start_tag"),
    (r"^Document is empty", "foreign.xml.empty"),
    (r"^Premature end of data in tag (?P<tag>\S+) line (?P<line>\d+)", "foreign.xml.unclosed"),
    (r"^Opening and ending tag mismatch: (?P<opened>\S+) line (?P<line>\d+) and (?P<closed>\S+)",
     "foreign.xml.mismatch"),
    (r"^Attribute (?P<attribute>\S+) redefined", "foreign.xml.attribute_twice"),
    (r"^Entity '(?P<entity>[^']+)' not defined", "foreign.xml.unknown_entity"),
    (r"^Specification mandates value for attribute (?P<attribute>\S+)", "foreign.xml.attribute_without_value"),
    (r"^Namespace prefix (?P<prefix>\S+) (?:for \S+ )?on (?P<element>\S+) is not defined",
     "foreign.xml.undeclared_prefix"),
    (r"^Unsupported encoding:? (?P<encoding>\S+)", "foreign.xml.unknown_encoding"),
    (r"^Couldn't find end of Start Tag (?P<tag>\S+)", "foreign.xml.tag_not_closed"),
    (r"EntityRef|xmlParseEntityRef", "foreign.xml.ampersand"),
    (r"^StartTag: invalid element name", "foreign.xml.bad_element_name"),
    (r"attribute name", "foreign.xml.bad_attribute_name"),
    (r"^Input is not proper UTF-8", "foreign.xml.bad_encoding"),
)


def xml_syntax(name: str, message: str) -> Text:
    """An XML syntax error of libxml2 (its error ``name``, as ``ERR_TAG_NAME_MISMATCH``, and its English)."""
    message = message.strip()
    for pattern, id in _XML_BY_TEXT:
        match = pattern.search(message)
        if match:
            return Text(id, {k: v for k, v in match.groupdict().items() if v is not None})
    return Text(_XML_BY_NAME.get(name.removeprefix("XML_"), "foreign.xml.other"))


# ---- libxml2: XPath ------------------------------------------------------------------------------------------

_XPATH = _table(
    (r"^Invalid expression|^Invalid predicate|^Syntax error|^Expected \$|^Start of literal|^Number encoding|"
     r"^Missing closing curly brace", "foreign.xpath.syntax"),
    (r"^Unfinished literal", "foreign.xpath.literal"),
    (r"^Undefined namespace prefix", "foreign.xpath.prefix"),
    (r"^Unregistered function", "foreign.xpath.function"),
    (r"^Undefined variable|^Forbidden variable", "foreign.xpath.variable"),
    (r"^Invalid number of arguments", "foreign.xpath.arguments"),
    (r"^Invalid type|^Invalid operand", "foreign.xpath.type"),
    (r"limit exceeded|^Stack usage|^Memory allocation|^Resource error", "foreign.xpath.too_complex"),
)


def xpath_error(message: str) -> Text:
    """An XPath error of libxml2 (compiling or evaluating), from its English message."""
    return _first(_XPATH, message.strip(), "foreign.xpath.other")


# ---- PyYAML --------------------------------------------------------------------------------------------------

_YAML = _table(
    (r"mapping values are not allowed|found unexpected ':'", "foreign.yaml.colon"),
    (r"could not find expected ':'", "foreign.yaml.missing_colon"),
    (r"cannot start any token|found a tab character|found character '\\t'", "foreign.yaml.tab"),
    (r"did not find expected key|expected <block end>", "foreign.yaml.indentation"),
    (r"did not find expected '-' indicator", "foreign.yaml.list_indentation"),
    (r"did not find expected ',' or '(?P<bracket>[\]}])'|expected ',' or '(?P<other>[\]}])'", "foreign.yaml.flow"),
    (r"found unexpected end of stream", "foreign.yaml.unclosed_quote"),
    (r"unknown escape character", "foreign.yaml.escape"),
    (r"undefined alias|found duplicate anchor|second occurrence", "foreign.yaml.alias"),
    (r"could not determine a constructor|tag", "foreign.yaml.tag"),
    (r"special characters are not allowed|unacceptable character|control characters", "foreign.yaml.control"),
    (r"expected a comment or a line break", "foreign.yaml.trailing"),
    (r"another document|document start", "foreign.yaml.documents"),
)


def yaml_error(problem: str) -> Text:
    """A YAML syntax error, from PyYAML's ``problem`` (or the whole message)."""
    return _first(_YAML, problem, "foreign.yaml.other")


# ---- pydantic ------------------------------------------------------------------------------------------------

#: pydantic error types the catalogue says (``foreign.pydantic.<type>``); ``{key}`` is where, and the error's
#: context fills the rest (``{expected}``, ``{min_length}``…). Other types get ``foreign.pydantic.other``.
PYDANTIC_TYPES = frozenset({
    "extra_forbidden", "missing", "string_pattern_mismatch", "literal_error", "enum", "string_type", "list_type",
    "dict_type", "model_type", "model_attributes_type", "bool_type", "bool_parsing", "int_type", "int_parsing",
    "int_from_float", "float_type", "float_parsing", "decimal_type", "decimal_parsing", "date_type", "date_parsing",
    "date_from_datetime_parsing", "datetime_type", "datetime_parsing", "too_short", "too_long", "string_too_short",
    "string_too_long", "greater_than_equal", "greater_than", "less_than_equal", "less_than", "union_tag_invalid",
    "none_required", "path_type", "is_instance_of",
})


def pydantic_error(error: Mapping, key: str) -> Text:
    """One error of a pydantic ``ValidationError`` (an item of ``errors()``), at ``key`` (``let.total.type``).

    A ``value_error`` raised by fel-rules' own validators already speaks Spanish: its text is kept."""
    context = {name: _listed(value) for name, value in (error.get("ctx") or {}).items()}
    kind = error.get("type", "")
    if kind == "value_error":
        return Text.of("foreign.pydantic.own", key=key, text=str(context.get("error", "")))
    if kind in PYDANTIC_TYPES:
        return Text(f"foreign.pydantic.{kind}", {**context, "key": key})
    return Text.of("foreign.pydantic.other", key=key)


def _listed(value: object) -> object:
    """pydantic's ``'a' or 'b'`` as a list a text says in its language."""
    text = str(value)
    if "' or '" in text:
        names = [name.strip("'") for name in text.split(" or ")]
        said: Text | str = f"'{names[0]}'"
        for name in names[1:]:
            said = Text.of("list.or", first=said, second=f"'{name}'")
        return said
    return text


# ---- Python: expressions, patterns, templates ------------------------------------------------------------

_PYTHON = _table(
    (r"'(?P<bracket>[(\[{])' was never closed", "foreign.python.unclosed"),
    (r"^unmatched '(?P<bracket>[)\]}])'", "foreign.python.unmatched"),
    (r"^closing parenthesis '(?P<closing>.)' does not match opening parenthesis '(?P<opening>.)'",
     "foreign.python.mismatch"),
    (r"unterminated (?:triple-quoted )?string literal|EOL while scanning|EOF while scanning",
     "foreign.python.unclosed_quote"),
    (r"^invalid character '(?P<char>.)'|^invalid non-printable character", "foreign.python.bad_character"),
    (r"decimal literal|leading zeros|invalid digit|invalid hexadecimal|invalid octal|invalid binary",
     "foreign.python.bad_number"),
    (r"Maybe you meant '==' |cannot assign|assignment", "foreign.python.single_equals"),
    (r"forgot a comma", "foreign.python.missing_operator"),
    (r"unexpected EOF|incomplete input|expected an indented|unexpected indent|unindent", "foreign.python.incomplete"),
)


def python_syntax(message: str) -> Text:
    """Python's ``SyntaxError`` message for an expression of a rule."""
    return _first(_PYTHON, message, "foreign.python.syntax")


_REGEX = _table(
    (r"unterminated subpattern|missing \)", "foreign.regex.unclosed_group"),
    (r"unbalanced parenthesis", "foreign.regex.unmatched"),
    (r"nothing to repeat|multiple repeat", "foreign.regex.repeat"),
    (r"unterminated character set", "foreign.regex.unclosed_set"),
    (r"bad character range", "foreign.regex.range"),
    (r"bad escape", "foreign.regex.escape"),
)


def regex_error(message: str) -> Text:
    """Python's ``re.error`` message for a ``matches`` pattern."""
    return _first(_REGEX, message, "foreign.regex.other")


_TEMPLATE = _table(
    (r"Single '}'", "foreign.template.lone_close"),
    (r"Single '{'|expected '}'|unmatched '{'", "foreign.template.lone_open"),
)


def template_error(message: str) -> Text:
    """``string.Formatter``'s message for a malformed message template."""
    return _first(_TEMPLATE, message, "foreign.template.other")


# ---- evaluating a rule on a document ---------------------------------------------------------------------

def evaluation(exc: BaseException) -> Text:
    """What went wrong evaluating a rule's arithmetic or functions on a document's values (a function of the
    expression language that says why itself: its own words)."""
    said = getattr(exc, "said", None)
    if isinstance(said, Text):
        return said
    if isinstance(exc, (ZeroDivisionError, decimal.DivisionByZero)) or (
            isinstance(exc, decimal.InvalidOperation) and "DivisionUndefined" in repr(exc.args)):
        return Text("foreign.eval.division_by_zero")
    if isinstance(exc, decimal.Overflow) or isinstance(exc, OverflowError):
        return Text("foreign.eval.overflow")
    if isinstance(exc, decimal.InvalidOperation):
        return Text("foreign.eval.invalid_operation")
    if isinstance(exc, TypeError):
        return Text("foreign.eval.types")
    if isinstance(exc, RecursionError | MemoryError):
        return Text("foreign.eval.too_complex")
    return Text("foreign.eval.other")


# ---- the operating system ----------------------------------------------------------------------------------

_OS_ERRORS = {  # errno → catalogue text
    errno.ENOSPC: "os_error.no_space",
    errno.EDQUOT: "os_error.quota",
    errno.EROFS: "os_error.read_only",
    errno.EACCES: "os_error.access",
    errno.EPERM: "os_error.not_permitted",
    errno.ENOENT: "os_error.not_found",
    errno.ENOTDIR: "os_error.not_a_folder",
    errno.EISDIR: "os_error.is_a_folder",
    errno.ENAMETOOLONG: "os_error.name_too_long",
    errno.EIO: "os_error.io",
    errno.ELOOP: "os_error.symlink",
    errno.EBUSY: "os_error.busy",
    errno.EMFILE: "os_error.too_many_open",
    errno.ENFILE: "os_error.too_many_open",
    errno.EINVAL: "os_error.invalid",
    errno.EILSEQ: "os_error.invalid",
    errno.ETXTBSY: "os_error.busy",
}


def os_error(exc: OSError) -> Text:
    """Why the operating system refused a file operation (the system's words are English: ``Permission
    denied``); an error no text knows is named by its code (``error del sistema ENXIO``)."""
    id = _OS_ERRORS.get(exc.errno) if exc.errno is not None else None
    if id is not None:
        return Text(id)
    code = errno.errorcode.get(exc.errno, str(exc.errno)) if exc.errno is not None else type(exc).__name__
    return Text.of("os_error.other", code=code)
