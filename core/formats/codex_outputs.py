"""What Codex sent its model of a tool's output, where that is not what the rollout keeps.

Codex 0.56.0 to 0.58.x shorten every ``function_call_output`` and ``custom_tool_call_output`` as
they enter the conversation history the model is sent, after writing the full item to the
rollout (its exec tool had already cut a command's output to its first and last 128 lines and
10 KiB, with a ``Total output lines: N`` header: that part is in the rollout). The history's rule:

* an output held as one text, over 10,240 bytes (UTF-8) or over 256 lines (``\\n``-ended, a last
  line without one counted, as Rust's ``str::lines``), becomes ``Total output lines: N``, a blank
  line, at most 5,120 bytes of its first 128 lines, a marker, and the end of its last 128 lines
  (those left after the first 128) up to 10,240 bytes for the head, marker and tail together. The
  marker is ``\\n[... omitted K of N lines ...]\\n\\n`` when lines were left out, else
  ``\\n[... output truncated to fit 10240 bytes ...]\\n\\n``. Cuts fall on character boundaries.
  The text is the output as the item holds it: for the shell tool a JSON object, one line, whose
  ``output`` is the command's text, so a long file read is cut to its first 5,120 bytes;
* an output held as a list of parts shares 10,240 bytes among its text parts in order: the part
  that crosses the budget keeps its first bytes, later text parts are left out and counted in a
  last part ``[omitted K text items ...]``; images are kept.

Later releases cut by tokens instead (a policy per model family); they are not reproduced here, so
their rollouts are counted as written. Which rule applies is read from the rollout's
``cli_version``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["HISTORY_RULE", "ModelCopy", "history_rule_applies", "model_copy"]

MAX_BYTES = 10 * 1024
MAX_LINES = 256
HEAD_LINES = MAX_LINES // 2
TAIL_LINES = MAX_LINES - HEAD_LINES
HEAD_BYTES = MAX_BYTES // 2
#: The releases whose history shortens tool outputs this way (from, up to but not including).
FIRST_VERSION, NEXT_RULE_VERSION = (0, 56, 0), (0, 59, 0)
HISTORY_RULE = "codex 0.56-0.58: 10,240 bytes / 256 lines, head and tail"
#: The output items the history shortens.
SHORTENED_ITEMS = frozenset({"function_call_output", "custom_tool_call_output"})

# Bounded and starting where a run of digits starts: a long run of digits is never rescanned.
_VERSION_RE = re.compile(r"(?<!\d)(\d{1,9})\.(\d{1,9})\.(\d{1,9})")


def _version(text: Any) -> tuple[int, int, int] | None:
    match = _VERSION_RE.match(text.strip()) if isinstance(text, str) else None
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def history_rule_applies(cli_version: Any) -> bool:
    """Whether the Codex release ``cli_version`` (``"0.58.0"``) shortens outputs by :data:`HISTORY_RULE`."""
    version = _version(cli_version)
    return version is not None and FIRST_VERSION <= version < NEXT_RULE_VERSION


@dataclass(frozen=True)
class ModelCopy:
    """The shortened copy of one output the model read, and what the shortening cut."""

    content: Any  # in the message's own form: a text, or a list of parts
    bytes: int  # UTF-8 bytes of the output's text as the rollout keeps it
    kept_bytes: int  # of those, the bytes the copy still holds
    sent_bytes: int  # UTF-8 bytes of the copy's text (header and marker included)
    lines: int  # the output's lines, as the rule counts them (0 for a list of parts)
    marker: str

    def to_dict(self) -> dict[str, Any]:
        return {"rule": HISTORY_RULE, "bytes": self.bytes, "kept_bytes": self.kept_bytes,
                "cut_bytes": self.bytes - self.kept_bytes, "sent_bytes": self.sent_bytes, "lines": self.lines,
                "marker": self.marker, "content": self.content}


def _lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _head(data: bytes, limit: int) -> bytes:
    """The longest start of ``data`` (UTF-8) of at most ``limit`` bytes that ends between characters."""
    end = min(limit, len(data))
    while 0 < end < len(data) and data[end] & 0xC0 == 0x80:
        end -= 1
    return data[:end]


def _tail(data: bytes, limit: int) -> bytes:
    """The longest end of ``data`` of at most ``limit`` bytes that starts at a character."""
    start = max(0, len(data) - limit)
    while start < len(data) and data[start] & 0xC0 == 0x80:
        start += 1
    return data[start:]


def _shorten_text(text: str) -> ModelCopy | None:
    data = text.encode("utf-8", "surrogatepass")
    total = _lines(text)
    if len(data) <= MAX_BYTES and total <= MAX_LINES:
        return None
    segments = data.split(b"\n")
    if segments and segments[-1] == b"":
        segments.pop()
        sizes = [len(segment) + 1 for segment in segments]
    else:
        sizes = [len(segment) + 1 for segment in segments]
        if sizes:
            sizes[-1] -= 1  # the last line has no newline
    head_take = min(HEAD_LINES, len(sizes))
    tail_take = min(TAIL_LINES, len(sizes) - head_take)
    omitted = len(sizes) - head_take - tail_take
    head_slice = data[:sum(sizes[:head_take])]
    tail_slice = data[len(data) - sum(sizes[len(sizes) - tail_take:]):] if tail_take else b""
    marker = (f"\n[... omitted {omitted} of {total} lines ...]\n\n" if omitted
              else f"\n[... output truncated to fit {MAX_BYTES} bytes ...]\n\n")
    encoded_marker = marker.encode()
    head = _head(head_slice, min(HEAD_BYTES, MAX_BYTES - len(encoded_marker)))
    remaining = MAX_BYTES - len(head) - len(encoded_marker)
    tail = _tail(tail_slice, remaining) if remaining > 0 else b""
    body = head + encoded_marker + tail
    copy = f"Total output lines: {total}\n\n".encode() + body
    return ModelCopy(copy.decode("utf-8", "surrogatepass"), len(data), len(head) + len(tail), len(copy), total,
                     marker.strip())


def _shorten_parts(parts: list[Any]) -> ModelCopy | None:
    remaining = MAX_BYTES
    omitted = 0
    out: list[Any] = []
    total = kept = 0
    changed = False
    for part in parts:
        if not (isinstance(part, dict) and part.get("type") == "text"):
            out.append(part)
            continue
        data = str(part.get("text", "")).encode("utf-8", "surrogatepass")
        total += len(data)
        if remaining == 0:
            omitted += 1
            changed = True
        elif len(data) <= remaining:
            out.append(part)
            remaining -= len(data)
            kept += len(data)
        else:
            cut = _head(data, remaining)
            if cut:
                out.append({**part, "text": cut.decode("utf-8", "surrogatepass")})
            kept += len(cut)
            remaining = 0
            changed = True
    if not changed:
        return None
    marker = ""
    if omitted:
        marker = f"[omitted {omitted} text items ...]"
        out.append({"type": "text", "text": marker})
    sent = sum(len(str(p.get("text", "")).encode("utf-8", "surrogatepass")) for p in out
               if isinstance(p, dict) and p.get("type") == "text")
    content: Any = out[0]["text"] if len(out) == 1 and out[0].get("type") == "text" else out
    return ModelCopy(content, total, kept, sent, 0, marker)


def model_copy(raw_output: Any, content: Any) -> ModelCopy | None:
    """What the history of Codex 0.56-0.58 sent of an output item whose ``output`` is ``raw_output``
    and whose message content is ``content``; None when it was sent as it is."""
    if isinstance(raw_output, str):
        return _shorten_text(content) if isinstance(content, str) else None
    if isinstance(raw_output, list):
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        return _shorten_parts(parts) if isinstance(parts, list) else None
    return None
