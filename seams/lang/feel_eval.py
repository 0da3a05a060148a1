"""The FEEL evaluator: trees of seams.lang.feel_grammar to values of seams.lang.feel_values.

Errors are null, as FEEL requires: an operator on kinds it does not pair,
an unknown name, a function called with the wrong arguments. Each such
error is kept on the ``Scope`` (``errors``) so a caller can tell a null
result from a failed one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from seams.lang.feel_grammar import Node
from seams.lang.feel_operators import arithmetic, negate
from seams.lang.feel_temporal import YearsMonths, offset_of, zone_text
from seams.lang.feel_values import FeelError, FeelUnsupported, Function, Range, compare, equal, kind

MAX_CALL_DEPTH = 100
MAX_ITEMS = 1_000_000


class Scope:
    """Variables visible to an expression: this frame's, then the enclosing scope's."""

    __slots__ = ("errors", "parent", "types", "values", "depth")

    def __init__(self, values: Mapping[str, object], parent: Scope | None = None,
                 types: Callable[[str], Callable[[object], bool] | None] | None = None,
                 errors: list[str] | None = None):
        self.values = values
        self.parent = parent
        if errors is None:  # a scope right above the built-ins starts its own list
            errors = parent.errors if parent is not None and parent.parent is not None else []
        self.errors: list[str] = errors
        if types is None and parent is not None:
            types = parent.types
        self.types: Callable[[str], Callable[[object], bool] | None] | None = types
        self.depth: int = parent.depth if parent is not None else 0

    def lookup(self, name: str) -> object:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.values:
                return scope.values[name]
            scope = scope.parent
        raise FeelError(f"no variable named {name!r}")

    def has(self, name: str) -> bool:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.values:
                return True
            scope = scope.parent
        return False

    def names(self) -> set[str]:
        found: set[str] = set()
        scope: Scope | None = self
        while scope is not None:
            found.update(scope.values)
            scope = scope.parent
        return found

    def child(self, values: Mapping[str, object]) -> Scope:
        return Scope(values, self)


def evaluate_node(node: Node, scope: Scope) -> object:
    """The node's value; an error becomes null and its message joins scope.errors."""
    try:
        return _EVAL[node[0]](node, scope)
    except FeelError as exc:
        scope.errors.append(str(exc))
        return None
    except RecursionError:
        scope.errors.append("expression recursion too deep")
        return None


def _value(node: Node, scope: Scope) -> object:
    return _EVAL[node[0]](node, scope)


def _lit(node: Node, scope: Scope) -> object:
    return node[1]


def _error(node: Node, scope: Scope) -> object:
    raise FeelError(node[1])


def _unsupported(node: Node, scope: Scope) -> object:
    raise FeelUnsupported(node[1])


def _name(node: Node, scope: Scope) -> object:
    return scope.lookup(node[1])


def _path(node: Node, scope: Scope) -> object:
    return member(evaluate_node(node[1], scope), node[2])


_DATE_PARTS = {"year": "year", "month": "month", "day": "day"}
_TIME_PARTS = {"hour": "hour", "minute": "minute", "second": "second"}


def member(target: object, name: str) -> object:
    """``target.name``: a context entry, a property of a temporal value or range, mapped over a list."""
    if target is None:
        return None
    if isinstance(target, dict):
        return target.get(name)
    if isinstance(target, list):
        return [member(item, name) for item in target]
    if isinstance(target, date) and (name in _DATE_PARTS or name == "weekday"):
        if name == "weekday":
            return Decimal(target.isoweekday())
        return Decimal(getattr(target, name))
    if isinstance(target, (datetime, time)) and name in _TIME_PARTS:
        return Decimal(getattr(target, name))
    if isinstance(target, (datetime, time)) and name in ("time offset", "timezone"):
        if target.tzinfo is None:
            return None
        if name == "timezone":
            text = zone_text(target.tzinfo, target if isinstance(target, datetime) else None)
            return text[1:] if text.startswith("@") else None
        return offset_of(target)
    if isinstance(target, timedelta):
        sign = -1 if target < timedelta(0) else 1
        span = abs(target)
        parts = {"days": span.days, "hours": span.seconds // 3600, "minutes": span.seconds % 3600 // 60,
                 "seconds": span.seconds % 60}
        if name in parts:
            return Decimal(sign * parts[name])
    if isinstance(target, YearsMonths) and name in ("years", "months"):
        sign = -1 if target.months < 0 else 1
        years, months = divmod(abs(target.months), 12)
        return Decimal(sign * (years if name == "years" else months))
    if isinstance(target, Range):
        properties = {"start": target.start, "end": target.end, "start included": target.start_closed,
                      "end included": target.end_closed}
        if name in properties:
            return properties[name]
    raise FeelError(f"{kind(target)} has no member {name!r}")


def _filter(node: Node, scope: Scope) -> object:
    """``list[condition]``: items for which it is true, or the item at it when it is a number (1-based,
    negative from the end); each item is ``item`` and, when a context, its entries are names too."""
    target = evaluate_node(node[1], scope)
    if target is None:
        return None
    items = target if isinstance(target, list) else [target]
    if not items:
        index = evaluate_node(node[2], scope.child({"item": None}))
        return None if isinstance(index, Decimal) else []
    kept = []
    for position, item in enumerate(items):
        frame: dict[str, object] = {"item": item}
        if isinstance(item, dict):
            frame.update(item)
        verdict = evaluate_node(node[2], scope.child(frame))
        if position == 0 and isinstance(verdict, Decimal):
            return _at(items, verdict)
        if verdict is True:
            kept.append(item)
    return kept


def _at(items: list, index: Decimal) -> object:
    if index != index.to_integral_value():
        return None
    position = int(index)
    if position > 0 and position <= len(items):
        return items[position - 1]
    if position < 0 and -position <= len(items):
        return items[position]
    return None


def _call(node: Node, scope: Scope) -> object:
    function = evaluate_node(node[1], scope)
    if not isinstance(function, Function):
        raise FeelError(f"{_shown(node[1])} is not a function")
    if node[3]:
        named = {name: evaluate_node(expr, scope) for name, expr in node[2]}
        return invoke(function, named=named, scope=scope)
    return invoke(function, [evaluate_node(expr, scope) for expr in node[2]], scope=scope)


def _shown(node: Node) -> str:
    return node[1] if node[0] == "name" else node[0]


def invoke(function: Function, positional: list | None = None, *, named: dict | None = None,
           scope: Scope | None = None) -> object:
    """Call a FEEL function with positional or named arguments; a built-in with overloads picks the one
    whose parameters fit."""
    candidates = getattr(function, "overloads", None) or (function,)
    failure: FeelError | None = None
    for candidate in candidates:
        arguments = _match(candidate, positional, named)
        if arguments is None:
            continue
        if scope is not None:
            scope.depth += 1
            if scope.depth > MAX_CALL_DEPTH:
                scope.depth -= 1
                raise FeelError("functions call each other too deeply")
        try:
            return candidate.call(*arguments)
        except FeelError as exc:  # a form of the right arity but not these kinds: the next form may fit
            failure = exc
        finally:
            if scope is not None:
                scope.depth -= 1
    raise failure or FeelError(f"{function.name}: no form takes these arguments")


def _match(function: Function, positional: list | None, named: dict | None) -> list | None:
    parameters = list(function.parameters)
    if named is not None:
        if not set(named) <= set(parameters):
            return None
        if function.variadic:
            fixed = [named.get(p) for p in parameters[:-1]]
            rest = named.get(parameters[-1])
            return [*fixed, *(rest if isinstance(rest, list) else [rest])]
        # a parameter left out is null; optional ones after the last given keep their defaults
        required = getattr(function, "required", len(parameters))
        given = [index for index, p in enumerate(parameters) if p in named]
        count = max(required, given[-1] + 1 if given else 0)
        return [named.get(p) for p in parameters[:count]]
    assert positional is not None
    if function.variadic:
        if len(positional) < len(parameters) - 1:
            return None
        return positional
    required = getattr(function, "required", len(parameters))
    if not required <= len(positional) <= len(parameters):
        return None
    return positional


def _arith(node: Node, scope: Scope) -> object:
    return arithmetic(node[1], evaluate_node(node[2], scope), evaluate_node(node[3], scope))


def _neg(node: Node, scope: Scope) -> object:
    return negate(evaluate_node(node[1], scope))


def comparison(op: str, a: object, b: object) -> bool | None:
    if op == "=":
        return equal(a, b)
    if op == "!=":
        same = equal(a, b)
        return None if same is None else not same
    order = compare(a, b)
    if order is None:
        return None
    return {"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[op]


def _cmp(node: Node, scope: Scope) -> object:
    return comparison(node[1], evaluate_node(node[2], scope), evaluate_node(node[3], scope))


def _connective(node: Node, scope: Scope) -> object:
    """``and``/``or`` in three-valued logic: the deciding value (false for and, true for or) wins over
    null; anything not a boolean counts as null."""
    deciding = node[0] == "or"
    a = evaluate_node(node[1], scope)
    if a is deciding:
        return deciding
    b = evaluate_node(node[2], scope)
    if b is deciding:
        return deciding
    return (not deciding) if a is (not deciding) and b is (not deciding) else None


def _between(node: Node, scope: Scope) -> object:
    x = evaluate_node(node[1], scope)
    low = comparison(">=", x, evaluate_node(node[2], scope))
    high = comparison("<=", x, evaluate_node(node[3], scope))
    if low is False or high is False:
        return False
    return True if low and high else None


def _in(node: Node, scope: Scope) -> object:
    return any_test(node[2], evaluate_node(node[1], scope), scope)


def any_test(tests: Iterable[Node], value: object, scope: Scope) -> bool | None:
    """FEEL's disjunction of positive unary tests against value: true if one is, else null if one is."""
    unknown = False
    for test in tests:
        verdict = unary_test(test, value, scope)
        if verdict is True:
            return True
        if verdict is None:
            unknown = True
    return None if unknown else False


def unary_test(test: Node, value: object, scope: Scope) -> bool | None:
    if test[0] == "test":
        return comparison(test[1], value, evaluate_node(test[2], scope))
    before = len(scope.errors)
    expected = evaluate_node(test, scope.child({"?": value}))
    if expected is None and len(scope.errors) > before:
        return None  # the test itself is in error (a range with a null end): unknown
    if isinstance(expected, Range):
        return expected.contains(value)
    if isinstance(expected, list) and not isinstance(value, list):
        return any_equal(expected, value)
    if isinstance(expected, list) and isinstance(value, list):
        return True if equal(expected, value) else any_equal(expected, value)
    if isinstance(expected, bool) and (not isinstance(value, bool) or _mentions_input(test)):
        return expected
    return equal(value, expected)


def any_equal(items: list, value: object) -> bool | None:
    """Whether value is one of items (or in one of the ranges among them); kinds that differ are not equal."""
    for item in items:
        if isinstance(item, Range) and not isinstance(value, Range):
            if item.contains(value) is True:
                return True
        elif equal(value, item) is True:
            return True
    return False


def _mentions_input(node: object) -> bool:
    if node == ("name", "?"):
        return True
    if isinstance(node, tuple):
        return any(_mentions_input(part) for part in node)
    return False


def test_entry(tree: Node, value: object, scope: Scope) -> bool | None:
    """A decision-table input entry (``("any",)``, ``("tests", ...)`` or ``("not", ...)``) against value."""
    if tree[0] == "any":
        return True
    verdict = any_test(tree[1], value, scope)
    if tree[0] == "not":
        return None if verdict is None else not verdict
    return verdict


def _range(node: Node, scope: Scope) -> object:
    start = evaluate_node(node[1], scope) if node[1] is not None else None
    end = evaluate_node(node[2], scope) if node[2] is not None else None
    if (node[1] is not None and start is None) or (node[2] is not None and end is None):
        raise FeelError("a range with a null end")
    if start is not None and end is not None:
        order = compare(start, end)
        if order is None:
            raise FeelError("a range's ends are of different kinds")
        if order > 0:
            raise FeelError("a range whose start is after its end")
    return Range(start, end, node[3] if node[1] is not None else False,
                 node[4] if node[2] is not None else False)


def _list(node: Node, scope: Scope) -> object:
    return [evaluate_node(item, scope) for item in node[1]]


def _context(node: Node, scope: Scope) -> object:
    result: dict[str, object] = {}
    inner = scope.child(result)
    for key, expr in node[1]:
        if key in result:
            raise FeelError(f"context entry {key!r} given twice")
        result[key] = evaluate_node(expr, inner)
    return result


def _if(node: Node, scope: Scope) -> object:
    condition = evaluate_node(node[1], scope)
    return evaluate_node(node[2] if condition is True else node[3], scope)


def _iterations(loops: tuple, scope: Scope) -> list[dict[str, object]]:
    """Every binding of the loop variables, outer loop first; a later source may use earlier variables."""
    frames: list[dict[str, object]] = [{}]
    for variable, source in loops:
        expanded: list[dict[str, object]] = []
        for frame in frames:
            inner = scope.child(frame)
            if source[0] == "span":
                values = _iterable(Range(evaluate_node(source[1], inner), evaluate_node(source[2], inner)))
            else:
                values = _iterable(evaluate_node(source, inner))
            expanded.extend({**frame, variable: v} for v in values)
            if len(expanded) > MAX_ITEMS:
                raise FeelError("iteration over too many items")
        frames = expanded
    return frames


def _iterable(source: object) -> list:
    if isinstance(source, list):
        return source
    if isinstance(source, Range):
        start, end = source.start, source.end
        if not (isinstance(start, Decimal) and isinstance(end, Decimal)) or start != start.to_integral_value() \
                or end != end.to_integral_value():
            if isinstance(start, date) and isinstance(end, date) and not isinstance(start, datetime):
                step = 1 if end >= start else -1
                return [start + timedelta(days=step * n) for n in range(abs((end - start).days) + 1)]
            raise FeelError("iteration over a range of non-integers")
        low, high = int(start), int(end)
        if abs(high - low) > MAX_ITEMS:
            raise FeelError("iteration over too many items")
        step = 1 if high >= low else -1
        return [Decimal(n) for n in range(low, high + step, step)]
    if source is None:
        raise FeelError("iteration over null")
    return [source]


def _for(node: Node, scope: Scope) -> object:
    results: list[object] = []
    for frame in _iterations(node[1], scope):
        frame["partial"] = results
        results.append(evaluate_node(node[2], scope.child(frame)))
    return results


def _quantified(node: Node, scope: Scope) -> object:
    wanted = node[0] == "some"
    unknown = False
    for frame in _iterations(node[1], scope):
        verdict = evaluate_node(node[2], scope.child(frame))
        if verdict is wanted:
            return wanted
        if verdict is not (not wanted):
            unknown = True
    return None if unknown else not wanted


def _function(node: Node, scope: Scope) -> object:
    parameters = [name for name, _ in node[1]]
    types = [kind_node for _, kind_node in node[1]]
    body = node[2]

    def call(*arguments: object) -> object:
        for value, kind_node in zip(arguments, types):
            if kind_node is not None and value is not None and not conforms(value, kind_node, scope):
                raise FeelError(f"argument {value!r} is not a {type_text(kind_node)}")
        return evaluate_node(body, scope.child(dict(zip(parameters, arguments))))

    return Function("anonymous", parameters, call, types=tuple(types))


def _instance(node: Node, scope: Scope) -> object:
    return conforms(evaluate_node(node[1], scope), node[2], scope)


_BASE_TYPES: dict[str, Callable[[object], bool]] = {
    "number": lambda v: isinstance(v, Decimal),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "date": lambda v: isinstance(v, date) and not isinstance(v, datetime),
    "time": lambda v: isinstance(v, time),
    "date and time": lambda v: isinstance(v, datetime),
    "dateTime": lambda v: isinstance(v, datetime),
    "days and time duration": lambda v: isinstance(v, timedelta),
    "dayTimeDuration": lambda v: isinstance(v, timedelta),
    "years and months duration": lambda v: isinstance(v, YearsMonths),
    "yearMonthDuration": lambda v: isinstance(v, YearsMonths),
    "duration": lambda v: isinstance(v, (timedelta, YearsMonths)),
    "list": lambda v: isinstance(v, list),
    "context": lambda v: isinstance(v, dict),
    "range": lambda v: isinstance(v, Range),
    "function": lambda v: isinstance(v, Function),
    "Any": lambda v: v is not None,
    "Null": lambda v: v is None,
}


def base_type(name: str) -> Callable[[object], bool] | None:
    return _BASE_TYPES.get(name.removeprefix("feel:"))


def type_text(node: Node) -> str:
    return node[1] if not node[2] else f"{node[1]}<...>"


def conforms(value: object, type_node: Node, scope: Scope | None) -> bool:
    """``value instance of type``: FEEL's base types, list/context/range/function types, item definitions."""
    name, arguments = type_node[1], type_node[2]
    if name == "Null":
        return value is None
    if value is None:
        return False
    if name == "list" and arguments:
        return isinstance(value, list) and all(v is None or conforms(v, arguments[0], scope) for v in value)
    if name == "range" and arguments:
        return isinstance(value, Range) and all(
            end is None or conforms(end, arguments[0], scope) for end in (value.start, value.end))
    if name == "context" and arguments:
        return isinstance(value, dict) and all(
            key in value and (value[key] is None or conforms(value[key], kind_node, scope))
            for key, kind_node in arguments)
    if name == "function" and arguments:
        if not isinstance(value, Function):
            return False
        wanted, result = arguments
        declared = list(value.types) or [None] * len(value.parameters)
        if len(declared) != len(wanted):
            return False
        return all(d is None or _same_type(d, w) for d, w in zip(declared, wanted))
    check = base_type(name)
    if check is None and scope is not None and scope.types is not None:
        check = scope.types(name)
    if check is None:
        raise FeelError(f"unknown type {name!r}")
    return check(value)


def _same_type(a: object, b: Node) -> bool:
    if isinstance(a, tuple):
        return a == b or b[1] == "Any"
    return a == b[1]


_EVAL: dict[str, Callable[[Node, Scope], object]] = {
    "lit": _lit, "error": _error, "unsupported": _unsupported,
    "name": _name, "path": _path, "filter": _filter, "call": _call,
    "arith": _arith, "neg": _neg, "cmp": _cmp, "and": _connective, "or": _connective, "between": _between, "in": _in,
    "range": _range, "list": _list, "context": _context, "if": _if, "for": _for, "some": _quantified,
    "every": _quantified, "function": _function, "instance": _instance,
}

