"""FEEL's built-in functions (DMN 1.5, chapter 10.3.4), with the parameter names named invocation uses.

``BUILTINS`` maps each function's name to a ``Function`` whose ``overloads``
are its forms (``date(from)`` and ``date(year, month, day)``). A form
given arguments of the wrong kinds is an error, which FEEL makes null.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, time, timedelta, timezone
from decimal import (
    ROUND_CEILING,
    ROUND_DOWN,
    ROUND_FLOOR,
    ROUND_HALF_DOWN,
    ROUND_HALF_EVEN,
    ROUND_HALF_UP,
    ROUND_UP,
    Decimal,
    InvalidOperation,
)

from seams.errors import ExpressionError
from seams.lang.feel_eval import MAX_ITEMS, Scope, evaluate_node, invoke
from seams.lang.feel_grammar import parse_expression
from seams.lang.feel_regex import PatternError, translate
from seams.lang.feel_temporal import (
    BEYOND_PYTHON,
    BeyondPython,
    YearsMonths,
    parse_date,
    parse_date_time,
    parse_duration,
    parse_time,
    years_months_between,
)
from seams.lang.feel_values import NUMBERS, FeelError, Function, Range, compare, equal, kind, to_text

BUILTINS: dict[str, Function] = {}


def builtin(name: str, *parameters: str, variadic: bool = False, required: int | None = None):
    """Register one form of a built-in; the function raises FeelError (or ValueError/TypeError) for null."""

    def register(implementation: Callable[..., object]) -> Callable[..., object]:
        def call(*arguments: object) -> object:
            try:
                return implementation(*arguments)
            except (ValueError, TypeError, ArithmeticError, InvalidOperation, OverflowError, IndexError) as exc:
                raise FeelError(f"{name}: {exc}") from exc

        form = Function(name, parameters, call, variadic=variadic)
        form.required = len(parameters) if required is None else required  # type: ignore[attr-defined]
        entry = BUILTINS.get(name)
        if entry is None:
            entry = BUILTINS[name] = Function(name, parameters, call, variadic=variadic)
            entry.overloads = []  # type: ignore[attr-defined]
        entry.overloads.append(form)  # type: ignore[attr-defined]
        return implementation

    return register


def _single(value: object) -> object:
    """A one-item list where a single value is wanted is that item (DMN 1.5, 10.3.2.9.4)."""
    return value[0] if isinstance(value, list) and len(value) == 1 else value


def _num(value: object) -> Decimal:
    value = _single(value)
    if not isinstance(value, Decimal):
        raise FeelError(f"{kind(value)} where a number is wanted")
    return value


def _int(value: object) -> int:
    number = _num(value)
    if number != number.to_integral_value():
        raise FeelError(f"{number} where an integer is wanted")
    return int(number)


def _str(value: object) -> str:
    value = _single(value)
    if not isinstance(value, str):
        raise FeelError(f"{kind(value)} where a string is wanted")
    return value


def _list(value: object) -> list:
    if isinstance(value, list):
        return value
    if value is None:
        raise FeelError("null where a list is wanted")
    return [value]


def _items(arguments: tuple) -> list:
    """A variadic function's items: one list argument is the list, else the arguments themselves."""
    if len(arguments) == 1 and isinstance(arguments[0], list):
        return arguments[0]
    if len(arguments) == 0:
        raise FeelError("no arguments")
    return list(arguments)


# ---- conversion ---------------------------------------------------------------------------------------

@builtin("string", "from")
def _string(value: object) -> object:
    return to_text(value)


@builtin("number", "from", "grouping separator", "decimal separator")
def _number3(text: object, grouping: object, decimal_sep: object) -> object:
    text = _str(text)
    if grouping is not None and grouping not in (" ", ",", "."):
        raise FeelError("bad grouping separator")
    if decimal_sep is not None and decimal_sep not in (",", "."):
        raise FeelError("bad decimal separator")
    if grouping is not None and grouping == decimal_sep:
        raise FeelError("the same separator twice")
    if grouping:
        text = text.replace(str(grouping), "")
    if decimal_sep:
        text = text.replace(str(decimal_sep), ".")
    return _number1(text)


@builtin("number", "from")
def _number1(text: object) -> object:
    text = _str(text)
    if not re.fullmatch(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", text.strip()):
        raise FeelError(f"not a number: {text!r}")
    return NUMBERS.plus(Decimal(text.strip()))


@builtin("date", "from")
def _date1(value: object) -> object:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return parse_date(_str(value))


@builtin("date", "year", "month", "day")
def _date3(year: object, month: object, day: object) -> object:
    if not 1 <= _int(year) <= 9999:
        raise BeyondPython(f"a year outside 1-9999, {BEYOND_PYTHON}: {year}")
    return date(_int(year), _int(month), _int(day))


@builtin("date and time", "from")
def _date_time1(value: object) -> object:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    return parse_date_time(_str(value))


@builtin("date and time", "date", "time")
def _date_time2(day: object, moment: object) -> object:
    if not isinstance(day, date) or not isinstance(moment, time):
        raise FeelError("date and time(date, time) takes a date and a time")
    return datetime.combine(day if not isinstance(day, datetime) else day.date(), moment.replace(tzinfo=None),
                            tzinfo=moment.tzinfo)


@builtin("time", "from")
def _time1(value: object) -> object:
    if isinstance(value, datetime):
        return value.timetz()
    if isinstance(value, time):
        return value
    if isinstance(value, date):
        return time(0, 0, 0, tzinfo=timezone.utc)
    return parse_time(_str(value))


@builtin("time", "hour", "minute", "second", "offset", required=3)
def _time4(hour: object, minute: object, second: object, offset: object = None) -> object:
    seconds = _num(second)
    whole = int(seconds)
    micro = int((seconds - whole) * 1_000_000)
    zone = None
    if offset is not None:
        if not isinstance(offset, timedelta):
            raise FeelError("offset must be a days and time duration")
        zone = timezone(offset)
    return time(_int(hour), _int(minute), whole, micro, tzinfo=zone)


@builtin("duration", "from")
def _duration(text: object) -> object:
    return parse_duration(_str(text))


@builtin("years and months duration", "from", "to")
def _years_months(start: object, end: object) -> object:
    if not isinstance(start, date) or not isinstance(end, date):
        raise FeelError("years and months duration takes two dates")
    return years_months_between(start, end)


# ---- boolean ------------------------------------------------------------------------------------------

@builtin("not", "negand")
def _not(value: object) -> object:
    return (not value) if isinstance(value, bool) else None


@builtin("is defined", "value")
def _is_defined(value: object) -> object:
    return value is not None


# ---- strings ------------------------------------------------------------------------------------------

def _code_points(text: str) -> list[str]:
    return list(text)


@builtin("substring", "string", "start position", "length", required=2)
def _substring(text: object, start: object, length: object = None) -> object:
    points = _code_points(_str(text))
    first = _int(start)
    if first == 0 or abs(first) > len(points) + (1 if first > 0 else 0):
        if first > len(points):
            return ""
        if first == 0 or -first > len(points):
            raise FeelError("start position out of range")
    index = first - 1 if first > 0 else len(points) + first
    if length is None:
        return "".join(points[index:])
    count = int(_num(length))
    if count < 0:
        raise FeelError("negative length")
    return "".join(points[index:index + count])


@builtin("string length", "string")
def _string_length(text: object) -> object:
    return Decimal(len(_str(text)))


@builtin("upper case", "string")
def _upper(text: object) -> object:
    return _str(text).upper()


@builtin("lower case", "string")
def _lower(text: object) -> object:
    return _str(text).lower()


@builtin("substring before", "string", "match")
def _before(text: object, match: object) -> object:
    text, match = _str(text), _str(match)
    index = text.find(match)
    return "" if index < 0 else text[:index]


@builtin("substring after", "string", "match")
def _after(text: object, match: object) -> object:
    text, match = _str(text), _str(match)
    index = text.find(match)
    return "" if index < 0 else text[index + len(match):]


def _regex(pattern: object, flags: object) -> re.Pattern[str]:
    try:
        source, options = translate(_str(pattern), "" if flags is None else _str(flags))
    except PatternError as exc:
        raise FeelError(str(exc)) from exc
    return re.compile(source, options)


@builtin("replace", "input", "pattern", "replacement", "flags", required=3)
def _replace(text: object, pattern: object, replacement: object, flags: object = None) -> object:
    compiled = _regex(pattern, flags)
    if compiled.match(""):
        raise FeelError("a pattern that matches the empty string")
    template = re.sub(r"\\(\$)|\$(\d+)", lambda m: "$" if m.group(1) else f"\\g<{m.group(2)}>",
                      _str(replacement).replace("\\\\", "\x00")).replace("\x00", "\\\\")
    return compiled.sub(template, _str(text))


@builtin("contains", "string", "match")
def _contains(text: object, match: object) -> object:
    return _str(match) in _str(text)


@builtin("starts with", "string", "match")
def _starts(text: object, match: object) -> object:
    return _str(text).startswith(_str(match))


@builtin("ends with", "string", "match")
def _ends(text: object, match: object) -> object:
    return _str(text).endswith(_str(match))


@builtin("matches", "input", "pattern", "flags", required=2)
def _matches(text: object, pattern: object, flags: object = None) -> object:
    return _regex(pattern, flags).search(_str(text)) is not None


@builtin("split", "string", "delimiter")
def _split(text: object, delimiter: object) -> object:
    compiled = _regex(delimiter, None)
    return compiled.split(_str(text))


@builtin("string join", "list", "delimiter", required=1)
def _string_join(items: object, delimiter: object = None) -> object:
    parts = [_str(item) for item in _list(items) if item is not None]
    return ("" if delimiter is None else _str(delimiter)).join(parts)


# ---- lists --------------------------------------------------------------------------------------------

@builtin("list contains", "list", "element")
def _list_contains(items: object, element: object) -> object:
    return any(equal(item, element) for item in _list(items))


@builtin("count", "list", variadic=True)
def _count(*items: object) -> object:
    return Decimal(len(_items(items)))


def _ordered(items: list) -> list:
    if any(item is None for item in items):
        raise FeelError("null in a list to order")
    for item in items[1:]:
        if compare(items[0], item) is None:
            raise FeelError("items of different kinds")
    return items


def _extreme(arguments: tuple, wanted: int) -> object:
    items = _ordered(_items(arguments))
    if not items:
        return None
    best = items[0]
    for item in items[1:]:
        if compare(item, best) == wanted:
            best = item
    return best


@builtin("min", "list", variadic=True)
def _min(*arguments: object) -> object:
    return _extreme(arguments, -1)


@builtin("max", "list", variadic=True)
def _max(*arguments: object) -> object:
    return _extreme(arguments, 1)


def _numbers(arguments: tuple) -> list[Decimal]:
    return [_num(item) for item in _items(arguments)]


def _fold(arguments: tuple, start: Decimal, step: Callable[[Decimal, Decimal], Decimal]) -> object:
    numbers = _numbers(arguments)
    if not numbers:
        return None
    total = start
    for number in numbers:
        total = step(total, number)
    return total


@builtin("sum", "list", variadic=True)
def _sum(*arguments: object) -> object:
    return _fold(arguments, Decimal(0), NUMBERS.add)


@builtin("product", "list", variadic=True)
def _product(*arguments: object) -> object:
    return _fold(arguments, Decimal(1), NUMBERS.multiply)


@builtin("mean", "list", variadic=True)
def _mean(*arguments: object) -> object:
    numbers = _numbers(arguments)
    if not numbers:
        return None
    return NUMBERS.divide(_sum(numbers), Decimal(len(numbers)))


@builtin("median", "list", variadic=True)
def _median(*arguments: object) -> object:
    numbers = sorted(_numbers(arguments))
    if not numbers:
        return None
    middle = len(numbers) // 2
    if len(numbers) % 2:
        return numbers[middle]
    return NUMBERS.divide(NUMBERS.add(numbers[middle - 1], numbers[middle]), Decimal(2))


@builtin("stddev", "list", variadic=True)
def _stddev(*arguments: object) -> object:
    numbers = _numbers(arguments)
    if len(numbers) < 2:
        return None
    mean = NUMBERS.divide(_sum(numbers), Decimal(len(numbers)))
    squares = Decimal(0)
    for number in numbers:
        squares = NUMBERS.add(squares, NUMBERS.power(NUMBERS.subtract(number, mean), 2))
    return NUMBERS.sqrt(NUMBERS.divide(squares, Decimal(len(numbers) - 1)))


@builtin("mode", "list", variadic=True)
def _mode(*arguments: object) -> object:
    numbers = _numbers(arguments)
    if not numbers:
        return []
    counts: dict[Decimal, int] = {}
    for number in numbers:
        counts[number] = counts.get(number, 0) + 1
    top = max(counts.values())
    return sorted(n for n, c in counts.items() if c == top)


@builtin("all", "list", variadic=True)
def _all(*arguments: object) -> object:
    items = _items(arguments)
    if any(not isinstance(item, bool) and item is not None for item in items):
        raise FeelError("all() of non-booleans")
    if any(item is False for item in items):
        return False
    return None if any(item is None for item in items) else True


@builtin("any", "list", variadic=True)
def _any(*arguments: object) -> object:
    items = _items(arguments)
    if any(not isinstance(item, bool) and item is not None for item in items):
        raise FeelError("any() of non-booleans")
    if any(item is True for item in items):
        return True
    return None if any(item is None for item in items) else False


@builtin("sublist", "list", "start position", "length", required=2)
def _sublist(items: object, start: object, length: object = None) -> object:
    items = _list(items)
    first = _int(start)
    if first == 0 or abs(first) > len(items):
        raise FeelError("start position out of range")
    index = first - 1 if first > 0 else len(items) + first
    if length is None:
        return items[index:]
    count = _int(length)
    if count < 0 or index + count > len(items):
        raise FeelError("length out of range")
    return items[index:index + count]


@builtin("append", "list", "item", variadic=True)
def _append(items: object, *more: object) -> object:
    return [*_list(items), *more]


@builtin("concatenate", "list", variadic=True)
def _concatenate(*lists: object) -> object:
    result: list = []
    for items in lists:
        result.extend(_list(items))
    return result


@builtin("insert before", "list", "position", "newItem")
def _insert_before(items: object, position: object, new: object) -> object:
    items = list(_list(items))
    at = _int(position)
    if at == 0 or abs(at) > len(items):
        raise FeelError("position out of range")
    index = at - 1 if at > 0 else len(items) + at
    items.insert(index, new)
    return items


@builtin("remove", "list", "position")
def _remove(items: object, position: object) -> object:
    items = list(_list(items))
    at = _int(position)
    if at == 0 or abs(at) > len(items):
        raise FeelError("position out of range")
    del items[at - 1 if at > 0 else at]
    return items


@builtin("reverse", "list")
def _reverse(items: object) -> object:
    return list(reversed(_list(items)))


@builtin("index of", "list", "match")
def _index_of(items: object, match: object) -> object:
    return [Decimal(n) for n, item in enumerate(_list(items), 1) if equal(item, match)]


@builtin("union", "list", variadic=True)
def _union(*lists: object) -> object:
    return _distinct([item for items in lists for item in _list(items)])


@builtin("distinct values", "list")
def _distinct_values(items: object) -> object:
    return _distinct(_list(items))


def _distinct(items: list) -> list:
    kept: list = []
    for item in items:
        if not any(equal(item, seen) for seen in kept):
            kept.append(item)
    return kept


@builtin("duplicate values", "list")
def _duplicates(items: object) -> object:
    items = _list(items)
    found: list = []
    for n, item in enumerate(items):
        if any(equal(item, other) for other in items[n + 1:]) and not any(equal(item, f) for f in found):
            found.append(item)
    return found


@builtin("flatten", "list")
def _flatten(items: object) -> object:
    result: list = []

    def walk(value: object) -> None:
        for item in value:  # type: ignore[attr-defined]
            if isinstance(item, list):
                walk(item)
            else:
                result.append(item)
            if len(result) > MAX_ITEMS:
                raise FeelError("flatten: too many items")

    walk(_list(items))
    return result


@builtin("sort", "list", "precedes", required=1)
def _sort(items: object, precedes: object = None) -> object:
    items = list(_list(items))
    if precedes is None:
        return sorted(_ordered(items), key=_SortKey)
    if not isinstance(precedes, Function):
        raise FeelError("sort's precedes is not a function")
    result: list = []
    for item in items:  # insertion sort keeps the user's function the only comparison
        index = len(result)
        while index > 0 and invoke(precedes, [item, result[index - 1]]) is True:
            index -= 1
        result.insert(index, item)
    return result


class _SortKey:
    __slots__ = ("value",)

    def __init__(self, value: object):
        self.value = value

    def __lt__(self, other: _SortKey) -> bool:
        return compare(self.value, other.value) == -1


@builtin("list replace", "list", "match", "newItem")
def _list_replace_match(items: object, match: object, new: object) -> object:
    if not isinstance(match, Function):
        raise FeelError("list replace's match is not a function")
    return _list_replace(items, match, new)


@builtin("list replace", "list", "position", "newItem")
def _list_replace(items: object, position: object, new: object) -> object:
    items = list(_list(items))
    if isinstance(position, Function):
        return [new if invoke(position, [item, new]) is True else item for item in items]
    at = _int(position)
    if at == 0 or abs(at) > len(items):
        raise FeelError("position out of range")
    items[at - 1 if at > 0 else at] = new
    return items


# ---- numbers ------------------------------------------------------------------------------------------

def _scaled(value: object, scale: object, rounding: str) -> Decimal:
    places = int(_num(scale))
    if not -6111 <= places <= 6176:
        raise FeelError("scale out of range")
    number = _num(value)
    if number.is_finite() and -number.as_tuple().exponent <= places:  # type: ignore[operator]
        return number
    return number.quantize(Decimal(1).scaleb(-places), rounding=rounding, context=NUMBERS)


def _rounding(name: str, mode: str, required: int) -> None:
    def implementation(value: object, scale: object = Decimal(0)) -> object:
        return _scaled(value, scale, mode)

    builtin(name, "n", "scale", required=required)(implementation)


for _name, _mode, _required in (("decimal", ROUND_HALF_EVEN, 2), ("floor", ROUND_FLOOR, 1),
                                ("ceiling", ROUND_CEILING, 1), ("round up", ROUND_UP, 2),
                                ("round down", ROUND_DOWN, 2), ("round half up", ROUND_HALF_UP, 2),
                                ("round half down", ROUND_HALF_DOWN, 2)):
    _rounding(_name, _mode, _required)


@builtin("abs", "n")
def _abs(value: object) -> object:
    if isinstance(value, timedelta):
        return abs(value)
    if isinstance(value, YearsMonths):
        return YearsMonths(abs(value.months))
    return abs(_num(value))


@builtin("modulo", "dividend", "divisor")
def _modulo(dividend: object, divisor: object) -> object:
    a, b = _num(dividend), _num(divisor)
    if b == 0:
        raise FeelError("modulo by zero")
    return NUMBERS.subtract(a, NUMBERS.multiply(b, (a / b).to_integral_value(rounding=ROUND_FLOOR)))


@builtin("sqrt", "number")
def _sqrt(value: object) -> object:
    number = _num(value)
    if number < 0:
        raise FeelError("square root of a negative number")
    return NUMBERS.sqrt(number)


@builtin("log", "number")
def _log(value: object) -> object:
    number = _num(value)
    if number <= 0:
        raise FeelError("logarithm of a number not above zero")
    return NUMBERS.ln(number)


@builtin("exp", "number")
def _exp(value: object) -> object:
    return NUMBERS.exp(_num(value))


@builtin("odd", "number")
def _odd(value: object) -> object:
    return _int(value) % 2 == 1


@builtin("even", "number")
def _even(value: object) -> object:
    return _int(value) % 2 == 0


# ---- dates and times ----------------------------------------------------------------------------------

def _day(value: object) -> date:
    if not isinstance(value, date):
        raise FeelError(f"{kind(value)} where a date is wanted")
    return value


@builtin("day of year", "date")
def _day_of_year(value: object) -> object:
    return Decimal(_day(value).timetuple().tm_yday)


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


@builtin("day of week", "date")
def _day_of_week(value: object) -> object:
    return _WEEKDAYS[_day(value).weekday()]


@builtin("month of year", "date")
def _month_of_year(value: object) -> object:
    return _MONTHS[_day(value).month - 1]


@builtin("week of year", "date")
def _week_of_year(value: object) -> object:
    return Decimal(_day(value).isocalendar()[1])


@builtin("now")
def _now() -> object:
    return datetime.now(timezone.utc)


@builtin("today")
def _today() -> object:
    return datetime.now(timezone.utc).date()


@builtin("is", "value1", "value2")
def _is(a: object, b: object) -> object:
    if kind(a) != kind(b):
        return False
    if isinstance(a, (datetime, time)) and isinstance(b, (datetime, time)):
        return a == b and a.tzinfo == b.tzinfo if a.tzinfo is not None else a == b
    return bool(equal(a, b))


# ---- contexts -----------------------------------------------------------------------------------------

@builtin("get value", "m", "key")
def _get_value(context: object, key: object) -> object:
    if not isinstance(context, dict):
        raise FeelError("get value of a non-context")
    return context.get(_str(key))


@builtin("get entries", "m")
def _get_entries(context: object) -> object:
    if not isinstance(context, dict):
        raise FeelError("get entries of a non-context")
    return [{"key": k, "value": v} for k, v in context.items()]


@builtin("context", "entries")
def _context(entries: object) -> object:
    result: dict[str, object] = {}
    for entry in _list(entries):
        if not isinstance(entry, dict) or "key" not in entry or "value" not in entry:
            raise FeelError("context() takes contexts with key and value")
        key = _str(entry["key"])
        if key in result:
            raise FeelError(f"key {key!r} twice")
        result[key] = entry["value"]
    return result


@builtin("context put", "context", "key", "value")
def _context_put(context: object, key: object, value: object) -> object:
    if not isinstance(context, dict):
        raise FeelError("context put on a non-context")
    return {**context, _str(key): value}


@builtin("context put", "context", "keys", "value")
def _context_put_keys(context: object, keys: object, value: object) -> object:
    if not isinstance(context, dict):
        raise FeelError("context put on a non-context")
    return _put_path(context, [_str(k) for k in _list(keys)], value)


def _put_path(context: dict, keys: list[str], value: object) -> dict:
    if not keys:
        raise FeelError("context put with no keys")
    head, rest = keys[0], keys[1:]
    if not rest:
        return {**context, head: value}
    inner = context.get(head)
    if not isinstance(inner, dict):
        raise FeelError(f"{head!r} is not a context")
    return {**context, head: _put_path(inner, rest, value)}


@builtin("context merge", "contexts")
def _context_merge(contexts: object) -> object:
    result: dict[str, object] = {}
    for context in _list(contexts):
        if not isinstance(context, dict):
            raise FeelError("context merge of a non-context")
        result.update(context)
    return result


# ---- ranges (DMN 1.5, 10.3.4.9) -----------------------------------------------------------------------

def _lt(a: object, b: object) -> bool:
    order = compare(a, b)
    if order is None:
        raise FeelError(f"{kind(a)} and {kind(b)} do not compare")
    return order < 0


def _eq(a: object, b: object) -> bool:
    order = compare(a, b)
    if order is None:
        raise FeelError(f"{kind(a)} and {kind(b)} do not compare")
    return order == 0


def _as_range(value: object) -> Range:
    if isinstance(value, Range):
        return value
    if value is None:
        raise FeelError("null where a point or range is wanted")
    return Range(value, value, True, True)


def _range_function(name: str, rule: Callable[[Range, Range], bool]) -> None:
    def implementation(a: object, b: object) -> object:
        return rule(_as_range(a), _as_range(b))

    builtin(name, "point1", "point2")(implementation)
    builtin(name, "point", "range")(implementation)
    builtin(name, "range", "point")(implementation)
    builtin(name, "range1", "range2")(implementation)


def _range_before(a: Range, b: Range) -> bool:
    if a.end is None or b.start is None:
        return False
    return _lt(a.end, b.start) or (_eq(a.end, b.start) and not (a.end_closed and b.start_closed))


def _meets(a: Range, b: Range) -> bool:
    return a.end is not None and b.start is not None and a.end_closed and b.start_closed and _eq(a.end, b.start)


def _overlaps(a: Range, b: Range) -> bool:
    return not _range_before(a, b) and not _range_before(b, a)


def _start_le(a: Range, b: Range) -> bool:
    """a starts at or before b."""
    if a.start is None:
        return True
    if b.start is None:
        return False
    return _lt(a.start, b.start) or (_eq(a.start, b.start) and (a.start_closed or not b.start_closed))


def _end_ge(a: Range, b: Range) -> bool:
    """a ends at or after b."""
    if a.end is None:
        return True
    if b.end is None:
        return False
    return _lt(b.end, a.end) or (_eq(a.end, b.end) and (a.end_closed or not b.end_closed))


def _same_start(a: Range, b: Range) -> bool:
    if a.start is None or b.start is None:
        return a.start is None and b.start is None
    return _eq(a.start, b.start) and a.start_closed == b.start_closed


def _same_end(a: Range, b: Range) -> bool:
    if a.end is None or b.end is None:
        return a.end is None and b.end is None
    return _eq(a.end, b.end) and a.end_closed == b.end_closed


_range_function("before", _range_before)
_range_function("after", lambda a, b: _range_before(b, a))
_range_function("meets", _meets)
_range_function("met by", lambda a, b: _meets(b, a))
_range_function("overlaps", _overlaps)
def _overlaps_before(a: Range, b: Range) -> bool:
    """DMN 1.5's rule: a starts first, ends inside b (or where b ends, b's end included), and reaches b."""
    starts_first = _start_le(a, b) and not _same_start(a, b)
    reaches = a.end is None or b.start is None or _lt(b.start, a.end) or (
        _eq(a.end, b.start) and a.end_closed and b.start_closed)
    ends_inside = b.end is None or (a.end is not None and (_lt(a.end, b.end) or (
        _eq(a.end, b.end) and (not a.end_closed or b.end_closed))))
    return starts_first and reaches and ends_inside


_range_function("overlaps before", _overlaps_before)
_range_function("overlaps after", lambda a, b: _overlaps_before(b, a))
_range_function("finishes", lambda a, b: _same_end(a, b) and _start_le(b, a))
_range_function("finished by", lambda a, b: _same_end(a, b) and _start_le(a, b))
_range_function("includes", lambda a, b: _start_le(a, b) and _end_ge(a, b))
_range_function("during", lambda a, b: _start_le(b, a) and _end_ge(b, a))
_range_function("starts", lambda a, b: _same_start(a, b) and _end_ge(b, a))
_range_function("started by", lambda a, b: _same_start(a, b) and _end_ge(a, b))
_range_function("coincides", lambda a, b: _same_start(a, b) and _same_end(a, b))


_LITERAL_CALLS = ("date", "time", "date and time", "duration")


def _literal_end(node: tuple) -> bool:
    """A literal, a negated number or a temporal constructor of one string literal (``date("2024-01-01")``)."""
    if node[0] == "lit" or (node[0] == "neg" and node[1][0] == "lit"):
        return True
    return (node[0] == "call" and node[1][0] == "name" and node[1][1] in _LITERAL_CALLS and len(node[2]) == 1
            and not node[3] and node[2][0][0] == "lit" and isinstance(node[2][0][1], str))


@builtin("range", "from")
def _range(text: object) -> object:
    source = _str(text).strip()
    try:
        tree = parse_expression(source, where="range()")
    except ExpressionError as exc:
        raise FeelError(str(exc)) from exc
    if tree[0] != "range" or source[:1] not in "[(]":
        raise FeelError(f"not an interval: {source!r}")
    for end in tree[1:3]:
        if end is not None and not _literal_end(end):
            raise FeelError("range ends must be literals")
    value = evaluate_node(tree, Scope(BUILTINS))
    if value is None:
        raise FeelError(f"not a range: {source!r}")
    return value


