"""What both sides of the differential check share: the wire encoding, scripted summaries and
clocks, the prompt reader and the case driver.

Standard library only: the Hermes runner imports this module inside a Hermes venv, where neither
the project nor its dependencies exist. Each side supplies an *engine* (a thin adapter over its
``ContextCompressor``); :func:`run_case` drives it through a case's operations and returns the
result in one JSON shape, so the two results can be compared field by field.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import datetime
from types import SimpleNamespace
from typing import Any, Protocol

TAG = "__cl__"  # marks a value JSON cannot carry (a set, a tuple, NaN, a dict with non-str keys)


# --- wire encoding ---------------------------------------------------------------------------------

def encode(value: Any) -> Any:
    """A JSON-safe, deterministic image of ``value``; :func:`decode` restores it exactly."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return {TAG: "float", "v": repr(value)}
        return value
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value):
            return {key: encode(item) for key, item in value.items()}
        return {TAG: "dict", "items": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, tuple):
        return {TAG: "tuple", "items": [encode(item) for item in value]}
    if isinstance(value, (set, frozenset)):
        # Sorted by repr so the encoding does not depend on hash order.
        return {TAG: type(value).__name__, "items": [encode(item) for item in sorted(value, key=repr)]}
    return {TAG: "repr", "type": type(value).__name__, "v": repr(value)}


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    tag = value.get(TAG)
    if tag is None:
        return {key: decode(item) for key, item in value.items()}
    if tag == "float":
        return float(value["v"])
    if tag == "dict":
        return {decode(k): decode(v) for k, v in value["items"]}
    if tag == "tuple":
        return tuple(decode(item) for item in value["items"])
    if tag == "set":
        return {decode(item) for item in value["items"]}
    if tag == "frozenset":
        return frozenset(decode(item) for item in value["items"])
    raise ValueError(f"cannot decode a {tag!r} value")


def dumps(value: Any) -> str:
    return json.dumps(encode(value), ensure_ascii=True, allow_nan=False)


def loads(text: str) -> Any:
    return decode(json.loads(text))


def result_line(result: dict[str, Any]) -> str:
    """A result as one JSON line; every value in it is already encoded, so it is read back with
    plain ``json.loads`` (decoding would turn encoded NaNs back into values that never compare equal)."""
    return json.dumps(result, ensure_ascii=True, allow_nan=False)


# --- exceptions built from a description ----------------------------------------------------------

_BASES: dict[str, type[BaseException]] = {
    cls.__name__: cls
    for cls in (
        Exception, RuntimeError, NotImplementedError, RecursionError, ValueError, TypeError, KeyError,
        OSError, ConnectionError, ConnectionResetError, ConnectionRefusedError, TimeoutError,
        BrokenPipeError, json.JSONDecodeError,
    )
}


def build_exception(spec: dict[str, Any]) -> BaseException:
    """A fresh exception of a class created on the spot with ``spec["cls"]`` as its name.

    ``base`` picks the built-in class it derives from (so ``isinstance`` tests see what a real
    provider error would give), ``msg`` its text (``None``: no arguments), and ``status_code``,
    ``status`` and ``response_status_code`` the attributes provider SDKs carry.
    """
    base = _BASES[spec.get("base", "Exception")]
    cls = type(spec["cls"], (base,), {})
    msg = spec.get("msg")
    if base is json.JSONDecodeError:
        exc: BaseException = cls(msg or "", "", 0)
    elif msg is None:
        exc = cls()
    else:
        exc = cls(msg)
    for attribute in ("status_code", "status"):
        if attribute in spec:
            setattr(exc, attribute, spec[attribute])
    if "response_status_code" in spec:
        exc.response = SimpleNamespace(status_code=spec["response_status_code"])  # type: ignore[attr-defined]
    return exc


def describe_exception(exc: BaseException) -> dict[str, str]:
    """The built-in class an exception is (its nearest built-in base) and its text."""
    builtin = next(cls for cls in type(exc).__mro__ if cls.__module__ == "builtins")
    return {"type": builtin.__name__, "message": str(exc)}


# --- the summary prompt, read by its layout ------------------------------------------------------

_HEADERS = (("TURNS TO SUMMARIZE:", "first"), ("NEW TURNS TO INCORPORATE:", "iterative"))
_TEMPLATE_FIRST_LINES = ("## Active Task", "## Historical Task Snapshot")
_MEMORY_OPENING = "\n\nMEMORY PROVIDER CONTEXT:\n"
_MEMORY_START, _MEMORY_END = "<memory-provider-context>\n", "\n</memory-provider-context>"
_BUDGET_RE = re.compile(r"Target ~(\d+) tokens")
_DATE_RE = re.compile(r"TEMPORAL ANCHORING: The current date is (\d{4}-\d{2}-\d{2})\.")
_FOCUS_OPENING = '\n\nFOCUS TOPIC: "'


def _focus(after_template: str) -> str | None:
    start = after_template.rfind(_FOCUS_OPENING)
    if start < 0:
        return None
    rest = after_template[start + len(_FOCUS_OPENING):]
    # The focus may hold quotes and newlines: it ends at the quote that closes the line before the
    # instruction paragraph, and that paragraph says PRIORITISE on its first line (both products).
    ends = [match.start() for match in re.finditer('"\n', rest)]
    for end in ends:
        if "PRIORITISE" in rest[end + 2:].split("\n", 1)[0]:
            return rest[:end]
    return rest[: ends[-1]] if ends else rest


def read_prompt(prompt: Any) -> dict[str, Any]:
    """The compared parts of a summary prompt: the serialised turns (and the v0.19.0 memory payload),
    the previous summary, the budget, the focus and the anchoring date. The wording around them is
    each product's own and is not read."""
    if not isinstance(prompt, str):
        return {"layout": f"not a str: {type(prompt).__name__}"}
    found = [(prompt.find(f"\n{h}\n"), h, kind) for h, kind in _HEADERS]
    found = [item for item in found if item[0] >= 0]
    template_at = max(prompt.rfind(f"\n{line}\n") for line in _TEMPLATE_FIRST_LINES)
    if not found or template_at < 0:
        return {"layout": "unrecognised", "start": prompt[:160]}
    header_at, header, kind = min(found)
    turns_start = header_at + len(header) + 2
    if template_at < turns_start:
        return {"layout": "template before the turns"}
    # turns, blank line, one instruction paragraph, blank line, then the template's first heading
    block = prompt[turns_start:template_at]
    if block.endswith("\n"):
        block = block[:-1]
    turns, _, _paragraph = block.rpartition("\n\n")
    memory = None
    cut = turns.rfind(_MEMORY_OPENING)
    if cut >= 0:
        memory_block = turns[cut:]
        turns = turns[:cut]
        open_at = memory_block.find(_MEMORY_START)
        close_at = memory_block.rfind(_MEMORY_END)
        memory = memory_block[open_at + len(_MEMORY_START):close_at] if 0 <= open_at < close_at else memory_block
    previous = None
    if kind == "iterative":
        opening = prompt.find("\nPREVIOUS SUMMARY:\n")
        if 0 <= opening < header_at:
            previous = prompt[opening + len("\nPREVIOUS SUMMARY:\n"):header_at]
            previous = previous[:-1] if previous.endswith("\n") else previous
    after = prompt[template_at:]
    budgets = _BUDGET_RE.findall(after)
    date = _DATE_RE.search(after)
    return {
        "kind": kind,
        "turns": turns,
        "memory": memory,
        "previous": previous,
        "budget": int(budgets[-1]) if budgets else None,
        "focus": _focus(after),
        "date": date.group(1) if date else None,
    }


# --- scripted clocks and summaries ---------------------------------------------------------------

class Script:
    """The case's clocks and scripted summary answers, and a record of every summary call."""

    def __init__(self, case: dict[str, Any]) -> None:
        self.now = float(case.get("clock", 1000.0))
        wall = case.get("wall") or {}
        self.wall_raises = bool(wall.get("raises"))
        self.wall_time = datetime.fromisoformat(wall.get("iso", "2026-07-01T12:00:00+00:00"))
        self.responses: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> datetime:
        if self.wall_raises:
            raise OSError("wall clock unavailable")
        return self.wall_time

    def begin(self, responses: list[dict[str, Any]]) -> None:
        self.responses = list(responses)
        self.calls = []

    def respond(self, prompt: Any, max_tokens: Any, model: Any) -> Any:
        """Record one call and answer it: the next scripted response (the last one repeats)."""
        record = read_prompt(prompt)
        record.update(max_tokens=max_tokens, model=model or None)
        self.calls.append(record)
        answer = self.responses[min(len(self.calls), len(self.responses)) - 1] if self.responses else {"text": ""}
        if "raise" in answer:
            raise build_exception(answer["raise"])
        return answer.get("text")


# --- the case driver -----------------------------------------------------------------------------

class Engine(Protocol):
    """One side's compressor, seen only through what the comparison reads."""

    compression_count: int
    previous_summary: Any
    threshold_tokens: int

    def compress(self, messages: list[Any], op: dict[str, Any]) -> tuple[list[Any], bool]: ...
    def should_compress(self, tokens: int | None) -> bool: ...
    def session_end(self) -> None: ...
    def session_reset(self) -> None: ...
    def usage(self, usage: dict[str, Any]) -> None: ...
    def update_model(self, op: dict[str, Any]) -> None: ...


def _messages_for(op: dict[str, Any], previous: list[Any] | None) -> list[Any]:
    if op.get("base") == "previous":
        # A fresh copy, so nothing one round returned is shared with the next round's input.
        base = decode(json.loads(json.dumps(encode(previous or []))))
        return base + decode(op.get("append", []))
    return decode(op["messages"])


def run_case(case: dict[str, Any], make_engine: Callable[[dict[str, Any], Script], Engine]) -> dict[str, Any]:
    """Drive one engine through the case's operations; one record per operation."""
    script = Script(case)
    result: dict[str, Any] = {"seed": case.get("seed"), "rounds": []}
    try:
        engine = make_engine(case["config"], script)
    except Exception as exc:  # a constructor that raises is an outcome to compare, not a harness error
        result["error"] = describe_exception(exc)
        return result
    probes = case.get("probes", [])
    previous: list[Any] | None = None
    for op in case["ops"]:
        kind = op["op"]
        record: dict[str, Any] = {"op": kind}
        if kind == "advance":
            script.now += op["seconds"]
        elif kind == "session_end":
            engine.session_end()
        elif kind == "session_reset":
            engine.session_reset()
        elif kind == "usage":
            engine.usage(op["usage"])
        elif kind == "update_model":
            engine.update_model(op)
        elif kind == "compress":
            messages = _messages_for(op, previous)
            before = json.dumps(encode(messages))
            script.begin(op.get("responses", []))
            try:
                output, aborted = engine.compress(messages, op)
            except Exception as exc:  # some inputs make a release raise; that is compared too
                record["error"] = describe_exception(exc)
                output, aborted = messages, False
            else:
                record["messages"] = encode(output)
            record["aborted"] = aborted
            record["calls"] = script.calls
            record["input_mutated"] = json.dumps(encode(messages)) != before
            previous = output
        else:
            raise ValueError(f"unknown operation {kind!r}")
        record["compression_count"] = engine.compression_count
        record["previous_summary"] = encode(engine.previous_summary)
        record["threshold"] = engine.threshold_tokens
        record["probes"] = [engine.should_compress(tokens) for tokens in [*probes, None]]
        result["rounds"].append(record)
    return result
