"""The dashboard's settings as URL query parameters, so a view can be shared as a link.

:func:`settings_query` writes the parameters that differ from their defaults (short, readable
names: ``?threshold=0.6&release=v0.16.0&sample=long_coding_session.json``); :func:`parse_query`
reads them back, checking every value, and names what it could not use instead of failing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from core.profiles import PROFILES

__all__ = ["QUERY_FIELDS", "QueryField", "parse_query", "settings_query"]


@dataclass(frozen=True)
class QueryField:
    name: str  # in the URL
    setting: str  # the dashboard's kept key (a Settings field, or "sample")
    parse: Callable[[str], Any]
    expected: str  # for the message when a value is refused


def _number(low: float, high: float, *, integer: bool) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = float(text)
        if integer:
            if value != int(value):
                raise ValueError(text)
            value = int(value)
        if not low <= value <= high:
            raise ValueError(text)
        return round(value, 4) if not integer else value

    return parse


def _choice(options: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise ValueError(text)
        return text

    return parse


def _scale(text: str) -> float:
    from core.inspections.what_if import WINDOW_SCALES

    value = round(float(text), 2)
    if value not in WINDOW_SCALES:
        raise ValueError(text)
    return value


def _flag(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


def _text(text: str) -> str:
    if not text or len(text) > 300 or any(ch in text for ch in "\n\r\t\x00"):
        raise ValueError(text)
    return text


QUERY_FIELDS: tuple[QueryField, ...] = (
    QueryField("model", "model", _text, "a model name"),
    QueryField("window", "context_length", _number(1_000, 10_000_000, integer=True),
               "a whole number of tokens from 1,000 to 10,000,000"),
    QueryField("reserve", "max_tokens", _number(0, 10_000_000, integer=True),
               "a whole number of tokens from 0 to 10,000,000"),
    QueryField("threshold", "threshold_percent", _number(0.05, 1.0, integer=False), "a share from 0.05 to 1"),
    QueryField("first", "protect_first_n", _number(0, 20, integer=True), "a whole number from 0 to 20"),
    QueryField("last", "protect_last_n", _number(0, 100, integer=True), "a whole number from 0 to 100"),
    QueryField("ratio", "summary_target_ratio", _number(0.10, 0.80, integer=False), "a ratio from 0.10 to 0.80"),
    QueryField("release", "profile", _choice(tuple(PROFILES)), "one of " + ", ".join(PROFILES)),
    QueryField("estimator", "token_estimator", _choice(("hermes", "tiktoken")), "hermes or tiktoken"),
    QueryField("scale", "window_scale", _scale, "one of the what-if window shares (1, 0.9, … 0.1, 0.09, … 0.01)"),
    QueryField("nofloor", "what_if_no_floor", _flag, "1 or 0 (the what-if without the 64K floor)"),
    QueryField("sample", "sample", _text, "the name of a bundled sample"),
)
_BY_NAME = {field.name: field for field in QUERY_FIELDS}


def settings_query(values: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, str]:
    """The URL parameters of ``values`` (kept keys, as :data:`QUERY_FIELDS` names them) that differ
    from ``defaults``; a value that is None is left out."""
    out: dict[str, str] = {}
    for field in QUERY_FIELDS:
        value = values.get(field.setting)
        if value is None or value == defaults.get(field.setting):
            continue
        if isinstance(value, bool):
            out[field.name] = "1" if value else "0"
        else:
            out[field.name] = f"{value:g}" if isinstance(value, float) else str(value)
    return out


def parse_query(params: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``(kept key -> value, problems)`` from URL parameters; unknown parameters are ignored.

    A parameter given twice uses its last value; each refused value is one problem line naming the
    parameter, the value and what was expected.
    """
    values: dict[str, Any] = {}
    problems: list[str] = []
    for name, raw in params.items():
        field = _BY_NAME.get(name)
        if field is None:
            continue
        text = raw[-1] if isinstance(raw, list | tuple) and raw else raw
        text = str(text).strip()
        try:
            values[field.setting] = field.parse(text)
        except (TypeError, ValueError, OverflowError):
            shown = text if len(text) <= 40 else text[:39] + "…"
            problems.append(f"{name}={shown!r} was ignored: expected {field.expected}")
    return values, problems
