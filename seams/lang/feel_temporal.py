"""FEEL's temporal values: the one set of rules for reading, writing and computing them.

Every FEEL front-end of seams reads dates, times, date-times and durations
here, so a zone name (``@Europe/Paris``), an offset (``+01:00``, ``Z``) or a
years-and-months duration means the same thing in a decision-table cell, a
condition, an IO mapping and a literal-expression decision.

Values are Python's own where Python has the type: ``date``, ``time`` and
``datetime`` (a zone name as a ``ZoneInfo``, an offset as a ``timezone``),
days-and-time durations as ``timedelta``; years-and-months durations are
``YearsMonths`` (a count of months), as Python has none. Text that is no such
value is ``ValueError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from decimal import Decimal
from functools import total_ordering
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?"
                   r"(?:(Z|z)|([+-])([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?|@([A-Za-z][A-Za-z0-9_+\-/]{0,60}))?")
_DAYS_TIME = re.compile(r"(-)?P(?:([0-9]+)D)?(?:T(?=[0-9])(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+)(?:\.([0-9]+))?S)?)?")
_YEARS_MONTHS = re.compile(r"(-)?P(?=[0-9])(?:([0-9]+)Y)?(?:([0-9]+)M)?")
_FULL_DURATION = re.compile(r"(-)?P(?=[0-9T])(?:([0-9]+)Y)?(?:([0-9]+)M)?(?:([0-9]+)D)?"
                            r"(?:T(?=[0-9])(?:([0-9]+)H)?(?:([0-9]+)M)?(?:([0-9]+)(?:\.([0-9]*))?S)?)?")
_MAX_DAYS = 999_999_999


@total_ordering
@dataclass(frozen=True)
class YearsMonths:
    """A FEEL years-and-months duration, as a signed count of months."""

    months: int

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, YearsMonths):
            return NotImplemented
        return self.months < other.months

    def __str__(self) -> str:
        return years_months_text(self)


class BeyondPython(ValueError):
    """A temporal value FEEL allows that Python's types cannot hold: a year outside 1-9999 (FEEL goes to
    999,999,999 either side) or a fraction of a second finer than microseconds (FEEL has nanoseconds).
    Its message says ``BEYOND_PYTHON`` so a caller can tell it from text that is no value at all."""


BEYOND_PYTHON = "beyond what Python's datetime holds"


_WIDE_DATE = re.compile(r"-?[0-9]{4,9}-[0-9]{2}-[0-9]{2}")


def parse_date(text: str) -> date:
    found = _DATE.fullmatch(text)
    if found is None:
        if _WIDE_DATE.fullmatch(text.split("T")[0]):
            raise BeyondPython(f"a year outside 1-9999, {BEYOND_PYTHON}: {text!r}")
        raise ValueError(f"not a FEEL date: {text!r}")
    if found[1] == "0000":
        raise BeyondPython(f"a year outside 1-9999, {BEYOND_PYTHON}: {text!r}")
    return date(int(found[1]), int(found[2]), int(found[3]))


def parse_time(text: str) -> time:
    found = _TIME.fullmatch(text)
    if found is None:
        raise ValueError(f"not a FEEL time: {text!r}")
    hour, minute, second, fraction, zulu, sign, off_h, off_m, off_s, zone = found.groups()
    if int(hour) > 23 or int(minute) > 59 or int(second) > 59:
        raise ValueError(f"no such time: {text!r}")
    if fraction and fraction[6:].strip("0"):
        raise BeyondPython(f"a fraction of a second finer than microseconds, {BEYOND_PYTHON}: {text!r}")
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    return time(int(hour), int(minute), int(second), micro, tzinfo=_zone(zulu, sign, off_h, off_m, off_s, zone))


def _zone(zulu, sign, hours, minutes, seconds, name) -> tzinfo | None:
    if zulu:
        return timezone.utc
    if sign:
        span = timedelta(hours=int(hours), minutes=int(minutes), seconds=int(seconds or 0))
        if span > timedelta(hours=14):
            raise ValueError("offset beyond 14 hours")
        return timezone(-span if sign == "-" else span)
    if name:
        return zone_named(name)
    return None


def zone_named(name: str) -> tzinfo:
    """An IANA zone (``Europe/Paris``); ``Z``/``UTC`` is UTC; an unknown name is ValueError."""
    if name in ("Z", "UTC", "Etc/UTC"):
        return ZoneInfo("Etc/UTC") if name == "Etc/UTC" else timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"time zone {name!r} is not in this machine's time zone database") from exc


def parse_date_time(text: str) -> datetime:
    """``2024-01-01T10:30:00`` with an optional offset or ``@zone``; a bare date is its midnight."""
    day, sep, clock = text.partition("T")
    if not sep:
        return datetime.combine(parse_date(text), time())
    end_of_day = clock.startswith("24:00:00") and not clock[8:9].isdigit() and not clock.startswith("24:00:00.")
    moment = parse_time("00" + clock[2:] if end_of_day else clock)
    value = datetime.combine(parse_date(day), moment.replace(tzinfo=None), tzinfo=moment.tzinfo)
    return value + timedelta(days=1) if end_of_day else value


def parse_duration(text: str) -> timedelta | YearsMonths:
    """A days-and-time (``P1DT2H``) or years-and-months (``P1Y2M``) duration; a mix keeps both as days-time
    only when it has no years or months."""
    found = _FULL_DURATION.fullmatch(text)
    if found is None:
        raise ValueError(f"not a FEEL duration: {text!r}")
    sign, years, months, days, hours, minutes, seconds, fraction = found.groups()
    if years or months:
        if days or hours or minutes or seconds:
            raise ValueError(f"a duration mixing years or months with days or time: {text!r}")
        total = int(years or 0) * 12 + int(months or 0)
        return YearsMonths(-total if sign else total)
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    span = timedelta(days=int(days or 0), hours=int(hours or 0), minutes=int(minutes or 0),
                     seconds=int(seconds or 0), microseconds=micro)
    return -span if sign else span


def parse_temporal(text: str) -> object:
    """An ``@"..."`` literal: a date, time, date and time or duration, by its shape."""
    if text.startswith(("P", "-P")):
        return parse_duration(text)
    if "T" in text:
        return parse_date_time(text)
    if _DATE.fullmatch(text):
        return parse_date(text)
    return parse_time(text)


def years_months_between(start: date, end: date) -> YearsMonths:
    """Whole months from start to end (``years and months duration(from, to)``)."""
    months = (end.year - start.year) * 12 + end.month - start.month
    start_rest = _rest(start)
    end_rest = _rest(end)
    if months > 0 and end_rest < start_rest:
        months -= 1
    elif months < 0 and end_rest > start_rest:
        months += 1
    return YearsMonths(months)


def _rest(value: date) -> tuple:
    """What counts below the month: the day only (the TCK, after DMN 1.5, ignores the time of day)."""
    return (value.day,)


def add_months(value: date, months: int) -> date:
    """value moved by whole months, the day clamped to the month's last (31 Jan + 1 month = 28/29 Feb)."""
    index = value.year * 12 + value.month - 1 + months
    year, month = divmod(index, 12)
    if not 1 <= year <= 9999:
        raise BeyondPython(f"a year outside 1-9999, {BEYOND_PYTHON}")
    last = _month_days(year, month + 1)
    return value.replace(year=year, month=month + 1, day=min(value.day, last))


def _month_days(year: int, month: int) -> int:
    if month == 12:
        return 31
    return (date(year, month + 1, 1) - timedelta(days=1)).day


def offset_of(value: time | datetime) -> timedelta | None:
    """The UTC offset; a time with a zone name takes the zone's offset on 1 January 1970."""
    if value.tzinfo is None:
        return None
    if isinstance(value, datetime):
        return value.utcoffset()
    return value.tzinfo.utcoffset(datetime(1970, 1, 1, value.hour, value.minute))


def time_seconds(value: time) -> Decimal:
    """Seconds since midnight UTC (local when the time has no offset), for comparing and subtracting times."""
    seconds = Decimal(value.hour * 3600 + value.minute * 60 + value.second) + Decimal(value.microsecond) / 1000000
    offset = offset_of(value)
    if offset is not None:
        seconds -= Decimal(offset.days * 86400 + offset.seconds)
    return seconds


def _fraction(micro: int) -> str:
    return f".{micro:06d}".rstrip("0") if micro else ""


def zone_text(zone: tzinfo | None, moment: datetime | None) -> str:
    if zone is None:
        return ""
    if isinstance(zone, ZoneInfo):
        return f"@{zone.key}"
    offset = zone.utcoffset(moment)
    if offset is None:
        return ""
    if not offset:
        return "Z"
    sign = "-" if offset < timedelta(0) else "+"
    seconds = abs(int(offset.total_seconds()))
    text = f"{sign}{seconds // 3600:02d}:{seconds % 3600 // 60:02d}"
    return text + (f":{seconds % 60:02d}" if seconds % 60 else "")


def time_text(value: time) -> str:
    return (f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}{_fraction(value.microsecond)}"
            + zone_text(value.tzinfo, None))


def date_time_text(value: datetime) -> str:
    return (f"{value.date().isoformat()}T{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
            f"{_fraction(value.microsecond)}" + zone_text(value.tzinfo, value))


def days_time_text(value: timedelta) -> str:
    """A days-and-time duration as FEEL writes it (``P2DT3H``, ``PT0S``, ``-P1D``)."""
    sign = "-" if value < timedelta(0) else ""
    value = abs(value)
    days, rest = value.days, value.seconds
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    clock = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if seconds or value.microseconds:
        clock += f"{seconds}{_fraction(value.microseconds)}S"
    if not days and not clock:
        return "PT0S"
    return f"{sign}P" + (f"{days}D" if days else "") + (f"T{clock}" if clock else "")


def years_months_text(value: YearsMonths) -> str:
    sign = "-" if value.months < 0 else ""
    years, months = divmod(abs(value.months), 12)
    if not years and not months:
        return "P0M"
    return f"{sign}P" + (f"{years}Y" if years else "") + (f"{months}M" if months else "")


def within_range(span: timedelta) -> bool:
    return abs(span.days) <= _MAX_DAYS
