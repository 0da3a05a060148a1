"""FEEL ``matches(input, pattern[, flags])`` patterns, translated to Python ``re`` where that is exact.

Camunda 8 evaluates FEEL on the JVM, so a ``matches`` pattern is a Java
regular expression searched in the input (``find``, not a whole-string
match). Python's ``re`` differs from Java in a few places (``\\d`` and
``\\w`` are Unicode in Python and ASCII in Java, ``.`` and ``$`` know
different line terminators), so each construct is translated to one that
means the same in both, and a construct without an exact translation
(back-references, look-arounds, ``\\b``, ``\\p{...}``, possessive
quantifiers, class intersections, flags other than ``i``) is refused by
name. The supported subset is listed in docs/conditions.md ("FEEL
matches").
"""

from __future__ import annotations

import re

MAX_PATTERN = 200
"""The longest pattern seams reads: a gateway rule, not a parser in disguise."""

MAX_REPEAT = 1000

_LINE_END = "\\n\\r\\u0085\\u2028\\u2029"
_DOT = f"[^{_LINE_END}]"  # Java's '.' without DOTALL
_DOLLAR = "(?=(?:\\r\\n|[" + _LINE_END + "])?\\Z)"  # Java's '$' without MULTILINE
_CLASSES = {"d": "0-9", "s": " \\t\\n\\x0b\\f\\r", "w": "a-zA-Z_0-9"}
_CONTROL = {"n": "\\n", "r": "\\r", "t": "\\t", "f": "\\f"}
_META = set("\\^$.|?*+()[]{}-/")


class PatternError(ValueError):
    """A pattern outside the translatable subset; the message names the construct."""


def translate(pattern: str, flags: str = "") -> tuple[str, int]:
    """The Python pattern and ``re`` flags that search exactly as Java does for ``pattern``."""
    if len(pattern) > MAX_PATTERN:
        raise PatternError(f"pattern longer than {MAX_PATTERN} characters")
    if flags not in ("", "i"):
        raise PatternError(f"flags {flags!r} (only \"i\" is supported)")
    out = _Translator(pattern).run()
    # Java's CASE_INSENSITIVE folds ASCII letters only; re.ASCII does the same (the
    # \d \s \w classes are already spelled out, so ASCII changes nothing else).
    python_flags = re.IGNORECASE | re.ASCII if flags == "i" else 0
    re.compile(out, python_flags)
    return out, python_flags


class _Translator:
    def __init__(self, pattern: str):
        self.pattern, self.pos = pattern, 0
        self.out: list[str] = []
        self.can_repeat = False
        self.open_groups = 0

    def refuse(self, construct: str) -> PatternError:
        return PatternError(f"{construct} at offset {self.pos} of the pattern is not supported")

    def run(self) -> str:
        while self.pos < len(self.pattern):
            char = self.pattern[self.pos]
            if char == "\\":
                self.escape()
            elif char == "[":
                self.char_class()
            elif char == "(":
                if self.pattern.startswith("(?:", self.pos):
                    self.emit("(?:", 3, repeatable=False)
                elif self.pattern.startswith("(?", self.pos):
                    raise self.refuse("group construct " + repr(self.pattern[self.pos:self.pos + 3]))
                else:
                    self.emit("(", 1, repeatable=False)
                self.open_groups += 1
            elif char == ")":
                if self.open_groups == 0:
                    raise self.refuse("unbalanced ')'")
                self.open_groups -= 1
                self.emit(")", 1, repeatable=True)
            elif char == "|":
                self.emit("|", 1, repeatable=False)
            elif char == ".":
                self.emit(_DOT, 1, repeatable=True)
            elif char == "^":
                self.emit("^", 1, repeatable=False)
            elif char == "$":
                self.emit(_DOLLAR, 1, repeatable=False)
            elif char in "*+?{":
                self.quantifier()
            elif char in "]}":
                raise self.refuse(f"unescaped {char!r}")
            else:
                self.emit(re.escape(char), 1, repeatable=True)
        if self.open_groups:
            raise PatternError("unbalanced '(' in the pattern is not supported")
        return "".join(self.out)

    def emit(self, text: str, width: int, *, repeatable: bool) -> None:
        self.out.append(text)
        self.pos += width
        self.can_repeat = repeatable

    def escape(self) -> None:
        code = self.pattern[self.pos + 1:self.pos + 2]
        if code in _CLASSES:
            self.emit(f"[{_CLASSES[code]}]", 2, repeatable=True)
        elif code.lower() in _CLASSES:
            self.emit(f"[^{_CLASSES[code.lower()]}]", 2, repeatable=True)
        elif code in _CONTROL:
            self.emit(_CONTROL[code], 2, repeatable=True)
        elif code and code in _META:
            self.emit(re.escape(code), 2, repeatable=True)
        elif not code:
            raise self.refuse("a trailing backslash")
        else:
            raise self.refuse(f"escape '\\{code}'")

    def quantifier(self) -> None:
        if not self.can_repeat:
            raise self.refuse(f"quantifier {self.pattern[self.pos]!r} with nothing to repeat")
        start = self.pos
        if self.pattern[self.pos] == "{":
            match = re.compile(r"\{(\d{1,4})(,(\d{0,4}))?\}").match(self.pattern, self.pos)
            if match is None:
                raise self.refuse("a '{' that is not a {n}, {n,} or {n,m} quantifier")
            low = int(match.group(1))
            high = match.group(3)
            if low > MAX_REPEAT or (high and (int(high) > MAX_REPEAT or int(high) < low)):
                raise self.refuse(f"quantifier {match.group()}")
            self.pos = match.end()
        else:
            self.pos += 1
        following = self.pattern[self.pos:self.pos + 1]
        if following == "+":
            raise self.refuse("possessive quantifier")
        if following == "?":
            self.pos += 1
        self.out.append(self.pattern[start:self.pos])
        self.can_repeat = False

    def char_class(self) -> None:
        start = self.pos
        self.pos += 1
        parts = ["["]
        if self.pattern[self.pos:self.pos + 1] == "^":
            parts.append("^")
            self.pos += 1
        items = 0
        while True:
            char = self.pattern[self.pos:self.pos + 1]
            if not char:
                self.pos = start
                raise self.refuse("unclosed '['")
            if char == "]" and items:
                self.pos += 1
                break
            if char == "[" or self.pattern.startswith("&&", self.pos):
                raise self.refuse("nested class or class intersection")
            if char == "]":
                raise self.refuse("an empty class '[]'")
            if char == "\\":
                code = self.pattern[self.pos + 1:self.pos + 2]
                if code in _CLASSES:
                    parts.append(_CLASSES[code])
                    self.pos += 2
                    items += 1
                    continue
                literal = self.class_escape(code)
            else:
                literal = char
                self.pos += 1
            if self.pattern[self.pos:self.pos + 1] == "-" and self.pattern[self.pos + 1:self.pos + 2] not in ("]", ""):
                self.pos += 1
                high_char = self.pattern[self.pos]
                if high_char == "[":
                    raise self.refuse("nested class or class intersection")
                if high_char == "\\":
                    high = self.class_escape(self.pattern[self.pos + 1:self.pos + 2])
                else:
                    high = high_char
                    self.pos += 1
                if ord(high) < ord(literal):
                    raise self.refuse(f"range {literal}-{high} out of order")
                parts.append(f"{re.escape(literal)}-{re.escape(high)}")
            else:
                parts.append(re.escape(literal))
            items += 1
        parts.append("]")
        self.out.append("".join(parts))
        self.can_repeat = True

    def class_escape(self, code: str) -> str:
        """The character an escape inside ``[...]`` stands for; moves past it."""
        if code in _CONTROL:
            self.pos += 2
            return {"n": "\n", "r": "\r", "t": "\t", "f": "\f"}[code]
        if code and code in _META:
            self.pos += 2
            return code
        raise self.refuse(f"escape '\\{code}' in a class" if code else "a trailing backslash")


_PLAIN = re.compile(r"(?:[^\\^$.|?*+()\[\]{}]|\\[\\^$.|?*+()\[\]{}/-])+")


def probe_strings(pattern: str) -> list[str]:
    """Sample inputs around a pattern of literal alternatives (``^SALES$``, ``LEGAL|SALES``).

    Each literal, the literal with its letters' case swapped (where ``"i"``
    changes the answer) and the literal inside other text (where a search
    and an anchored pattern differ). The routing check samples a variable
    at these, as it samples a number at the literals it is compared with;
    a pattern of any other shape gives none.
    """
    found: list[str] = []
    for alternative in pattern.split("|"):
        body = alternative[1:] if alternative.startswith("^") else alternative
        body = body[:-1] if body.endswith("$") and not body.endswith("\\$") else body
        if not _PLAIN.fullmatch(body):
            return []
        literal = re.sub(r"\\(.)", r"\1", body)
        for text in (literal, literal.swapcase(), f"x{literal}x"):
            if text not in found:
                found.append(text)
    return found
