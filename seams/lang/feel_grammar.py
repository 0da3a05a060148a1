"""The FEEL grammar of DMN 1.5 (chapter 10.3.1): text to a tree of tuples seams.lang.feel_eval walks.

A recursive-descent parser on seams.lang.token_stream. FEEL names may hold
spaces and some operator characters (``Monthly Salary``, ``date and time``,
``Is-Active``), so a name is the longest run of tokens that spells a name
known where the expression stands (``names``: the scope's variables, the
built-in functions, the context entries, parameters and loop variables
the expression defines before that point); an unknown name is the run of
plain words up to the next keyword or operator.

Nodes are tuples whose first item is their kind: ``("lit", value)``,
``("name", text)``, ``("path", target, member)``, ``("filter", target,
condition)``, ``("call", function, arguments, named)``, ``("arith", op, a,
b)``, ``("neg", a)``, ``("cmp", op, a, b)``, ``("and", a, b)``, ``("or", a,
b)``, ``("between", x, low, high)``, ``("in", x, tests)``, ``("test", op,
operand)``, ``("range", start, end, start_closed, end_closed)``, ``("list",
items)``, ``("context", entries)``, ``("if", c, a, b)``, ``("for", loops,
body)``, ``("some"|"every", loops, condition)``, ``("function", parameters,
body)``, ``("instance", x, type)``, ``("any",)``, ``("not", tests)``,
``("tests", tests)`` and ``("error", message)`` (a literal that cannot be
a value, such as ``@"2024-13-01"``: null at run time, as FEEL makes it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal

from seams.errors import ExpressionError
from seams.lang.feel_temporal import parse_temporal
from seams.lang.token_stream import Token, TokenStream, quote

MAX_LENGTH = 100_000
MAX_DEPTH = 60
MAX_CHAIN = 250

KEYWORDS = frozenset({"and", "or", "in", "instance", "of", "between", "then", "else", "return", "satisfies",
                      "if", "for", "some", "every", "function", "true", "false", "null", "external"})
_NAME_JOINERS = frozenset({".", "/", "-", "+", "*", "'"})
_ESCAPES = re.compile(r"\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{6}|.)", re.DOTALL)
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "'": "'", "n": "\n", "r": "\r", "t": "\t"}
_COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")
_TYPE_NAMES = {"date and time", "days and time duration", "years and months duration"}

Node = tuple


def normal_name(text: str) -> str:
    """A name as FEEL compares names: whitespace runs as one space."""
    return " ".join(text.split())


def unescape(body: str) -> str:
    def replace(found: re.Match[str]) -> str:
        code = found.group(1)
        if code[0] in "uU" and len(code) > 1:
            point = int(code[1:], 16)
            return chr(point)
        return _SIMPLE_ESCAPES.get(code, "\\" + code)

    text = _ESCAPES.sub(replace, body)
    return text.encode("utf-16", "surrogatepass").decode("utf-16") if any(
        "\ud800" <= c <= "\udfff" for c in text) else text


class FeelParser(TokenStream[Token]):
    DIALECT = "FEEL"
    PATTERN = re.compile(
        r"""(?P<space>\s+|//[^\n]*|/\*.*?\*/)
        | (?P<string>"(?:[^"\\]|\\.)*")
        | (?P<number>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)
        | (?P<name>(?:[^\W\d]|\?|[\U00010000-\U000EFFFF])(?:[\w?']|[\U00010000-\U000EFFFF])*)
        | (?P<op>\.\.|<=|>=|!=|\*\*|->|[-+*/=<>()\[\]{},.:@])""",
        re.VERBOSE | re.DOTALL,
    )
    SKIP = 0

    def __init__(self, text: str, *, where: str, names: Iterable[str] = ()):
        if len(text) > MAX_LENGTH:
            raise ExpressionError(f"{where}: FEEL expression longer than {MAX_LENGTH} characters")
        super().__init__(text, where, MAX_DEPTH)
        self.names: set[str] = {normal_name(n) for n in names} | _TYPE_NAMES
        self.range_end = False
        self.chained = 0
        self.parens: set[int] = set()
        """Identities of nodes written in parentheses (a printer's grouping a lowering must keep)."""
        self.spans: dict[int, tuple[int, int]] = {}
        """Source offsets of postfix expressions and unary tests by node identity, for messages that quote
        the source (seams.lang.feel_expression); valid while the tree lives."""

    # ---- entry points -------------------------------------------------------------------------------
    def expression_text(self) -> Node:
        node = self.expression()
        if self.tok.kind != "end":
            raise self.invalid(self.tok)
        return node

    def unary_tests_text(self) -> Node:
        if self.tok.is_op("-") and self.peek(1).kind == "end":
            return ("any",)
        if self.tok.is_word("not") and self.peek(1).is_op("("):
            start = self.pos
            self.take()
            self.take()
            tests = self.positive_tests()
            if self.tok.is_op(")") and self.peek(1).kind == "end":
                self.take()
                return ("not", tests)
            self.pos = start
        tests = self.positive_tests()
        if self.tok.kind != "end":
            raise self.invalid(self.tok)
        return ("tests", tests)

    # ---- expressions --------------------------------------------------------------------------------
    def expression(self) -> Node:
        self.depth += 1
        if self.depth > self.max_depth:
            raise self.fail(f"nesting deeper than {self.max_depth} in {quote(self.text)}")
        try:
            tok = self.tok
            if tok.is_word("if") and not self._known_at():
                return self.conditional()
            if tok.is_word("for") and self.peek(1).kind == "name" and not self._known_at():
                return self.loop("for", "return")
            if tok.is_word("some", "every") and self.peek(1).kind == "name" and not self._known_at():
                return self.loop(tok.text, "satisfies")
            if tok.is_word("function") and self.peek(1).is_op("("):
                return self.function_definition()
            return self.disjunction()
        finally:
            self.depth -= 1

    def _known_at(self) -> bool:
        """Whether the word here starts a longer known name (a variable called ``if x``)."""
        return self._longest_known(self.pos) > self.pos

    def conditional(self) -> Node:
        self.take()
        condition = self.expression()
        self._word("then")
        then = self.expression()
        self._word("else")
        return ("if", condition, then, self.expression())

    def loop(self, kind: str, closing: str) -> Node:
        self.take()
        loops = []
        added: list[str] = []
        while True:
            variable = self._words_until(("in",))
            self._word("in")
            source = self.expression()
            if kind == "for" and self.tok.is_op(".."):
                self.take()
                source = ("span", source, self.expression())
            loops.append((variable, source))
            if variable not in self.names:
                self.names.add(variable)
                added.append(variable)
            if kind == "for" and "partial" not in self.names:
                self.names.add("partial")
                added.append("partial")
            if self.tok.is_op(","):
                self.take()
                continue
            break
        self._word(closing)
        body = self.expression()
        self.names.difference_update(added)
        return (kind, tuple(loops), body)

    def function_definition(self) -> Node:
        self.take()
        self.expect("(")
        parameters = []
        while not self.tok.is_op(")"):
            name = self._words_until((), stop_ops=(":", ",", ")"))
            kind = None
            if self.tok.is_op(":"):
                self.take()
                kind = self.type_name()
            parameters.append((name, kind))
            if self.tok.is_op(","):
                self.take()
        self.expect(")")
        if self.tok.is_word("external"):
            self.take()
            self.expression()
            return ("unsupported", "an external (Java or PMML) function definition")
        added = [n for n, _ in parameters if n not in self.names]
        self.names.update(added)
        body = self.expression()
        self.names.difference_update(added)
        return ("function", tuple(parameters), body)

    def disjunction(self) -> Node:
        node = self.conjunction()
        while self.tok.is_word("or"):
            self.take()
            self._chain()
            node = ("or", node, self.conjunction())
        return node

    def conjunction(self) -> Node:
        node = self.comparison()
        while self.tok.is_word("and"):
            self.take()
            self._chain()
            node = ("and", node, self.comparison())
        return node

    def comparison(self) -> Node:
        node = self.additive()
        while True:
            tok = self.tok
            if tok.kind == "op" and tok.text in _COMPARISONS:
                self.take()
                node = ("cmp", tok.text, node, self.additive())
            elif tok.is_word("between"):
                self.take()
                low = self.additive()
                self._word("and")
                node = ("between", node, low, self.additive())
            elif tok.is_word("in"):
                self.take()
                if self.tok.is_op("("):
                    tests = self.parenthesized_tests()
                else:
                    tests = (self.positive_test(whole=False),)
                node = ("in", node, tests)
            elif tok.is_word("instance") and self.peek(1).is_word("of"):
                self.take()
                self.take()
                node = ("instance", node, self.type_name())
            else:
                return node

    def additive(self) -> Node:
        node = self.multiplicative()
        while self.tok.is_op("+", "-"):
            op = self.take().text
            self._chain()
            node = ("arith", op, node, self.multiplicative())
        return node

    def multiplicative(self) -> Node:
        node = self.power()
        while self.tok.is_op("*", "/"):
            op = self.take().text
            self._chain()
            node = ("arith", op, node, self.power())
        return node

    def power(self) -> Node:
        node = self.unary()
        while self.tok.is_op("**"):
            self.take()
            self._chain()
            node = ("arith", "**", node, self.unary())
        return node

    def unary(self) -> Node:
        if self.tok.is_op("-"):
            self.take()
            self.depth += 1
            if self.depth > self.max_depth:
                raise self.fail(f"nesting deeper than {self.max_depth} in {quote(self.text)}")
            operand = self.unary()
            self.depth -= 1
            if operand[0] == "lit" and isinstance(operand[1], Decimal):
                return ("lit", -operand[1])
            return ("neg", operand)
        return self.postfix()

    def _chain(self) -> None:
        """One more operand in a left-nested operator chain: bounded as nesting is, so walking the tree
        cannot exhaust the stack."""
        self.chained += 1
        if self.chained > MAX_CHAIN:
            raise self.fail(f"more than {MAX_CHAIN} operators in a row in {quote(self.text)}")

    def _span(self, node: Node, start: int) -> Node:
        self.spans[id(node)] = (start, self.tokens[self.pos - 1].end)
        return node

    def postfix(self) -> Node:
        start = self.tok.start
        node = self._span(self.primary(), start)
        while True:
            node = self._span(node, start)
            if self.tok.is_op("."):
                self.take()
                node = ("path", node, self._member())
            elif self.tok.is_op("[") and not (self.range_end and self.peek(1).kind in ("end", "op")):
                self.take()
                condition = self.expression()
                self.expect("]")
                node = ("filter", node, condition)
            elif self.tok.is_op("("):
                node = self.invocation(node)
            elif self.tok.is_word("is") and self.peek(1).is_word("defined") and not self.peek(2).is_op("("):
                self.take()  # Camunda's "x is defined", the function is defined(x) written after its argument
                self.take()
                node = ("call", ("name", "is defined"), (node,), False, "after")
            else:
                return node

    def invocation(self, function: Node) -> Node:
        self.expect("(")
        arguments: list = []
        named = self._named_argument_ahead()
        while not self.tok.is_op(")"):
            if named:
                name = self._words_until((), stop_ops=(":",))
                self.expect(":")
                arguments.append((name, self.expression()))
            else:
                arguments.append(self.expression())
            if self.tok.is_op(","):
                self.take()
            elif not self.tok.is_op(")"):
                raise self.invalid(self.tok)
        self.expect(")")
        return ("call", function, tuple(arguments), named)

    def _named_argument_ahead(self) -> bool:
        ahead = 0
        while self.peek(ahead).kind == "name" or self.peek(ahead).is_op("-", "'"):
            ahead += 1
        return ahead > 0 and self.peek(ahead).is_op(":")

    # ---- primaries ----------------------------------------------------------------------------------
    def primary(self) -> Node:
        tok = self.tok
        if tok.kind == "number":
            self.take()
            return ("lit", Decimal(tok.text))
        if tok.kind == "string":
            self.take()
            return ("lit", unescape(tok.text[1:-1]))
        if tok.is_op("@") and self.peek(1).kind == "string":
            self.take()
            text = unescape(self.take().text[1:-1])
            try:
                return ("lit", parse_temporal(text))
            except ValueError as exc:
                return ("error", str(exc))
        if tok.is_op("("):
            return self.parenthesized()
        if tok.is_op("["):
            return self.bracketed()
        if tok.is_op("]"):
            self.take()
            return self.range_rest(self.expression(), start_closed=False)
        if tok.is_op("{"):
            return self.context()
        if tok.kind == "op" and tok.text in ("<", "<=", ">", ">="):
            self.take()
            end = self.additive()
            if tok.text[0] == "<":
                return ("range", None, end, False, tok.text == "<=")
            return ("range", end, None, tok.text == ">=", False)
        if tok.is_op("="):
            self.take()
            point = self.additive()
            return ("range", point, point, True, True)
        if tok.kind == "name":
            if not self._known_at():
                if tok.text in ("true", "false"):
                    self.take()
                    return ("lit", tok.text == "true")
                if tok.text == "null":
                    self.take()
                    return ("lit", None)
                if tok.text == "?":
                    self.take()
                    return ("name", "?")
            return ("name", self._name())
        raise self.invalid(tok)

    def parenthesized(self) -> Node:
        self.expect("(")
        first = self.expression()
        if self.tok.is_op(".."):
            return self.range_rest(first, start_closed=False, opened=True)
        self.expect(")")
        self.parens.add(id(first))
        return first

    def bracketed(self) -> Node:
        self.expect("[")
        if self.tok.is_op("]"):
            self.take()
            return ("list", ())
        first = self.expression()
        if self.tok.is_op(".."):
            return self.range_rest(first, start_closed=True, opened=True)
        items = [first]
        while self.tok.is_op(","):
            self.take()
            items.append(self.expression())
        self.expect("]")
        return ("list", tuple(items))

    def range_rest(self, start: Node, *, start_closed: bool, opened: bool = True) -> Node:
        self.expect("..")
        self.range_end = True
        try:
            end = self.additive()
        finally:
            self.range_end = False
        if self.tok.is_op("]"):
            self.take()
            return ("range", start, end, start_closed, True)
        if self.tok.is_op(")", "["):
            self.take()
            return ("range", start, end, start_closed, False)
        raise self.invalid(self.tok)

    def context(self) -> Node:
        self.expect("{")
        entries = []
        added: list[str] = []
        while not self.tok.is_op("}"):
            if self.tok.kind == "string":
                key = unescape(self.take().text[1:-1])
            else:
                key = self._words_until((), stop_ops=(":",))
            self.expect(":")
            entries.append((key, self.expression()))
            if key not in self.names:
                self.names.add(normal_name(key))
                added.append(normal_name(key))
            if self.tok.is_op(","):
                self.take()
            elif not self.tok.is_op("}"):
                raise self.invalid(self.tok)
        self.expect("}")
        self.names.difference_update(added)
        return ("context", tuple(entries))

    # ---- unary tests --------------------------------------------------------------------------------
    def positive_tests(self) -> tuple:
        tests = [self.positive_test()]
        while self.tok.is_op(","):
            self.take()
            tests.append(self.positive_test())
        return tuple(tests)

    def positive_test(self, whole: bool = True) -> Node:
        """A unary test; after ``in`` outside parentheses (whole False) only up to the next ``and``/``or``
        or comparison, as ``x in [1..5] and y`` means ``(x in [1..5]) and y``."""
        tok = self.tok
        if tok.kind == "op" and tok.text in _COMPARISONS:
            self.take()
            return ("test", tok.text, self.additive())
        return self._span(self.expression() if whole else self.additive(), tok.start)

    def parenthesized_tests(self) -> tuple:
        self.expect("(")
        if self.tok.is_op(")"):  # no test at all: nothing is in it
            self.take()
            return ()
        first = self.positive_test()
        if self.tok.is_op(".."):
            return (self.range_rest(first, start_closed=False),)
        tests = [first]
        while self.tok.is_op(","):
            self.take()
            tests.append(self.positive_test())
        self.expect(")")
        if len(tests) == 1 and first[0] != "test":
            return (self.postfix_on(first),)
        return tuple(tests)

    def postfix_on(self, node: Node) -> Node:
        return node

    # ---- types --------------------------------------------------------------------------------------
    def type_name(self) -> Node:
        tok = self.tok
        if tok.kind != "name":
            raise self.invalid(tok)
        if tok.text in ("list", "range") and self.peek(1).is_op("<"):
            self.take()
            self.take()
            inner = self.type_name()
            self.expect(">")
            return ("type", tok.text, (inner,))
        if tok.text == "context" and self.peek(1).is_op("<"):
            self.take()
            self.take()
            fields = []
            while not self.tok.is_op(">"):
                key = self._words_until((), stop_ops=(":",))
                self.expect(":")
                fields.append((key, self.type_name()))
                if self.tok.is_op(","):
                    self.take()
            self.expect(">")
            return ("type", "context", tuple(fields))
        if tok.text == "function" and self.peek(1).is_op("<"):
            self.take()
            self.take()
            parameters = []
            while not self.tok.is_op(">"):
                parameters.append(self.type_name())
                if self.tok.is_op(","):
                    self.take()
            self.expect(">")
            self.expect("->")
            return ("type", "function", (tuple(parameters), self.type_name()))
        return ("type", self._name(), ())

    # ---- names --------------------------------------------------------------------------------------
    def _longest_known(self, start: int) -> int:
        """The index after the longest run of tokens from start that spells a known name, or start."""
        best = start
        first = self.tokens[start]
        for ahead in range(start, min(start + 16, len(self.tokens) - 1)):
            tok = self.tokens[ahead]
            if ahead > start and not (tok.kind in ("name", "number") or tok.text in _NAME_JOINERS):
                break
            if normal_name(self.text[first.start:tok.end]) in self.names:
                best = ahead + 1
        return best

    def _name(self) -> str:
        start = self.pos
        end = self._longest_known(start)
        if end > start:
            self.pos = end
            return normal_name(self.text[self.tokens[start].start:self.tokens[end - 1].end])
        return self._words_until(())

    def _member(self) -> str:
        if self.tok.kind == "string":
            return unescape(self.take().text[1:-1])
        return self._name()

    def _words_until(self, words: tuple[str, ...], stop_ops: tuple[str, ...] = ()) -> str:
        """A name made of the plain words from here: up to a keyword, one of words, or an operator."""
        first = self.tok
        if first.kind != "name":
            raise self.invalid(first)
        last = self.take()
        while True:
            tok = self.tok
            if tok.is_word("is") and self.peek(1).is_word("defined") and not self.peek(2).is_op("("):
                break
            if tok.kind == "name" and tok.text not in KEYWORDS and tok.text not in words:
                last = self.take()
            elif tok.kind == "number" or (stop_ops and tok.kind == "op" and tok.text not in stop_ops
                                          and tok.text in _NAME_JOINERS):
                last = self.take()
            else:
                break
        return normal_name(self.text[first.start:last.end])

    def _word(self, word: str) -> None:
        if not self.tok.is_word(word):
            raise self.invalid(self.tok)
        self.take()


def parse_expression(text: str, *, where: str = "FEEL", names: Iterable[str] = ()) -> Node:
    """A FEEL expression's tree, or ExpressionError naming where."""
    return FeelParser(text, where=where, names=names).expression_text()


def parse_unary_tests(text: str, *, where: str = "FEEL", names: Iterable[str] = ()) -> Node:
    """A decision-table input entry's tree: ``("any",)``, ``("tests", tests)`` or ``("not", tests)``."""
    return FeelParser(text, where=where, names=names).unary_tests_text()
