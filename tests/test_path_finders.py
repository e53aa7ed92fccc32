"""The path finders give exactly what XPath gives: same nodes, same order, the same attributes (with their element
and name), the same counts and booleans, on every node they may start from."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from fel_rules import Config, Validator
from fel_rules.checks._finders import anchored_finder, context_chain
from fel_rules.checks._xpath import (
    XPathQuery,
    child_path_finder,
    compile_xpath,
    guarded,
    valued_finder,
    with_values,
)
from fel_rules.checks.expression import ExpressionCheck
from fel_rules.checks.required import RequiredCheck
from fel_rules.core.namespaces import DTE
from fel_rules.document.parse import parse_xml
from fel_rules.testing.builder import sample_invoice

from .conftest import EXAMPLES

NAMESPACES = {"dte": DTE, "ds": "http://www.w3.org/2000/09/xmldsig#"}


def _rule_paths() -> list[tuple[str, dict]]:
    """Every context and binding path of the rules (places expanded) that has a finder."""
    paths = set()
    for rule in Validator(Config()).catalog.rules:
        check = rule.check
        if not isinstance(check, ExpressionCheck):
            continue
        namespaces = tuple(sorted(check.namespaces.items()))
        paths.add((check.context.path, namespaces))
        paths.update((binding.path, namespaces) for binding in check.bindings
                     if binding.path is not None and not binding.needs)
    found = [(path, dict(spaces)) for path, spaces in sorted(paths) if child_path_finder(path, dict(spaces))]
    return found


PATHS = _rule_paths()
DOCUMENTS = [parse_xml(path.read_bytes(), max_bytes=10**7).root for path in sorted(EXAMPLES.glob("*.xml"))]
DOCUMENTS.append(parse_xml(sample_invoice("FACT").to_xml(), max_bytes=10**7).root)


def test_most_rule_paths_have_a_finder() -> None:
    assert len(PATHS) > 40


@pytest.mark.parametrize(("path", "namespaces"), PATHS, ids=[path for path, _ in PATHS])
def test_finder_gives_what_xpath_gives(path: str, namespaces: dict) -> None:
    finder = child_path_finder(path, namespaces)
    assert finder is not None
    xpath = etree.XPath(path, namespaces=namespaces)
    for root in DOCUMENTS:
        memo: dict = {}
        for node in root.iter(etree.Element):
            assert_same(finder(node, memo), xpath(node), (path, root.getroottree().getpath(node)))
            assert_same(finder(node, memo), xpath(node), "again, from the memo")


def assert_same(found: object, expected: object, where: object) -> None:
    """``found`` is what XPath gave: the same type of result, the same nodes; an attribute by value, element
    and name."""
    assert type(found) is type(expected), where
    assert found == expected, where
    if isinstance(expected, list):
        for mine, theirs in zip(found, expected, strict=True):
            if isinstance(theirs, str):
                assert (mine.getparent(), mine.attrname, mine.is_attribute) == (
                    theirs.getparent(), theirs.attrname, theirs.is_attribute), where
            else:
                assert mine is theirs, where



#: Predicates on children that have several values, nested text, comments, a "/" in the compared text, numbers
#: as XPath reads them (blanks around, a zero fraction, a sign, an exponent libxml2 accepts, too many digits).
TRICKY = etree.fromstring(f"""<dte:R xmlns:dte="{DTE}" A="1">
  <dte:I C=" 1 "><dte:N>IVA</dte:N><dte:N>ISR</dte:N><dte:M>1</dte:M><dte:K>1.0</dte:K></dte:I>
  <dte:I C="01"><dte:N>I<!-- c -->VA</dte:N><dte:M>2</dte:M><dte:K> 2 </dte:K></dte:I>
  <dte:I C="1e0"><dte:N>I<dte:x>V</dte:x>A</dte:N><dte:M>3</dte:M><dte:M>4</dte:M><dte:K>-0</dte:K></dte:I>
  <dte:I C="+1"><dte:N> IVA</dte:N><dte:M>5</dte:M><dte:K>.5</dte:K></dte:I>
  <dte:I C="1.5"><dte:N>a/b</dte:N><dte:M>6</dte:M><dte:K>0.99999999999999999999</dte:K></dte:I>
  <dte:I C=""><dte:N/><dte:M>7</dte:M><dte:K>1234567890123456</dte:K></dte:I>
  <dte:I><dte:M>8</dte:M><dte:K>1\u00a0</dte:K><dte:K>14</dte:K></dte:I>
</dte:R>""")


@pytest.mark.parametrize("path", [
    "/dte:GTDocumento", "/dte:Otro/dte:SAT", "../..", "../../..", "dte:SAT/dte:DTE", "../../dte:Items/dte:Item",
    "/dte:GTDocumento/dte:SAT/dte:DTE/dte:DatosEmision", "dte:I[dte:N='IVA']/dte:M", "dte:I[dte:N!='IVA']/dte:M",
    "dte:I[dte:N = \"a/b\"]/dte:M", "dte:I[ dte:N != '' ]", "dte:I[dte:N='']/dte:M", "/dte:R[dte:I='IVA']",
    "/dte:R/dte:I[dte:M='4']/dte:N", "../dte:I[dte:N='IVA']", "dte:Impuestos/dte:Impuesto[dte:NombreCorto='IVA']",
    # attributes, self, numbers, several predicates, and/or/not, paths compared with paths, count and boolean
    "@A", "dte:I/@C", "../@A", "../../dte:R/@A", "../../dte:GTDocumento", "../../../dte:R", ".", "./dte:M", "@Nada",
    "dte:I[@C = 1]", "dte:I[@C != 1]", "dte:I[dte:K = 1]", "dte:I[dte:K = 2]", "dte:I[dte:K != 2]", "dte:I[dte:K = 0]",
    "dte:I[dte:K = 14]", "dte:I[dte:M = 4]", "dte:I[dte:M = '4'][dte:N]", "dte:I[dte:N][not(dte:N = 'IVA')]",
    "dte:I[dte:N = 'IVA' or dte:M = 7]", "dte:I[dte:N and dte:M = 1]", "dte:I[not(dte:N = 'IVA' or dte:N = '')]",
    "dte:I[(dte:M = 3 or dte:M = 5) and not(dte:K)]", "dte:I[dte:M = /dte:R/dte:I/@C]",
    "dte:I[dte:N != /dte:R/dte:I/dte:N]",
    "dte:I[dte:N = /dte:R/dte:I/dte:N]/dte:M", "/dte:R[@A = 1]/dte:I[@C]/dte:M", "dte:I[dte:N[. = 'ISR']]",
    "dte:I[. = 'IVA1']", "dte:I/dte:M[. = 1 or . = 8]", "count(dte:I)", "count(dte:I/@C)", "count(/dte:R/dte:I[@C=1])",
    "count(dte:Nada)", "boolean(dte:I)", "boolean(@A)", "boolean(dte:Nada)", "boolean(dte:I[dte:M = 8])",
    "/dte:GTDocumento/dte:SAT/dte:DTE/dte:DatosEmision/dte:DatosGenerales/@Tipo",
    "/dte:GTDocumento/dte:SAT/dte:DTE/dte:DatosEmision[dte:Receptor/@IDReceptor='CF'][not(dte:DatosGenerales/@Exp='SI')]",
    # several predicates on one absolute step (each a filter of the one before), paths walked in a predicate
    "/dte:R/dte:I[dte:N = 'IVA'][dte:M = 1]", "/dte:R/dte:I[dte:N = 'IVA'][dte:M = 1]/dte:K", "/dte:R/dte:I[dte:N]",
    "/dte:R/dte:I[dte:N][dte:K != 2][@C]", "/dte:R/dte:I[dte:K = 1 or dte:K = 2 or dte:M = 7]",
    "/dte:R[dte:I/dte:N = 'IVA']", "/dte:R[dte:I/dte:N != 'IVA']", "/dte:R[dte:I/dte:K = 2]", "/dte:R[dte:I/@C = 1]",
    "/dte:R[dte:I/dte:N/dte:x = 'V']",
    "/dte:R[not(dte:I/dte:N = 'ISR')]", "/dte:R[dte:I[dte:N = 'ISR']/dte:M]", "/dte:R[dte:I/dte:Nada]", "../../dte:M",
    "dte:I[dte:N/dte:x]", "dte:I[not(dte:N = 'IVA') and not(dte:N = 'ISR') and dte:M]",
    # predicates of an absolute path answered from sets of the document (anchored), nested ones too
    "/dte:R/dte:I[dte:N/dte:x = 'V']/dte:M", "/dte:R/dte:I[dte:N/dte:x]", "/dte:R/dte:I[dte:N[dte:x = 'V']]",
    "/dte:R[dte:I[dte:N = 'IVA'][dte:M = 1]]", "/dte:R/dte:I[not(dte:N[dte:x]) or dte:K[. = 2]]/@C",
    "/dte:R[dte:I[not(dte:N = 'IVA') or dte:K = 2]/dte:M = 7]", "count(/dte:R/dte:I[dte:N[dte:x]])",
    "/dte:R[not(dte:I[dte:N = 'IVA'][dte:K = 1 or dte:K = 14])]", "/dte:R/dte:I[dte:N/@z = 'q']",
    "/dte:R[dte:I[dte:N != 'IVA']/dte:K != 14]", "/dte:R/dte:I[dte:N[. = 'IVA'] and dte:M[. = 1]]/dte:K",
])
def test_written_paths(path: str) -> None:
    finder = child_path_finder(path, NAMESPACES)
    assert finder is not None
    xpath = etree.XPath(path, namespaces=NAMESPACES)
    for root in [*DOCUMENTS, TRICKY]:
        memo: dict = {}
        for node in root.iter(etree.Element):
            assert_same(finder(node, memo), xpath(node), path)


def test_paths_share_one_memo() -> None:
    """Paths read from one document's memo, in one order and in the other, give what XPath gives: what they share
    there (the children index, the lists of absolute steps, walked answers) is never another path's."""
    paths = test_written_paths.pytestmark[0].args[1]
    for order in (paths, paths[::-1]):
        for root in [*DOCUMENTS, TRICKY]:
            memo: dict = {}
            for path in order:
                finder = child_path_finder(path, NAMESPACES)
                xpath = etree.XPath(path, namespaces=NAMESPACES)
                for node in root.iter(etree.Element):
                    assert_same(finder(node, memo), xpath(node), path)


@pytest.mark.parametrize("path", [
    "dte:A[1]", "//dte:Item", "x:A", "dte:A | dte:B", "dte:A[x:B='y']", "dte:A[@x:B='y']", "dte:A[dte:B < 1]",
    "dte:A[dte:B = 1.5]", "dte:A[dte:B = $v]", "dte:A[last()]", "dte:A[count(dte:B)]", "*", "dte:A/*", "A",
    "self::dte:A", "preceding-sibling::dte:A", "local-name()", "normalize-space(@A)", "dte:A[normalize-space(@A)]",
    "/", "/@A", "dte:A/..", "dte:A[../dte:B]", "count(../dte:A)", "dte:A[dte:B = 1234567890123456]", "dte:A[2 = 2]",
    "dte:A['x']", "dte:A[@B = 'x'", "dte:A/@B/dte:C", "@B[. = 'x']", "dte:A[1.0]", "string(dte:A)", "dte:A[dte:B = -1]",
])
def test_other_paths_have_no_finder(path: str) -> None:
    assert child_path_finder(path, NAMESPACES) is None


def test_contexts_take_only_element_paths() -> None:
    assert child_path_finder("dte:A/@B", NAMESPACES, elements_only=True) is None
    assert child_path_finder("count(dte:A)", NAMESPACES, elements_only=True) is None
    assert child_path_finder("dte:A[@B = 'x']", NAMESPACES, elements_only=True) is not None


_BLANKS = st.sampled_from(["", " ", "\t", "\n ", "\u00a0"])


_NUMBER_TEXTS = st.from_regex(r"-?[0-9]{0,17}(\.[0-9]{0,17})?([eE][+-]?[0-9]{1,3})?|[+.]?[0-9]{1,3}|x", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_BLANKS, _NUMBER_TEXTS, _BLANKS), min_size=1, max_size=4),
       st.integers(min_value=0, max_value=20))
def test_numbers_compare_as_libxml2_compares_them(values: list[tuple[str, str, str]], number: int) -> None:
    document = etree.fromstring(f"<dte:R xmlns:dte='{DTE}'>" + "".join(
        f"<dte:V>{before}{value}{after}</dte:V>" for before, value, after in values) + "</dte:R>")
    for operator in ("=", "!="):
        path = f"/dte:R[dte:V {operator} {number}]"
        finder = child_path_finder(path, NAMESPACES)
        assert finder is not None
        assert finder(document, {}) == etree.XPath(path, namespaces=NAMESPACES)(document), (path, values)


def _guarded_rule_paths() -> list[tuple[str, dict]]:
    """Every XPath of the rules (contexts, bindings without ``$names``, required fields) outside the finders' subset
    that :func:`~fel_rules.checks._xpath.guarded` takes."""
    paths = set()
    for rule in Validator(Config()).catalog.rules:
        check = rule.check
        namespaces = tuple(sorted(getattr(check, "namespaces", NAMESPACES).items()))
        if isinstance(check, ExpressionCheck):
            paths.add((check.context.path, namespaces))
            paths.update((binding.path, namespaces) for binding in check.bindings
                         if binding.path is not None and not binding.needs)
        elif isinstance(check, RequiredCheck):
            namespaces = tuple(sorted(check.context.namespaces.items()))
            paths.add((check.context.xpath.path, namespaces))
            paths.update((found.xpath.path, namespaces) for _, found, _ in check.fields)
    return [(path, dict(spaces)) for path, spaces in sorted(paths)
            if child_path_finder(path, dict(spaces)) is None
            and guarded(compile_xpath(path, dict(spaces))) is not None]


GUARDED = _guarded_rule_paths()


def test_some_rule_paths_are_guarded() -> None:
    assert len(GUARDED) >= 4


@pytest.mark.parametrize(("path", "namespaces"), GUARDED, ids=[path for path, _ in GUARDED])
def test_guarded_path_gives_what_xpath_gives(path: str, namespaces: dict) -> None:
    find = guarded(compile_xpath(path, namespaces))
    assert find is not None
    xpath = etree.XPath(path, namespaces=namespaces)
    for root in DOCUMENTS:
        memo: dict = {}
        for node in root.iter(etree.Element):
            assert_same(find(node, memo), xpath(node), (path, root.getroottree().getpath(node)))


@pytest.mark.parametrize("path", [
    "/dte:R/dte:I/*[self::dte:N]", "/dte:R/dte:Nada/*[self::dte:N]", "/dte:R/dte:I/dte:N | /dte:R/dte:Nada/dte:M",
    "/dte:R/dte:Nada/dte:N | /dte:Otro/dte:M", "/dte:R/dte:I[dte:M = '1']/dte:N[normalize-space(.) = 'IVA']",
    "/dte:R/dte:Nada[@x = '|']/dte:N/text()", "/dte:R/dte:I//dte:x", "/dte:R/dte:Nada//dte:x",
    "/dte:R/dte:I/dte:N/../dte:M", "/dte:R/dte:Nada/dte:N/../dte:M", "/dte:R/dte:I/dte:N/ancestor::dte:R",
])
def test_guarded_written_paths(path: str) -> None:
    find = guarded(compile_xpath(path, NAMESPACES))
    assert find is not None
    xpath = etree.XPath(path, namespaces=NAMESPACES)
    for root in [*DOCUMENTS, TRICKY]:
        memo: dict = {}
        for node in root.iter(etree.Element):
            assert_same(find(node, memo), xpath(node), path)


@pytest.mark.parametrize("path", ["/dte:R", "dte:R/dte:I", "count(/dte:R/dte:I)", "/dte:R/dte:I[1", "(/dte:R/dte:I)[1]",
                                  "/dte:R/dte:I | dte:M"])
def test_other_paths_are_not_guarded(path: str) -> None:
    assert guarded(XPathQuery(path, NAMESPACES)) is None


def _anchored_rule_paths() -> list[tuple[str, str, dict]]:
    """Every (context, binding path) of the rules whose binding is answered by nodes grouped by context node."""
    pairs = set()
    for rule in Validator(Config()).catalog.rules:
        check = rule.check
        if not isinstance(check, ExpressionCheck):
            continue
        chain = context_chain(check.context.path, check.namespaces)
        for binding in check.bindings:
            if chain and binding.path is not None and not binding.needs \
                    and anchored_finder(chain, binding.path, check.namespaces) is not None:
                pairs.add((check.context.path, binding.path, tuple(sorted(check.namespaces.items()))))
    return [(context, path, dict(spaces)) for context, path, spaces in sorted(pairs)]


ANCHORED = _anchored_rule_paths()


def test_some_bindings_are_grouped_by_context_node() -> None:
    assert len(ANCHORED) >= 3


@pytest.mark.parametrize(("context", "path", "namespaces"), ANCHORED, ids=[f"{c} :: {p}" for c, p, _ in ANCHORED])
def test_grouped_binding_gives_what_xpath_gives(context: str, path: str, namespaces: dict) -> None:
    chain = context_chain(context, namespaces)
    assert chain is not None
    finder = anchored_finder(chain, path, namespaces)
    assert finder is not None
    nodes, xpath = etree.XPath(context, namespaces=namespaces), etree.XPath(path, namespaces=namespaces)
    for root in DOCUMENTS:
        memo: dict = {}
        for node in nodes(root):
            assert_same(finder(node, memo), xpath(node), (context, path, root.getroottree().getpath(node)))


@pytest.mark.parametrize(("context", "path"), [
    ("/dte:R/dte:I", "dte:N/dte:x"), ("/dte:R/dte:I", "dte:N[dte:x]"), ("/dte:R/dte:I[dte:M = 4]", "dte:N[. = 'IVA']"),
    ("/dte:R/dte:I", "dte:N[dte:x = 'V']/dte:x"), ("/dte:R", "dte:I[dte:N = 'IVA']/dte:M"),
    ("/dte:R", "dte:I[dte:M]/@C"),
    ("/dte:R", "dte:I[dte:K != 2]/dte:M"), ("/dte:R[@A]", "dte:I[not(dte:N[dte:x]) or dte:K = 2]/dte:M"),
    ("/dte:R/dte:I[dte:N]", "dte:N[dte:x]/dte:x"),
])
def test_grouped_written_paths(context: str, path: str) -> None:
    chain = context_chain(context, NAMESPACES)
    assert chain is not None
    finder = anchored_finder(chain, path, NAMESPACES)
    assert finder is not None
    nodes, xpath = etree.XPath(context, namespaces=NAMESPACES), etree.XPath(path, namespaces=NAMESPACES)
    for root in [*DOCUMENTS, TRICKY]:
        memo: dict = {}
        for node in nodes(root):
            assert_same(finder(node, memo), xpath(node), (context, path))


@pytest.mark.parametrize(("context", "path"), [("dte:R/dte:I", "dte:N/dte:x"), ("/dte:R/@A", "dte:N/dte:x"),
                                               ("/dte:R | /dte:S", "dte:I/dte:N"), ("//dte:I", "dte:N/dte:x")])
def test_contexts_without_a_chain(context: str, path: str) -> None:
    assert context_chain(context, NAMESPACES) is None


@pytest.mark.parametrize("path", ["dte:N", "../dte:N/dte:x", "@C", "count(dte:N/dte:x)", "/dte:R/dte:I",
                                  "dte:N | dte:M"])
def test_paths_not_grouped(path: str) -> None:
    assert anchored_finder((f"{{{DTE}}}R", f"{{{DTE}}}I"), path, NAMESPACES) is None


@pytest.mark.parametrize(("path", "variables"), [
    ("/dte:R/dte:I[dte:N = $n]/dte:M", {"n": "IVA"}), ("/dte:R/dte:I[dte:N = $n]/dte:M", {"n": "ISR"}),
    ("/dte:R/dte:I[dte:N != $n]/dte:M", {"n": "IVA"}), ("/dte:R/dte:I[dte:N = $n]/dte:M", {"n": "it's"}),
    ("/dte:R/dte:I[dte:N = $n or dte:N = '$n']/@C", {"n": "a/b"}),
    ("dte:I[dte:N = $n][@C = $c]/dte:M", {"n": "IVA", "c": "1"}),
    ("dte:I[dte:N = $n]/dte:M", {"n": ""}),
    # the earlier siblings with an attribute of that text (compared as texts: " 1 " is not "1")
    ("count(preceding-sibling::dte:I[@C = $c])", {"c": "1"}), ("count(preceding-sibling::dte:I[@C = $c])", {"c": ""}),
    ("count(preceding-sibling::dte:I[@C = $c])", {"c": " 1 "}),
    ("count(preceding-sibling::dte:I[@C = $c])", {"c": "01"}),
    ("count(preceding-sibling::dte:M[@C=$c])", {"c": "it's"}),
    ("count(preceding-sibling::dte:N[ @C = $c ])", {"c": "x"}),
    ("count(preceding-sibling::dte:Frase[@TipoFrase = $t])", {"t": "1"}),
    ("count(preceding-sibling::dte:Frase[@TipoFrase = $t])", {"t": "2"}),
    # whole numbers, compared as numbers (" 2 ", "2.0" and "02" are 2; "" and "x" are NaN)
    ("count(preceding-sibling::dte:I[@C = $c])", {"c": 2}), ("count(preceding-sibling::dte:I[@C = $c])", {"c": 0}),
    ("count(preceding-sibling::dte:I[@C=$c])", {"c": 1}), ("count(preceding-sibling::dte:M[ @C = $c ])", {"c": 2}),
    ("/dte:R/dte:I[dte:M = $n]/dte:N", {"n": 2}), ("dte:I[@C = $c]/dte:M", {"c": 1}),
    ("dte:I[@C != $c]/@C", {"c": 2}), ("/dte:R/dte:I[dte:M = $n or @C = $c]/@C", {"n": 2, "c": 999999999999999}),
])
def test_texts_written_for_variables_give_what_xpath_gives(path: str, variables: dict) -> None:
    written = with_values(path, variables)
    assert written is not None and "$" not in written.replace("'$n'", "")
    finder = valued_finder(written, tuple(sorted(NAMESPACES.items())))
    assert finder is not None
    xpath = etree.XPath(path, namespaces=NAMESPACES)
    for root in [*DOCUMENTS, TRICKY]:
        memo: dict = {}
        for node in root.iter(etree.Element):
            assert_same(finder(node, memo), xpath(node, **variables), (path, variables))


@pytest.mark.parametrize("variables", [{"n": -1}, {"n": 10**15}, {"n": 1.0}, {"n": True}, {"n": False},
                                       {"n": "both ' and \""}, {}])
def test_other_values_are_left_to_xpath(variables: dict) -> None:
    assert with_values("dte:I[dte:N = $n]", variables) is None


#: Texts of the random documents: the compared texts, with blanks around, empty, and numbers as XPath reads them.
_TEXTS = st.sampled_from(["IVA", " IVA", "IVA ", "", "ISR", "1", "2", " 2 ", "2.0", "02", "x"])


@st.composite
def _elements(draw: st.DrawFn, tag: str, depth: int) -> str:
    """An element ``dte:tag`` with maybe an attribute ``C``, a text, and children N, M, K (several of one tag,
    none, with nested text or a comment), down to ``depth``."""
    attribute = draw(st.one_of(st.none(), _TEXTS))
    opened = f"<dte:{tag}" + ("" if attribute is None else f' C="{attribute}"') + ">"
    parts = [draw(st.sampled_from(["", "IVA", "2"]))]
    if depth:
        for _ in range(draw(st.integers(min_value=0, max_value=4))):
            child = draw(st.sampled_from(["N", "M", "K"]))
            shape = draw(st.sampled_from(["text", "text", "text", "nested", "comment", "deeper"]))
            text = draw(_TEXTS)
            if shape == "nested":
                parts.append(f"<dte:{child}>{text[:1]}<dte:x>{text[1:]}</dte:x></dte:{child}>")
            elif shape == "comment":
                parts.append(f"<dte:{child}>{text[:1]}<!-- c -->{text[1:]}</dte:{child}>")
            elif shape == "deeper":
                parts.append(draw(_elements(child, depth - 1)))
            else:
                parts.append(f"<dte:{child}>{text}</dte:{child}>")
    return opened + "".join(parts) + f"</dte:{tag}>"


_LEAVES = st.sampled_from([
    "dte:N = 'IVA'", "dte:N != 'IVA'", "dte:N = ''", "dte:N != ''", "dte:M = 2", "dte:M != 2", "dte:K = 0",
    "dte:N", "dte:K", "@C = 'IVA'", "@C != 'IVA'", "@C = ''", "@C = 2", "@C != 2", "@C",
    "dte:M/dte:N = 'IVA'", "dte:M/dte:N", "dte:M[dte:N = 'IVA']", "dte:M[dte:K != 2]/dte:N", "dte:N/dte:x",
    "dte:K/@C = 2", "not(dte:M/dte:K = 'ISR')", "dte:N = /dte:R/dte:I/@C", "dte:M = /dte:R/dte:I/dte:K",
    "dte:N/dte:x = /dte:R/@C", ". = 'IVA'", ". != 'IVA2'", ". = 2", ". != 2", "dte:N[. = 'IVA' or . = '']",
])


def _predicates(depth: int) -> st.SearchStrategy[str]:
    """A predicate of the shapes the rules write: leaves joined by ``and``/``or``, under ``not(…)`` or
    parentheses."""
    if depth == 0:
        return _LEAVES
    smaller = _predicates(depth - 1)
    return st.one_of(
        smaller,
        smaller.map(lambda text: f"not({text})"),
        st.tuples(smaller, st.sampled_from(["and", "or"]), smaller).map(lambda parts: "({} {} {})".format(*parts)),
        st.lists(smaller, min_size=2, max_size=3).map(lambda texts: " or ".join(texts)),
        st.lists(smaller, min_size=2, max_size=3).map(lambda texts: " and ".join(texts)),
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(_elements("I", 2), min_size=0, max_size=4), _predicates(2), _predicates(1))
def test_random_predicates_give_what_xpath_gives(items: list[str], predicate: str, second: str) -> None:
    """Every compiled form of a predicate (alone, several on a step, absolute or relative, anchored or walked, and
    nested in another path's predicate) selects what lxml's XPath selects, on random trees."""
    root = etree.fromstring(f"<dte:R xmlns:dte='{DTE}' C='2'>" + "".join(items) + "</dte:R>")
    paths = [f"/dte:R/dte:I[{predicate}]", f"dte:I[{predicate}]", f"/dte:R/dte:I[{predicate}][{second}]/@C",
             f"dte:I[{second}][{predicate}]/dte:N", f"/dte:R[dte:I[{predicate}]]", f"count(/dte:R/dte:I[{second}])",
             f"/dte:R/dte:I/dte:M[{predicate}]", f"/dte:R/dte:I[{second}]/dte:M[{predicate}]/dte:N"]
    memo: dict = {}
    for path in paths:
        finder = child_path_finder(path, NAMESPACES)
        assert finder is not None, path
        xpath = etree.XPath(path, namespaces=NAMESPACES)
        for node in root.iter(etree.Element):
            assert_same(finder(node, memo), xpath(node), (path, etree.tostring(root)))
