"""What many tests share: builders for small hand-made conversations, and summarizers that record."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from core.summarizers.base import SummaryRequest
from core.summarizers.extractive import ExtractiveSummarizer


def sys(content: str = "You are a coding agent.") -> dict[str, Any]:
    return {"role": "system", "content": content}


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def asst(content: Any = None, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
    return message


def call(call_id: str, name: str, args: Any) -> dict[str, Any]:
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def tool(call_id: str, content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def failing(exc: BaseException):
    def summarizer(prompt: str, max_tokens: int) -> str:
        raise exc

    return summarizer


class Recorder:
    """A summarizer that records what it was asked and answers with a fixed body."""

    def __init__(self, answer: Any = "## Active Task\nNone.") -> None:
        self.answer = answer
        self.calls: list[tuple[str, int]] = []

    def __call__(self, prompt: str, max_tokens: int) -> Any:
        self.calls.append((prompt, max_tokens))
        return self.answer

    @property
    def prompts(self) -> list[str]:
        return [prompt for prompt, _max_tokens in self.calls]

    def seen(self) -> str:
        """Every prompt it was sent, as one text."""
        return "\n".join(self.prompts)


class CapturingExtractive(ExtractiveSummarizer):
    """The offline summarizer, remembering each ``SummaryRequest`` the compressor made and its answer."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[SummaryRequest] = []
        self.answers: list[str] = []

    def summarize_request(self, request: SummaryRequest) -> str:
        self.requests.append(request)
        answer = super().summarize_request(request)
        self.answers.append(answer)
        return answer

    def seen(self) -> str:
        """Every text it was given (prompt, turns, previous summary, focus) and wrote, as one text."""
        pieces: list[str] = []
        for request in self.requests:
            pieces += [request.prompt, request.serialized_turns, request.previous_summary or "", request.focus_topic or ""]
            pieces += list(strings_in(request.turns))
            pieces.append(json.dumps(request.turns, ensure_ascii=False, default=str))
        return "\n".join(pieces + self.answers)


def strings_in(value: Any) -> Iterator[str]:
    """Every string inside ``value`` (mapping keys and values, list items), depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)
    elif value is not None:
        yield str(value)


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def pairs_valid(messages: list[dict[str, Any]]) -> bool:
    call_ids = {
        (c.get("call_id") or c.get("id"))
        for m in messages
        if m.get("role") == "assistant"
        for c in (m.get("tool_calls") or [])
    }
    result_ids = {m.get("tool_call_id") for m in messages if m.get("role") == "tool" and m.get("tool_call_id")}
    return call_ids - {None, ""} <= result_ids and result_ids <= call_ids


def long_agent_run(n_rounds: int = 12, size: int = 2000, with_system: bool = True) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [sys()] if with_system else []
    messages.append(user("Please fix the failing tests in src/app.py"))
    for r in range(n_rounds):
        cid = f"call_{r}"
        messages.append(asst(f"Step {r}", [call(cid, "terminal", {"command": f"pytest -q tests/test_{r}.py"})]))
        messages.append(tool(cid, json.dumps({"output": f"round {r} " + "x" * size, "exit_code": r % 2})))
    messages.append(user("Thanks. Now run the full suite."))
    return messages


# A short coding session with a failing test, a user constraint and a patch: the strategy and
# retention views and their pages are checked on it.
CODING_SESSION = [
    sys(),
    user("Fix src/app.py and keep tests/test_app.py green."),
    asst(None, [call("c1", "read_file", {"path": "src/app.py"})]),
    tool("c1", "def handler(request):\n    return render_page(request, status=500)\n" + "# filler line\n" * 10),
    asst(None, [call("c2", "terminal", {"command": "pytest -q"})]),
    tool("c2", "FAILED tests/test_app.py::test_ok - AssertionError: 500 != 200\n1 failed, 3 passed in 0.12s"),
    user("Use port 8080 instead."),
    asst(None, [call("c3", "patch", {"path": "src/app.py"})]),
    tool("c3", "patched"),
    asst("Fixed."),
    user("Run it again."),
]


class HtmlTable:
    """An HTML table (``core.render.html_tables``) read back: its tags, its headings as
    ``(data-column, text)``, its rows of cell texts, and each cell's ``style`` (``styles``, row by row)."""

    def __init__(self, markup: str) -> None:
        import html.parser

        table = self
        self.tags: list[str] = []
        self.headings: list[tuple[str | None, str]] = []
        self.rows: list[list[str]] = []
        self.styles: list[list[str]] = []

        class Reader(html.parser.HTMLParser):
            text: list[str] | None = None
            column: str | None = None

            def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                table.tags.append(tag)
                if tag == "tr":
                    table.rows.append([])
                    table.styles.append([])
                elif tag in ("th", "td"):
                    self.text, self.column = [], dict(attrs).get("data-column")
                    if tag == "td":
                        table.styles[-1].append(dict(attrs).get("style") or "")

            def handle_endtag(self, tag: str) -> None:
                if tag in ("th", "td") and self.text is not None:
                    text = "".join(self.text)
                    if tag == "th":
                        table.headings.append((self.column, text))
                    else:
                        table.rows[-1].append(text)
                    self.text = None

            def handle_data(self, data: str) -> None:
                if self.text is not None:
                    self.text.append(data)

        Reader().feed(markup)
        self.rows = [row for row in self.rows if row]  # the heading's row holds no cell
        self.styles = [row for row in self.styles if row]

    @property
    def cells(self) -> list[str]:
        return [cell for row in self.rows for cell in row]


class TextBlocks:
    """Plain-text blocks (``core.render.text_blocks``) read back: every tag with its attributes, and
    each block's text by its ``data-text`` name as a browser shows it (without the line feed HTML
    drops right after ``<pre>``)."""

    def __init__(self, markup: str) -> None:
        import html.parser

        found = self
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: dict[str, str] = {}

        class Reader(html.parser.HTMLParser):
            name: str | None = None

            def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
                found.tags.append((tag, dict(attrs)))
                if tag == "pre" and dict(attrs).get("data-text") is not None:
                    self.name = str(dict(attrs)["data-text"])
                    found.texts[self.name] = ""

            def handle_endtag(self, tag: str) -> None:
                if tag == "pre":
                    self.name = None

            def handle_data(self, data: str) -> None:
                if self.name is not None:
                    found.texts[self.name] += data

        reader = Reader(convert_charrefs=True)
        reader.feed(markup)
        reader.close()
        self.texts = {name: text.removeprefix("\n") for name, text in self.texts.items()}


def release_bands(markup: str) -> list[tuple[str, list[tuple[str, int, int]]]]:
    """``(release, [(zone, first, last), ...])`` per band of Release comparison's zone bars, read
    from the bars' titles (``core.render.releases.release_zones_html``)."""
    import re

    bands: dict[str, list[tuple[str, int, int]]] = {}
    for release, zone, first, last in re.findall(
            r'title="(v[\d.]+) · (HEAD|MIDDLE|TAIL): messages? (\d+)(?:–(\d+))?"', markup):
        bands.setdefault(release, []).append((zone, int(first), int(last or first)))
    return list(bands.items())


def count_compressions(patch: Any) -> list[str]:
    """With ``patch`` (a ``pytest.MonkeyPatch``), every ``ContextCompressor.compress`` call is made
    as before and its release appended to the list returned, in call order."""
    from core import ContextCompressor

    made: list[str] = []
    compress = ContextCompressor.compress

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        made.append(self.config.profile)
        return compress(self, *args, **kwargs)

    patch.setattr(ContextCompressor, "compress", counted)
    return made
