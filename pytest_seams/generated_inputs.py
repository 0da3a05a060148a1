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
passed that variable's value. An input no form field requires is sometimes
left out. Every value has the one Python type of its datatype
(``seams.lang.field_values.DATATYPES``), as examples and the engine give it.

What the task assumes (``seam:assumes``, conditions over its inputs and
binding replies) holds for every generated input: a case outside is never
tried (:func:`within_assumptions`), so a handler may rely on it (or raise).

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
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from seams.lang.field_values import DATATYPES, constraint_problems, datatype_problem
from seams_runtime.handler_checks import generated_problems, reply_entries, show_case

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

BOUND = 10**9  # numbers stay within +-BOUND when the form fields give no bound
DECIMAL_PLACES = 4
TEXT_SIZE = 24  # characters of a generated string with no length constraint
DATES = (date(1900, 1, 1), date(2199, 12, 31))


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

    from seams.errors import ExpressionError
    from seams_runtime.sandbox.channel import ExecutorGone

    try:
        cases = case_strategy(spec)
    except ExpressionError as exc:  # seams check reports it too
        return [("seam:assumes", str(exc))], ""
    gone: list[CaseFailed] = []  # the executor ended: no later call may wait on it again

    @settings(max_examples=spec.generated_cases, derandomize=True, database=None, deadline=None,
              phases=(Phase.explicit, Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet, print_blob=False, report_multiple_bugs=False)
    @given(cases)
    def run(case: tuple[dict, dict]) -> None:
        if gone:
            raise gone[0]
        given_values, replies = case
        try:
            problems = generated_problems(handle, spec.reads, spec.bindings, spec.outputs, given_values, replies,
                                          spec.signatures, spec.datatypes(), spec.raises)
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
        within = f" within seam:assumes ({'; '.join(spec.assumes)})" if spec.assumes else ""
        return [("seam:reads", f"no input could be generated from the form fields of the inputs "
                               f"{', '.join(spec.inputs) or '(none)'}{within}: {first}")], ""
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
    """(given, replies): every read input (an optional one sometimes left out), and a reply for
    every binding the task uses; only cases within the task's assumptions."""
    from hypothesis import strategies as st

    read = {name: value_strategy(datatype, rules)
            for name, (datatype, rules) in spec.inputs.items() if name in spec.reads}
    optional = set(getattr(spec, "optional", ()))
    given = st.fixed_dictionaries({n: s for n, s in read.items() if n not in optional},
                                  optional={n: s for n, s in read.items() if n in optional})
    replies = st.fixed_dictionaries({name: reply_strategy(spec, name) for name in spec.bindings})
    cases = st.tuples(given, replies)
    holds = within_assumptions(spec)
    return cases if holds is None else cases.map(holds.within).filter(bool)


class Assumptions:
    """The task's ``seam:assumes`` as a predicate on a case (given, replies), with a repair that
    brings a drawn case inside where one exchange does it: ``a <= b`` drawn the wrong way round
    is tried with the two values exchanged, ``a == b`` with one value copied to the other; a
    repaired value must still be one its variable allows (datatype and form fields), else the
    case is left to the filter. So a filter seldom has to throw a case away."""

    def __init__(self, spec: Any):
        from seams.lang.condition import parse_condition

        self.conditions = [parse_condition(text, where=f"{spec.subject} seam:assumes") for text in spec.assumes]
        self.types = {name: kind for name, kind in spec.inputs.items() if name in spec.reads}
        self.types.update({name: (result[1], result[2]) for name, result in spec.results.items()
                           if result[0] == "value"})

    @staticmethod
    def env(case: tuple[dict, dict]) -> dict:
        given, replies = case
        return {**replies, **given}

    def holds_in(self, env: dict) -> bool:
        from seams.errors import ExpressionError

        for condition in self.conditions:
            if not condition.names <= set(env):
                continue  # an optional input left out: the assumption says nothing of this case
            try:
                if not condition.evaluate(env):
                    return False
            except ExpressionError:
                return False
        return True

    def __call__(self, case: tuple[dict, dict]) -> bool:
        return self.holds_in(self.env(case))

    def allows(self, name: str, value: Any) -> bool:
        """May the variable (or binding reply) ``name`` hold ``value``?"""
        if name not in self.types:
            return False
        datatype, rules = self.types[name]
        return not datatype_problem(value, datatype) and not any(constraint_problems(value, r) for r in rules)

    def within(self, case: tuple[dict, dict]) -> tuple[dict, dict] | None:
        """The case if the assumptions hold, else its repair (see the class), else None."""
        if self(case):
            return case
        mended = self.repair(case)
        return mended if mended is not case else None

    def repair(self, case: tuple[dict, dict]) -> tuple[dict, dict]:
        """The case with one broken two-variable comparison mended (see the class), or the case."""
        from seams.lang.condition_tree import Compare, Var

        for condition in self.conditions:
            node = condition.tree
            if not isinstance(node, Compare) or len(node.operands) != 2:
                continue
            a, b = (o.name if isinstance(o, Var) else None for o in node.operands)
            if a is None or b is None or a == b:
                continue
            given, replies = case
            if not all(n in given or n in replies for n in (a, b)):
                continue
            value = {**replies, **given}
            options = [(value[b], value[a])] + ([(value[a], value[a]), (value[b], value[b])]
                                                if tuple(node.ops) == ("==",) else [])
            for new_a, new_b in options:
                mended = ({k: v for k, v in given.items()}, {k: v for k, v in replies.items()})
                for name, new in ((a, new_a), (b, new_b)):
                    (mended[0] if name in given else mended[1])[name] = new
                if self.allows(a, new_a) and self.allows(b, new_b) and self(mended):
                    return mended
        return case


def within_assumptions(spec: Any) -> Assumptions | None:
    """The predicate of the task's assumptions, or None when it states none."""
    return Assumptions(spec) if getattr(spec, "assumes", ()) else None


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
        if example.problem is None and not example.held_out and binding in replies:  # never a held-out value
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

    python = DATATYPES.get(datatype or "", {}).get("python")
    if python == "int":
        low, high = _bounds(rules, Decimal(-BOUND), Decimal(BOUND))
        low_int, high_int = int(low.to_integral_value(rounding="ROUND_CEILING")), int(
            high.to_integral_value(rounding="ROUND_FLOOR"))
        return st.integers(low_int, high_int) if low_int <= high_int else st.nothing()
    if python == "Decimal":
        low, high = _bounds(rules, Decimal(-BOUND), Decimal(BOUND))
        if low > high:
            return st.nothing()
        try:
            return st.decimals(low, high, places=DECIMAL_PLACES, allow_nan=False, allow_infinity=False)
        except Exception:  # bounds finer than the places: any finite decimal between them
            return st.decimals(low, high, allow_nan=False, allow_infinity=False)
    if python == "bool":
        return st.booleans()
    if python == "date":
        first, last = _date_bounds(rules)
        return st.dates(first, last) if first <= last else st.nothing()
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


# ---------------------------------------------------------------- the contract, in words


def contract_text(spec: Any) -> str:
    """What the contract item calls ``handle`` with and what it accepts, in words, for the
    propose prompt (docs/propose.md): the ranges come from the very strategies above, so the
    prompt says exactly what is generated. Held-out examples add nothing to it."""
    lines = [f"Inputs: handle(inputs, bindings) is called with each example (its JSON values converted to "
             f"these types) and with {spec.generated_cases} generated inputs (a fixed seed; a failing one is "
             "shrunk). Each input is given as exactly the Python type shown:"]
    optional = set(getattr(spec, "optional", ()))
    for name, (datatype, rules) in spec.inputs.items():
        if name not in spec.reads:
            continue
        missing = f"; may be missing (use inputs.get({name!r}))" if name in optional else ""
        lines.append(f"- inputs[{name!r}]: {_typed(datatype)}{missing}; generated: {value_range(datatype, rules)}")
    if spec.bindings:
        undeclared = any(binding not in spec.results for binding in spec.bindings)
        lines.append("Replies: on a generated input each binding answers a value of its declared result "
                     "(seam:result)" + ("; a binding that declares none answers one of the replies the shown "
                                        "examples give it, or None" if undeclared else "") + ":")
        for binding in spec.bindings:
            lines.append(f"- bindings.{binding}(...): {_reply_range(spec, binding)}")
    if getattr(spec, "assumes", ()):
        lines.append("Assumed: every example and every generated input satisfies each of these conditions "
                     "(seams' condition language: the names are inputs and binding replies); an input outside "
                     "them is never given, so handle may rely on them:")
        lines += [f"- {text}" for text in spec.assumes]
    lines.append("Outputs: handle returns a dict of exactly these names, each of its type and inside its "
                 "constraints (xsd:decimal may be an int or a Decimal):")
    for name, (datatype, rules) in spec.outputs.items():
        lines.append(f"- {name}: {_typed(datatype)}; allowed: {value_range(datatype, rules, output=True)}")
    raises = getattr(spec, "raises", ())
    if raises:
        lines.append("Declared BPMN errors: instead of returning, handle may raise an exception whose "
                     "error_code attribute is one of " + ", ".join(map(repr, raises)) + " (for example a "
                     "class BpmnError(Exception) of its own that sets self.error_code); the process routes it "
                     "to its error boundary event.")
    else:
        lines.append("Declared BPMN errors: none; handle must return on every input.")
    lines.append("Any other exception, a missing or extra output, or an output outside its constraints fails.")
    return "\n".join(lines)


def _typed(datatype: str | None) -> str:
    python = DATATYPES.get(datatype or "", {}).get("python")
    shown = {"Decimal": "decimal.Decimal", "date": "datetime.date"}.get(python or "", python or "any value")
    return f"{shown} (xsd:{datatype})" if datatype else shown


def _reply_range(spec: Any, binding: str) -> str:
    result = spec.results.get(binding)
    if result is None:
        return "no declared result: one of the shown examples' replies, or None"
    if result[0] == "object":
        fields = "; ".join(f"{name}: {_typed(datatype)}, {value_range(datatype, rules)}"
                           for name, datatype, rules in result[1])
        return f"a dict of {fields}"
    return f"{_typed(result[1])}; generated: {value_range(result[1], result[2])}"


def value_range(datatype: str | None, rules: tuple[dict, ...], output: bool = False) -> str:
    """The values :func:`value_strategy` draws (or, for an output, the values allowed), in words."""
    for rule in rules:
        if "in" in rule:
            return "one of " + ", ".join(repr(v) if isinstance(v, str) else str(v) for v in rule["in"])
    python = DATATYPES.get(datatype or "", {}).get("python")
    strict = [f"{'>' if k == 'minExclusive' else '<'} {rule[k]}" for rule in rules
              for k in ("minExclusive", "maxExclusive") if k in rule]
    extra = f" ({', '.join(strict)})" if strict else ""
    if python in ("int", "Decimal"):
        low, high = _bounds(rules, Decimal(-BOUND), Decimal(BOUND))
        if output:
            low_text = f">= {low}" if low != -BOUND else ""
            high_text = f"<= {high}" if high != BOUND else ""
            return " and ".join(t for t in (low_text, high_text) if t) + extra or "any" + extra
        kind = "a whole number" if python == "int" else f"a decimal with up to {DECIMAL_PLACES} places"
        return f"{kind} from {low} to {high}{extra}"
    if python == "bool":
        return "True or False"
    if python == "date":
        first, last = _date_bounds(rules)
        return f"any date from {first} to {last}{extra}"
    patterns = [rule["pattern"] for rule in rules if "pattern" in rule]
    low_size = max([int(rule["minLength"]) for rule in rules if "minLength" in rule], default=0)
    sizes = [int(rule["maxLength"]) for rule in rules if "maxLength" in rule]
    if patterns:
        return f"text matching the regular expression {patterns[0]!r}"
    if output:
        return f"text of {low_size} to {min(sizes)} characters" if sizes else "any text"
    high_size = min(sizes) if sizes else max(low_size, 0) + TEXT_SIZE
    return (f"text of {low_size} to {high_size} characters (letters, digits, punctuation, white space, "
            "a few non-ASCII letters and symbols)")
