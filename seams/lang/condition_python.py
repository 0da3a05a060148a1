"""Python source for a JUEL or FEEL condition, answering as its engine does.

Generated code may only use builtins, ``Decimal`` and ``date`` (the names the
generated modules import), so the engine rules of
seams.lang.condition_semantics are restated here as a small runtime of
lambdas held in one dict ``R``, built inside the expression itself; each
node of the tree becomes a call into it. The runtime's lambdas read ``R``
when called, so they may use one another. JUEL's ``&&``, ``||`` and ``? :``
get their operands as lambdas, so they short-circuit as the engine does.

Where the engine stops with an error, the source raises ``ValueError`` (the
evaluator raises ExpressionError): both refuse the same inputs. Variables
are read inside lambdas, so the expressions ``var_expr`` renders must be
reachable from a nested function (function parameters or globals of the
generated module, not the locals of an ``eval``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal

from seams.lang.condition_tree import (
    JUEL,
    Arith,
    Between,
    BoolOp,
    Compare,
    ConditionVisitor,
    Empty,
    FeelExpr,
    IsDefined,
    ListContains,
    ListLit,
    Lit,
    LitList,
    Matches,
    Neg,
    Node,
    Not,
    Path,
    Range,
    Ternary,
    Var,
)
from seams.lang.feel_regex import translate

_HELPERS = {
    "err": "lambda m: (_ for _ in ()).throw(ValueError(m))",
    "DT": "[c for c in date.__subclasses__() if c.__name__ == 'datetime'][0]",
    "TD": "type(date(2000, 1, 2) - date(2000, 1, 1))",
    "isnum": "lambda v: type(v) in (int, float, Decimal)",
    "ex": "lambda v: Decimal(str(v)) if isinstance(v, float) else v",
    "kind": ("lambda v: 'null' if v is None else 'boolean' if isinstance(v, bool) else "
             "(('number' if v == v else 'other') if R['isnum'](v) else 'string' if isinstance(v, str) else "
             "'list' if isinstance(v, list) else "
             "'date and time' if type(v) is R['DT'] else 'date' if type(v) is date else "
             "'duration' if type(v) is R['TD'] else 'other')"),
    "and3": ("lambda vs: False if any(v is False for v in vs) else "
             "(True if all(v is True for v in vs) else None)"),
    "or3": ("lambda vs: True if any(v is True for v in vs) else "
            "(False if all(v is False for v in vs) else None)"),
    "cmp": ("lambda op, x, y: x < y if op == '<' else x <= y if op == '<=' else x > y if op == '>' "
            "else x >= y"),
    "ford": ("lambda op, a, b: None if R['kind'](a) not in ('number', 'string', 'date', 'date and time', "
             "'duration') or R['kind'](a) != R['kind'](b) or R['zoned'](a) != R['zoned'](b) "
             "else R['cmp'](op, a, b)"),
    "zoned": "lambda v: getattr(v, 'tzinfo', None) is not None",
    "feq": ("lambda a, b: (a is None and b is None) if a is None or b is None else "
            "(None if R['kind'](a) != R['kind'](b) else "
            "(len(a) == len(b) and R['and3']([R['feq'](x, y) for x, y in zip(a, b)])) "
            "if R['kind'](a) == 'list' else a == b)"),
    "match": ("lambda v, p, f: __import__('re').search(p, v, f) is not None if isinstance(v, str) "
              "else None"),
    "lcont": ("lambda xs, v: any(R['feq'](x, v) is True for x in xs) if isinstance(xs, list) else None"),
    "fdef": "lambda b, attr: isinstance(b, dict) and attr in b",
    "fcmp": ("lambda op, a, b: R['feq'](a, b) if op == '==' else "
             "(lambda e: e if e is None else not e)(R['feq'](a, b)) if op == '!=' else R['ford'](op, a, b)"),
    "rng": ("lambda v, lo, hi, lc, hc: R['and3']([R['ford']('>=' if lc else '>', v, lo), "
            "R['ford']('<=' if hc else '<', v, hi)])"),
    "in": ("lambda found, negated: (None if found is None else not found) if negated else found"),
    "fnot": "lambda v: (not v) if isinstance(v, bool) else None",
    "fpath": "lambda b, attr: b.get(attr) if isinstance(b, dict) else None",
    "jpath": ("lambda b, attr: b.get(attr) if isinstance(b, dict) else None if b is None else "
              "R['err']('JUEL property ' + repr(attr) + ' cannot be read')"),
    "fif": "lambda t, a, b: a() if t is True else b()",
    "fneg": "lambda v: -R['ex'](v) if R['isnum'](v) else (-v if type(v) is R['TD'] else None)",
    "farith": ("lambda op, a, b: None if a is None or b is None or isinstance(a, bool) or isinstance(b, bool) "
               "else R['fnum'](op, R['ex'](a), R['ex'](b)) if R['isnum'](a) and R['isnum'](b) "
               "else a + b if op == '+' and isinstance(a, str) and isinstance(b, str) "
               "else (a + b if op == '+' else a - b) if op in ('+', '-') and isinstance(a, (date, R['TD'])) "
               "and type(b) is R['TD'] "
               "else b + a if op == '+' and type(a) is R['TD'] and isinstance(b, date) "
               "else a - b if op == '-' and type(a) is type(b) and type(a) in (date, R['DT']) else None"),
    "fnum": ("lambda op, x, y: (None if y == 0 else Decimal(x) / Decimal(y)) if op == '/' else "
             "(None if y == 0 else (lambda r: int(r) if isinstance(x, int) and isinstance(y, int) else r)("
             "Decimal(x) - Decimal(y) * (Decimal(x) / Decimal(y)).to_integral_value(rounding='ROUND_FLOOR'))) "
             "if op == '%' else x + y if op == '+' else x - y if op == '-' else x * y"),
    "bool": ("lambda v: False if v is None or v == '' else v if isinstance(v, bool) else "
             "v.lower() == 'true' if isinstance(v, str) else "
             "R['err']('JUEL cannot coerce ' + repr(v) + ' to a boolean')"),
    "long": "lambda s: (s[1:] if s[:1] in ('+', '-') else s).isdecimal()",
    "num": ("lambda v, exact: 0 if v is None or v == '' else "
            "R['err']('JUEL cannot coerce ' + repr(v) + ' to a number') if isinstance(v, bool) else "
            "v if isinstance(v, int) else R['fin'](R['ex'](v)) if isinstance(v, (Decimal, float)) else "
            "(int(v) if not exact and R['long'](v) else R['fin'](Decimal(v.strip())) if exact else "
            "R['err']('JUEL cannot coerce ' + repr(v) + ' to a number')) if isinstance(v, str) else "
            "R['err']('JUEL cannot coerce ' + repr(v) + ' to a number')"),
    "fin": "lambda d: d if d.is_finite() else R['err']('JUEL cannot compute with ' + repr(d))",
    "nums": ("lambda a, b: (lambda exact: (R['num'](a, exact), R['num'](b, exact)))("
             "any(isinstance(v, (Decimal, float)) for v in (a, b)))"),
    "jstr": "lambda v: '' if v is None else ('true' if v else 'false') if isinstance(v, bool) else "
            "v if isinstance(v, str) else str(v)",
    "jeq": ("lambda a, b: True if a is b else False if a is None or b is None else "
            "(lambda p: p[0] == p[1])(R['nums'](a, b)) if R['isnum'](a) or R['isnum'](b) else "
            "R['bool'](a) == R['bool'](b) if isinstance(a, bool) or isinstance(b, bool) else "
            "R['jstr'](a) == R['jstr'](b) if isinstance(a, str) or isinstance(b, str) else a == b"),
    "jord": ("lambda op, a, b: False if a is None or b is None else R['cmp'](op, *("
             "R['nums'](a, b) if R['isnum'](a) or R['isnum'](b) else "
             "(R['jstr'](a), R['jstr'](b)) if isinstance(a, str) or isinstance(b, str) else "
             "(a, b) if type(a) is type(b) and isinstance(a, (bool, date, R['TD'])) else "
             "R['err']('JUEL cannot order ' + repr(a) + ' and ' + repr(b))))"),
    "jcmp": ("lambda op, a, b: R['jeq'](a, b) if op == '==' else not R['jeq'](a, b) if op == '!=' "
             "else R['jord'](op, a, b)"),
    "jexact": ("lambda op, a, b: op == '/' or any(isinstance(v, (Decimal, float)) or "
               "(isinstance(v, str) and any(c in v for c in '.eE')) for v in (a, b))"),
    "jarith": ("lambda op, a, b: 0 if a is None and b is None else "
               "(lambda e: R['jnum'](op, R['num'](a, e), R['num'](b, e)))(R['jexact'](op, a, b))"),
    "jnum": ("lambda op, x, y: R['err']('JUEL division by zero') if op in ('/', '%') and y == 0 else "
             "Decimal(x) / Decimal(y) if op == '/' else "
             "(lambda r: int(r) if isinstance(x, int) and isinstance(y, int) else r)(Decimal(x) % Decimal(y)) "
             "if op == '%' else x + y if op == '+' else x - y if op == '-' else x * y"),
    "jif": "lambda t, a, b: a() if R['bool'](t) else b()",
    "empty": ("lambda v: v is None or (isinstance(v, (str, list, tuple, dict, set, frozenset)) "
              "and len(v) == 0)"),
    "result": ("lambda v: v if isinstance(v, bool) else "
               "R['err']('condition gives ' + repr(v) + ', not a boolean')"),
}
_RUNTIME = ("(lambda R: (R.update({" + ", ".join(f"{name!r}: {code}" for name, code in _HELPERS.items())
            + "}), R)[1])({})")


def engine_python(tree: Node, dialect: str, var_expr: Callable[[str], str]) -> str:
    """Python source answering as the JUEL or FEEL engine does for ``tree``."""
    return f"(lambda R: R['result']({_Renderer(dialect, var_expr).render(tree)}))({_RUNTIME})"


def engine_value_python(tree: Node, dialect: str, var_expr: Callable[[str], str], runtime: str | None = None) -> str:
    """Python source giving the value of a JUEL or FEEL expression as its engine does
    (not only a boolean: a decision table's output entry, say). ``runtime`` names where the
    source finds the runtime (a module global holding ``runtime_expression()``, so a module
    with many expressions builds it once); by default the expression builds its own."""
    return f"(lambda R: {_Renderer(dialect, var_expr).render(tree)})({runtime or _RUNTIME})"


def runtime_expression() -> str:
    """The Python expression that builds the runtime dict the rendered sources call into."""
    return _RUNTIME


class _Renderer(ConditionVisitor[str]):
    """Each ``visit_`` method gives a node's Python source, calling into the runtime ``R``."""

    def __init__(self, dialect: str, var_expr: Callable[[str], str]):
        self.juel, self.var_expr = dialect == JUEL, var_expr

    def render(self, node: Node) -> str:
        return self.visit(node)

    def visit_Lit(self, node: Lit) -> str:
        return literal(node.value)

    def visit_Var(self, node: Var) -> str:
        return f"({self.var_expr(node.name)})"

    def visit_Path(self, node: Path) -> str:
        return f"R[{'jpath' if self.juel else 'fpath'!r}]({self.render(node.base)}, {node.attr!r})"

    def visit_BoolOp(self, node: BoolOp) -> str:
        if self.juel:
            thunks = ", ".join(f"lambda: {self.render(v)}" for v in node.values)
            word = "all" if node.op == "and" else "any"
            return f"{word}(R['bool'](f()) for f in ({thunks},))"
        return f"R[{node.op + '3'!r}]([{', '.join(self.render(v) for v in node.values)}])"

    def visit_Not(self, node: Not) -> str:
        return f"(not R['bool']({self.render(node.operand)}))" if self.juel \
            else f"R['fnot']({self.render(node.operand)})"

    def visit_Arith(self, node: Arith) -> str:
        return f"R[{'jarith' if self.juel else 'farith'!r}]({node.op!r}, {self.render(node.left)}, " \
               f"{self.render(node.right)})"

    def visit_Neg(self, node: Neg) -> str:
        return f"(-R['num']({self.render(node.operand)}, False))" if self.juel \
            else f"R['fneg']({self.render(node.operand)})"

    def visit_Ternary(self, node: Ternary) -> str:
        return (f"R[{'jif' if self.juel else 'fif'!r}]({self.render(node.test)}, "
                f"lambda: {self.render(node.then)}, lambda: {self.render(node.orelse)})")

    def visit_Empty(self, node: Empty) -> str:
        return f"R['empty']({self.render(node.operand)})"

    def visit_Between(self, node: Between) -> str:
        return (f"(lambda v, lo, hi: R['and3']([R['ford']('>=', v, lo), R['ford']('<=', v, hi)]))("
                f"{self.render(node.value)}, {self.render(node.low)}, {self.render(node.high)})")

    def visit_ListLit(self, node: ListLit) -> str:
        return "[" + "".join(f"{self.render(item)}, " for item in node.items) + "]"

    def visit_Matches(self, node: Matches) -> str:
        pattern, flags = translate(node.pattern, node.flags)
        return f"R['match']({self.render(node.value)}, {pattern!r}, {int(flags)})"

    def visit_ListContains(self, node: ListContains) -> str:
        return f"R['lcont']({self.render(node.items)}, {self.render(node.value)})"

    def visit_IsDefined(self, node: IsDefined) -> str:
        return self.defined(node.operand)

    def visit_FeelExpr(self, node: FeelExpr) -> str:
        """A call of the one FEEL interpreter (seams.lang.feel_interpreter), which the generated code then
        imports at run time: restating all of FEEL here would be a second implementation."""
        context = ", ".join(f"{name!r}: {self.var_expr(name)}" for name in node.names)
        return (f"__import__('seams.lang.feel_interpreter', fromlist=['evaluate']).evaluate("
                f"{node.text!r}, {{{context}}})")

    def defined(self, node: Node) -> str:
        """``is defined``: a generated function takes every variable it reads as an input, so a
        variable is defined there; a context entry is defined when the context has the key."""
        if isinstance(node, Path):
            return f"({self.defined(node.base)} and R['fdef']({self.render(node.base)}, {node.attr!r}))"
        return f"(lambda v: True)({self.render(node)})"

    def visit_Compare(self, node: Compare) -> str:
        pairs = []
        for op, left, right in zip(node.ops, node.operands, node.operands[1:]):
            value = self.render(left)  # type: ignore[arg-type]
            if isinstance(right, LitList):
                tests = ", ".join(self.item(item) for item in right.items)
                pairs.append(f"(lambda v: R['in'](R['or3']([{tests}]), {op == 'not in'}))({value})")
            else:
                pairs.append(f"R[{'jcmp' if self.juel else 'fcmp'!r}]({op!r}, {value}, {self.render(right)})")
        if self.juel:
            return f"all([{', '.join(pairs)}])"
        return pairs[0] if len(pairs) == 1 else f"R['and3']([{', '.join(pairs)}])"

    def item(self, item: Lit | Range) -> str:
        if isinstance(item, Range):
            return (f"R['rng'](v, {literal(item.low.value)}, {literal(item.high.value)}, "
                    f"{item.low_closed}, {item.high_closed})")
        return f"R[{'jeq' if self.juel else 'feq'!r}](v, {literal(item.value)})"


def literal(value: object) -> str:
    """A literal as Python source over builtins, ``Decimal`` and ``date``."""
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, Decimal):
        return f'Decimal("{value}")'
    if type(value) is datetime:
        return f"R['DT'].fromisoformat({value.isoformat()!r})"
    if type(value) is date:
        return f"date({value.year}, {value.month}, {value.day})"
    if type(value) is timedelta:
        return f"R['TD'](days={value.days}, seconds={value.seconds}, microseconds={value.microseconds})"
    raise ValueError(f"no literal form for {value!r}")
