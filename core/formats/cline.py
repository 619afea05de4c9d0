"""Cline, Roo Code and Kilo Code task folders (``.../globalStorage/<extension>/tasks/<task id>/``).

A task folder holds ``api_conversation_history.json`` (the conversation: Anthropic messages, read by
:mod:`core.formats.cline_history`), ``ui_messages.json`` (older versions: ``claude_messages.json``;
the chat panel's records, read by :mod:`core.formats.cline_ui`) and ``task_metadata.json`` (the
files and models the task used). ``load`` takes the folder or any of the files; a file given by
path brings its siblings. Uploaded bytes are read alone: the history without the panel's usage,
the panel records as the panel showed them.

With both files the history is the conversation; the panel's ``api_req_started`` records give each
request's usage (the assistant message two places after their ``conversationHistoryIndex``, or in
order when they carry none), the rest of the panel is metadata. Compaction points: Cline's
``summarize_task`` / ``condense`` calls and Roo's ``isSummary`` messages (with the token counts of
Roo's ``condense_context`` record), and every new ``conversationHistoryDeletedRange`` that no summary
explains (``cline-truncation``: the extension stopped sending those messages).

The history alone is plain Anthropic messages; it is told apart by the file name, or by what only
these extensions write (``<environment_details>`` / ``<task>`` in user text, ``modelInfo`` /
``metrics`` / ``ts`` on messages), so a plain Anthropic export still reads as ``anthropic``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.formats.cline_history import HistoryConverter
from core.formats.cline_ui import PanelConverter, kind_of_record, panel_reason, requests
from core.formats.fields import SetAside
from core.formats.messages import Builder, FieldProblem, text_of
from core.formats.model import CompactionEvent, Conversation, FormatError, SessionInfo
from core.formats.source import (
    DEFAULT_MAX_BYTES,
    InputSource,
    JsonProblem,
    decode_all,
    open_input,
    parse_json_problem,
)
from core.formats.spec import FormatSpec

NAME = "cline"
HISTORY = "api_conversation_history.json"
PANEL = ("ui_messages.json", "claude_messages.json")
METADATA = "task_metadata.json"
MARK_KEYS = ("modelInfo", "metrics", "ts", "isSummary", "condenseParent", "condenseId")
TITLE_CHARS = 60


def _is_history(doc: Any) -> bool:
    return (isinstance(doc, list) and bool(doc)
            and all(isinstance(m, dict) and m.get("role") in ("user", "assistant") and "content" in m for m in doc[:50]))


def _user_texts(doc: list[Any]) -> list[str]:
    texts = []
    for message in doc[:4]:
        content = message.get("content")
        blocks = [content] if isinstance(content, str) else content if isinstance(content, list) else []
        texts += [b if isinstance(b, str) else str(b.get("text", "")) for b in blocks if isinstance(b, (str, dict))]
    return texts


def _has_marks(doc: list[Any]) -> bool:
    if any(key in message for message in doc[:50] for key in MARK_KEYS):
        return True
    return any("<environment_details>" in text or text.lstrip().startswith("<task>") for text in _user_texts(doc))


def _is_panel(doc: Any) -> bool:
    return (isinstance(doc, list) and bool(doc)
            and all(isinstance(r, dict) and isinstance(r.get("ts"), (int, float)) and r.get("type") in ("say", "ask")
                    for r in doc[:50]))


def _is_metadata(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("files_in_context"), list) and (
        "model_usage" in doc or "environment_history" in doc)


def looks_like(doc: Any) -> bool:
    return (_is_history(doc) and _has_marks(doc)) or _is_panel(doc) or _is_metadata(doc)


def looks_like_file(name: str, doc: Any) -> bool:
    return ((name == HISTORY and _is_history(doc)) or (name in PANEL and _is_panel(doc))
            or (name == METADATA and _is_metadata(doc)))


def looks_like_folder(path: Path) -> bool:
    return any((path / name).is_file() for name in (HISTORY, *PANEL))


# ---------------------------------------------------------------------------------------------
# Reading the task's files


@dataclass
class _Task:
    name: str  # what errors and the session are named after
    task_id: str
    history: list[Any] | None = None
    panel: list[Any] | None = None
    panel_name: str = PANEL[0]
    metadata: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)


def _read(path: Path, max_bytes: int) -> Any:
    src = open_input(path, str(path), max_bytes)
    text = decode_all(src)
    try:
        return parse_json_problem(text[1:] if text.startswith("\ufeff") else text)
    except JsonProblem as exc:
        raise src.error(exc.where, exc.what) from None


def _siblings(task: _Task, folder: Path, max_bytes: int, required: bool) -> None:
    """The task's other files in ``folder``; a damaged one is a warning unless the conversation needs it."""
    wanted: list[tuple[str, str]] = []
    if task.history is None and (folder / HISTORY).is_file():
        wanted.append(("history", HISTORY))
    if task.panel is None:
        wanted += [("panel", name) for name in PANEL if (folder / name).is_file()][:1]
    if task.metadata is None and (folder / METADATA).is_file():
        wanted.append(("metadata", METADATA))
    for slot, name in wanted:
        try:
            doc = _read(folder / name, max_bytes)
        except FormatError as exc:
            if required and slot == "history":
                raise
            task.warnings.append(f"{exc}; the task is read without it")
            continue
        if slot == "history" and _is_history(doc):
            task.history = doc
        elif slot == "panel" and _is_panel(doc):
            task.panel, task.panel_name = doc, name
        elif slot == "metadata" and _is_metadata(doc):
            task.metadata = doc
        elif doc not in ([], {}):
            task.warnings.append(f"{folder / name}: not the layout the extension writes for it; the task is read without it")


def parse_document(doc: Any, src: InputSource, session: str | None) -> Conversation:
    folder = src.path.parent if src.path is not None else None
    name = Path(src.name).name
    task = _Task(src.name, folder.name if folder is not None else name)
    if _is_panel(doc):
        task.panel, task.panel_name = doc, name if name in PANEL else PANEL[0]
    elif _is_metadata(doc):
        task.metadata = doc
    elif _is_history(doc):
        task.history = doc
    else:
        raise FieldProblem(None, "expected a Cline task file: api_conversation_history.json (a list of messages), "
                                 "ui_messages.json (a list of say/ask records) or task_metadata.json")
    if folder is not None and name in (HISTORY, *PANEL, METADATA):
        _siblings(task, folder, DEFAULT_MAX_BYTES, required=False)
    if task.history is None and task.panel is None:
        raise FieldProblem(None, f"this is a task's {METADATA}: it lists the files and models the task used, not its "
                                 f"messages; give the task folder or its {HISTORY}")
    return _convert(task)


def parse_folder(folder: Path, name: str, session: str | None, max_bytes: int) -> Conversation:
    task = _Task(name, folder.name)
    _siblings(task, folder, max_bytes, required=True)
    if task.history is None and task.panel is None:
        raise FormatError(f"{name}: a task folder without a readable {HISTORY} or {PANEL[0]}")
    return _convert(task)


# ---------------------------------------------------------------------------------------------
# The conversation


def _convert(task: _Task) -> Conversation:
    builder = Builder(NAME, task.name, unit="item")
    tally = builder.tally
    model = None
    if task.history is not None:
        history = HistoryConverter(builder)
        for index, message in enumerate(task.history):
            where = f"{HISTORY}[{index}]"
            history.add(index, message, where)
            tally.place((HISTORY, index), where)
        history.finish()
        model = history.model
        for index, record in enumerate(task.panel or []):
            where = f"{task.panel_name}[{index}]"
            if isinstance(record, dict):
                tally.meta((task.panel_name, index), panel_reason(record), where)
            else:
                tally.skip((task.panel_name, index), "records that are not objects", where)
        if task.panel:
            _panel_usage(task, history, builder)
        _events(task, history, builder)
    else:
        assert task.panel is not None
        panel = PanelConverter(builder)
        for index, record in enumerate(task.panel):
            panel.add(index, record, f"{task.panel_name}[{index}]")
        builder.warnings.extend(panel.aside.warnings())
        tally.unit = "record"
        builder.warnings.append(
            f"read from {task.panel_name} alone (what the chat panel showed): the output of tools other than "
            f"commands is not in it, and the extension's requests held more; {HISTORY} has the conversation"
        )
    if task.metadata is not None:
        tally.meta((METADATA,), "task metadata (files in context, models used, environment)", METADATA)
        model = model or _metadata_model(task.metadata)
    builder.warnings[:0] = task.warnings
    first_user = next((text_of(m["content"]) for m in builder.messages if m["role"] == "user"), "")
    title = " ".join(first_user.replace("<task>", " ").replace("</task>", " ").split())
    info = SessionInfo(id=task.task_id, title=(title[: TITLE_CHARS - 1] + "…") if len(title) > TITLE_CHARS else title or None,
                       message_count=len(builder), model=model)
    return builder.build(model=model, sessions=[info], session_id=task.task_id)


def _panel_usage(task: _Task, history: HistoryConverter, builder: Builder) -> None:
    """Each request's usage on the assistant message that answered it (module docstring)."""
    aside = SetAside()
    found = requests(task.panel or [], task.panel_name, aside)
    by_order = [history.assistant_at[i] for i in sorted(history.assistant_at)]
    indexed = all(request.history_index is not None for request in found)
    placed = 0
    for number, request in enumerate(found):
        if request.usage is None:
            continue
        if indexed:
            target = history.assistant_at.get(request.history_index + 2)  # type: ignore[operator]
        else:
            target = by_order[number] if number < len(by_order) else None
        if target is not None:
            builder.usage[target] = request.usage
            placed += 1
    if not indexed and len(found) != len(by_order):
        builder.warnings.append(
            f"{task.panel_name} has {len(found)} API request records for {len(by_order)} assistant messages and no "
            "history indexes: usage was matched in order and may be off where requests failed or were retried"
        )
    builder.metadata["requests_with_usage"] = placed
    builder.warnings.extend(aside.warnings())


def _events(task: _Task, history: HistoryConverter, builder: Builder) -> None:
    events = [CompactionEvent(s.position, s.kind, summary=s.text, source=s.where) for s in history.summaries]
    condensed = [r for r in task.panel or [] if isinstance(r, dict) and kind_of_record(r) == "condense_context"]
    roo = [event for event in events if event.kind == "roo-condense"]
    for event, record in zip(roo, condensed, strict=False):
        details = record.get("contextCondense") if isinstance(record.get("contextCondense"), dict) else {}
        if isinstance(details.get("prevContextTokens"), int):
            event.pre_tokens = details["prevContextTokens"]
        event.details.update({k: details[k] for k in ("newContextTokens", "cost") if k in details})
    previous = None
    for request in requests(task.panel or [], task.panel_name):  # (its problems were reported by _panel_usage)
        deleted = request.deleted
        if deleted is None or deleted == previous:
            continue
        previous = deleted
        position = history.first_at.get(deleted[1] + 1)
        start = history.first_at.get(deleted[0], 0)
        if position is None or any(start <= e.position <= position + 3 for e in events if e.kind != "cline-truncation"):
            continue  # past the end of the history, or the summary that made it is already an event
        events.append(CompactionEvent(position, "cline-truncation", source=f"{task.panel_name}[{request.ui_index}]",
                                      details={"deleted_range": list(deleted)}))
    builder.events.extend(sorted(events, key=lambda e: e.position))


def _metadata_model(metadata: dict[str, Any]) -> str | None:
    usage = metadata.get("model_usage")
    if isinstance(usage, list) and usage and isinstance(usage[-1], dict) and isinstance(usage[-1].get("model_id"), str):
        return usage[-1]["model_id"]
    return None


FORMAT = FormatSpec(
    name=NAME,
    description="Cline / Roo Code / Kilo Code task folders (api_conversation_history.json, ui_messages.json)",
    detect_document=looks_like,
    detect_file=looks_like_file,
    parse_document=parse_document,
    detect_directory=looks_like_folder,
    parse_directory=parse_folder,
    aliases=("roo-code", "kilo-code"),
)
