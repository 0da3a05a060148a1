"""The contract on generated inputs: the handler called beyond its examples (docs/plugin.md,
"Generated inputs").

A handler that only knows its examples (returns their outputs, looks their
inputs up in a table) passes them; it fails here. The contract item calls
``handle`` on inputs generated with hypothesis from what the task reads: each
read variable's datatype and the constraints of every form field on it
(``sh:in``, the four bounds, ``sh:pattern``, ``sh:minLength``/``sh:maxLength``).
Each binding answers with a value generated from its declared ``seam:result``
(a seam:Variable's datatype and form fields, a datatype, or an object's
fields); a binding that declares no result answers with one of the replies
the examples give it, or null when none does. The binding fakes check, as in
an example's one-reply form, that every parameter naming a read variable is
passed that variable's value.

Each result must be a mapping of exactly the declared outputs, each of its
datatype and inside its form fields, and nothing may raise: the checks are
:func:`seams_runtime.handler_checks.generated_problems`. The seed is fixed
(``derandomize``, no example database), so every run tries the same inputs;
``[acceptance] generated_cases`` in seams.toml bounds how many (default 25, 0
turns this off). A failing input is shrunk by hypothesis to a small one and
named in the item's first line.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from seams.lang.field_values import constraint_problems, datatype_problem
from seams_runtime.handler_checks import generated_problems, reply_entries, show_case

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

BOUND = 10**9  # numbers stay within +-BOUND when the form fields give no bound
DECIMAL_PLACES = 4
TEXT_SIZE = 24  # characters of a generated string with no length constraint
DATES = (date(1900, 1, 1), date(2199, 12, 31))
INTEGER_TYPES = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
                 "nonPositiveInteger", "negativeInteger", "unsignedLong", "unsignedInt", "unsignedShort",
                 "unsignedByte"}
NUMBER_TYPES = {"decimal", "double", "float"}


class CaseFailed(Exception):
    """One generated input broke the contract; hypothesis shrinks it and raises the smallest."""

    def __init__(self, given: dict, replies: dict, problems: list[tuple[str, str]]):
        super().__init__(problems[0][1] if problems else "")
        self.given, self.replies, self.problems = given, replies, problems


def contract_on_generated_inputs(handle: Any, spec: Any) -> tuple[list[tuple[str, str]], str]:
    """(problems, detail text) of the first generated input that breaks the contract, shrunk;
    ([], "") when all of ``spec.generated_cases`` pass (or there are none to try)."""
    if spec.generated_cases <= 0:
        return [], ""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis.errors import HypothesisException

    from seams_runtime.sandbox.channel import ExecutorGone

    gone: list[CaseFailed] = []  # the executor ended: no later call may wait on it again

    @settings(max_examples=spec.generated_cases, derandomize=True, database=None, deadline=None,
              phases=(Phase.explicit, Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet, print_blob=False, report_multiple_bugs=False)
    @given(case_strategy(spec))
    def run(case: tuple[dict, dict]) -> None:
        if gone:
            raise gone[0]
        given_values, replies = case
        try:
            problems = generated_problems(handle, spec.reads, spec.bindings, spec.outputs, given_values, replies,
                                          spec.signatures)
        except ExecutorGone as exc:
            gone.append(CaseFailed(given_values, replies, [("seam:handler", f"generated input "
                                                            f"({show_case(given_values, replies)}): {exc}")]))
            raise gone[0] from None
        if problems:
            raise CaseFailed(given_values, replies, problems)

    try:
        with quiet_hypothesis():
            run()
    except CaseFailed as failed:
        failed = gone[0] if gone else failed  # the input that ended the executor, not a later one
        return failed.problems, detail(spec, failed)
    except HypothesisException as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return [("seam:reads", f"no input could be generated from the form fields of the inputs "
                               f"{', '.join(spec.inputs) or '(none)'}: {first}")], ""
    return [], ""


_HOME: list[str] = []  # this process's hypothesis storage directory, made on first use


@contextmanager
def quiet_hypothesis() -> Iterator[None]:
    """Hypothesis as the contract needs it, for the length of one run, then as it was.

    * Its storage (the unicode tables it caches, anything else it writes) goes to a
      private temporary directory of this process, removed at exit: the judge writes
      nothing into the project (hypothesis would make ``.hypothesis/`` in the cwd).
    * Its "local constants" (literals it collects from the source of every local module
      loaded, drawn now and then) are turned off: scanning them costs seconds, and the
      inputs would depend on which modules happen to be loaded, not on the model alone.
    """
    from hypothesis import configuration
    from hypothesis.internal.conjecture import providers

    if not _HOME:
        _HOME.append(tempfile.mkdtemp(prefix="seams-hypothesis-"))
        atexit.register(shutil.rmtree, _HOME[0], True)
    home_before = vars(configuration).get("__hypothesis_home_directory")
    constants_before = getattr(providers, "_get_local_constants", None)
    configuration.set_hypothesis_home_dir(_HOME[0])
    if constants_before is not None:
        empty = type(providers._local_constants)()
        providers._get_local_constants = lambda: empty
        providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(home_before)
        if constants_before is not None:
            providers._get_local_constants = constants_before
            providers.CONSTANTS_CACHE.cache.clear()


def detail(spec: Any, failed: CaseFailed) -> str:
    """The lines after the first: the whole failing input, and how to try it again."""
    lines = ["the failing generated input (shrunk; the same every run):",
             f"  given   {failed.given!r}", f"  replies {failed.replies!r}"]
    lines += [f"{predicate}: {message}" for predicate, message in failed.problems[1:]]
    lines.append(f"({spec.generated_cases} generated inputs per run: [acceptance] generated_cases in seams.toml)")
    return "\n".join(lines)


# ---------------------------------------------------------------- strategies


def case_strategy(spec: Any) -> SearchStrategy:
    """(given, replies): every read input, and a reply for every binding the task uses."""
    from hypothesis import strategies as st

    given = st.fixed_dictionaries({name: value_strategy(datatype, rules)
                                   for name, (datatype, rules) in spec.inputs.items() if name in spec.reads})
    replies = st.fixed_dictionaries({name: reply_strategy(spec, name) for name in spec.bindings})
    return st.tuples(given, replies)


def reply_strategy(spec: Any, binding: str) -> SearchStrategy:
    """A value of the binding's declared result; else one of the examples' replies; else null."""
    from hypothesis import strategies as st

    result = spec.results.get(binding)
    if result is not None and result[0] == "object":
        return st.fixed_dictionaries({name: value_strategy(datatype, rules) for name, datatype, rules in result[1]})
    if result is not None:
        return value_strategy(result[1], result[2])
    seen: list = []
    for example in spec.examples:
        replies = example.data[2]
        if example.problem is None and binding in replies:
            entries = reply_entries(replies[binding])
            seen += [e["reply"] for e in entries] if entries is not None else [replies[binding]]
    unique = list({repr(v): v for v in seen}.values())
    return st.sampled_from(unique) if unique else st.none()


def value_strategy(datatype: str | None, rules: tuple[dict, ...]) -> SearchStrategy:
    """Values of ``xsd:<datatype>`` inside every rule (a form field's constraints): drawn from
    ``sh:in`` when a field has one, else built from the bounds, pattern and lengths and
    filtered by the very checks that judge outputs, so no invalid value is ever generated."""
    from hypothesis import strategies as st

    from seams.checks.types import runtime_value

    def valid(value: Any) -> bool:
        if datatype_problem(value, datatype):
            return False
        return not any(constraint_problems(value, rule) for rule in rules)

    for rule in rules:
        if "in" in rule:
            values = [runtime_value(v, datatype) for v in rule["in"]]
            values = [v for v in values if valid(v)]
            return st.sampled_from(values) if values else st.nothing()
    return _base(datatype, rules).filter(valid)


def _base(datatype: str | None, rules: tuple[dict, ...]) -> SearchStrategy:
    from hypothesis import strategies as st

    if datatype in INTEGER_TYPES:
        low, high = _bounds(rules, Decimal(-BOUND), Decimal(BOUND))
        low_int, high_int = int(low.to_integral_value(rounding="ROUND_CEILING")), int(
            high.to_integral_value(rounding="ROUND_FLOOR"))
        return st.integers(low_int, high_int) if low_int <= high_int else st.nothing()
    if datatype in NUMBER_TYPES:
        low, high = _bounds(rules, Decimal(-BOUND), Decimal(BOUND))
        if low > high:
            return st.nothing()
        try:
            return st.decimals(low, high, places=DECIMAL_PLACES, allow_nan=False, allow_infinity=False)
        except Exception:  # bounds finer than the places: any finite decimal between them
            return st.decimals(low, high, allow_nan=False, allow_infinity=False)
    if datatype == "boolean":
        return st.booleans()
    if datatype == "date":
        first, last = _date_bounds(rules)
        return st.dates(first, last) if first <= last else st.nothing()
    if datatype == "dateTime":
        return st.datetimes(datetime(1900, 1, 1), datetime(2199, 12, 31)).map(lambda d: d.isoformat())
    if datatype == "time":
        return st.times(time(0, 0), time(23, 59, 59)).map(lambda t: t.isoformat())
    patterns = [rule["pattern"] for rule in rules if "pattern" in rule]
    low_size = max([int(rule["minLength"]) for rule in rules if "minLength" in rule], default=0)
    sizes = [int(rule["maxLength"]) for rule in rules if "maxLength" in rule]
    if patterns:
        try:
            return st.from_regex(re.compile(patterns[0]), alphabet=ALPHABET)
        except Exception:  # not a Python regular expression: the shapes check reports it
            return st.nothing()
    high_size = min(sizes) if sizes else max(low_size, 0) + TEXT_SIZE
    if low_size > high_size:
        return st.nothing()
    # characters drawn from the alphabet as a list: st.text would build hypothesis's Unicode table
    return st.lists(st.sampled_from(ALPHABET), min_size=low_size, max_size=high_size).map("".join)


# The characters generated strings are made of: ASCII letters, digits, punctuation and white
# space, and a few letters and symbols beyond ASCII (two bytes, three bytes, four bytes in UTF-8).
# A fixed alphabet, not hypothesis's every-character strategy, whose table of the whole of Unicode
# costs a second per session; a pattern (st.from_regex) still builds it, once per process.
ALPHABET = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
            " _-.,:;/@'\"!?()[]{}<>#%&*+=\\|~^`$\t\nÄäéßøñ€中文😀")


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal, str)):
        return None
    try:
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def _bounds(rules: tuple[dict, ...], low: Decimal, high: Decimal) -> tuple[Decimal, Decimal]:
    """The tightest inclusive bounds of the rules (an exclusive bound is kept out by the filter)."""
    return _tightest(rules, low, high, _number)


def _date_bounds(rules: tuple[dict, ...]) -> tuple[date, date]:
    from seams.lang.field_values import as_date

    return _tightest(rules, *DATES, as_date)


def _tightest(rules: tuple[dict, ...], low: Any, high: Any, parse: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``low``/``high`` narrowed by every rule's lower and upper bounds, each read with ``parse``."""
    for rule in rules:
        for key in ("minInclusive", "minExclusive"):
            bound = parse(rule.get(key))
            if bound is not None:
                low = max(low, bound)
        for key in ("maxInclusive", "maxExclusive"):
            bound = parse(rule.get(key))
            if bound is not None:
                high = min(high, bound)
    return low, high
