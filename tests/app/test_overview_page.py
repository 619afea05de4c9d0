"""Upload & overview: samples, uploads, format override, sessions, search and bad files."""

from __future__ import annotations

import json
import re

import pytest

from core.formats import load
from core.tokens import encoding_name_for_model, get_counter
from tests.app.conftest import (
    DATA,
    SAMPLES,
    choose_sample,
    go,
    html_table,
    load_messages,
    metrics,
    new_app,
    number,
    pick_model,
    plain,
    run,
    sample_paths,
    table_with,
    text_blocks,
    upload,
)

LONG_SAMPLE = "long_coding_session.json"


def as_table(app):
    """The messages read as a table instead of the thread (the table's filters and row clicks)."""
    app.session_state["_kept_overview_messages_view"] = "Table"
    return run(app)


def exact_total(messages: list, model: str = "gpt-4o") -> int:
    return get_counter(encoding_name_for_model(model)).count_messages(messages)


def test_first_page_shows_the_long_sample_without_any_action(app):
    assert app.selectbox(key="conversation_choice").value == f"Sample: {LONG_SAMPLE}"
    messages = load_messages(SAMPLES / LONG_SAMPLE)
    shown = metrics(app)
    assert number(shown["Messages"]) == len(messages)
    assert number(shown["Tokens (o200k_base)"]) == exact_total(messages)
    table = table_with(as_table(app), "preview", "source")
    assert len(table) == len(messages)
    assert table["tokens"].sum() == exact_total(messages)


@pytest.mark.parametrize("path", sample_paths(), ids=lambda p: p.name)
def test_every_bundled_sample_loads_on_every_page(app, path):
    choose_sample(app, path.name)
    assert not app.error, [e.value for e in app.error]
    messages = load_messages(path)
    assert number(metrics(app)["Messages"]) == len(messages)
    assert any(load(path).format in plain(c.value) for c in app.caption)
    cut = load(path).last_compaction()
    for page in ("zones", "savings", "compress"):
        go(app, page)
        assert not app.error, (page, [e.value for e in app.error])
        assert any(f"{len(messages):,} messages" in plain(c.value) for c in app.caption)
        # A log the agent compacted says so on every page, with the way to its full history.
        said = any("The context the model last saw" in plain(c.value) for c in app.caption)
        assert said == (cut is not None), page


def test_changing_the_model_changes_the_window_and_the_encoding(app):
    pick_model(app, "gpt-4")
    run(app)
    from core.models import context_window

    assert app.number_input(key="context_length").value == context_window("gpt-4")
    messages = load_messages(SAMPLES / LONG_SAMPLE)
    assert number(metrics(app)["Tokens (cl100k_base)"]) == exact_total(messages, "gpt-4")


def _readable_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, list):
        content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    pieces = [content or ""]
    for call in message.get("tool_calls") or []:
        pieces += [call["function"]["name"], call["function"]["arguments"]]
    return "\n".join(pieces).lower()


def test_search_keeps_only_matching_messages(app):
    messages = load_messages(SAMPLES / LONG_SAMPLE)
    as_table(app).text_input(key="message_query").set_value("pytest")
    run(app)
    table = table_with(app, "preview", "source")
    expected = [i for i, m in enumerate(messages) if "pytest" in _readable_text(m)]
    assert 0 < len(expected) < len(messages)
    assert list(table["index"]) == expected


def test_uploaded_file_is_analysed_and_listed_first(app):
    data = (SAMPLES / "anthropic_messages_session.json").read_bytes()
    upload(app, "my upload.json", data)
    assert app.selectbox(key="conversation_choice").value == "Uploaded: my upload.json"
    assert app.selectbox(key="conversation_choice").options[0] == "Uploaded: my upload.json"
    assert number(metrics(app)["Messages"]) == len(load(data, filename="x.json").messages)
    assert any("anthropic" in plain(c.value) for c in app.caption)


def test_several_uploads_can_each_be_picked(app):
    first = (SAMPLES / "langchain_messages.json").read_bytes()
    second = (SAMPLES / "codex_rollout.jsonl").read_bytes()
    go(app, "overview")
    app.file_uploader(key="uploader").set_value(
        [("a.json", first, "application/json"), ("b.jsonl", second, "application/jsonl")]
    )
    run(app)
    options = app.selectbox(key="conversation_choice").options
    assert options[:2] == ["Uploaded: a.json", "Uploaded: b.jsonl"]
    app.selectbox(key="conversation_choice").set_value("Uploaded: a.json")
    run(app)
    assert number(metrics(app)["Messages"]) == len(load(first, filename="a.json").messages)
    app.selectbox(key="conversation_choice").set_value("Uploaded: b.jsonl")
    run(app)
    assert number(metrics(app)["Messages"]) == len(load(second, filename="b.jsonl").live_context().messages)


def test_rejected_uploads_leave_the_picker_and_say_why(app):
    good = (SAMPLES / "langchain_messages.json").read_bytes()
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
    go(app, "overview")
    app.file_uploader(key="uploader").set_value([
        ("a.json", good, "application/json"), ("notes.md", b"# Notes\n\nnot a transcript\n", "text/markdown"),
        ("shot.png", png, "image/png"),
    ])
    run(app)
    # The last upload is chosen first; it is rejected, then the one before it, and a.json is analysed.
    options = app.selectbox(key="conversation_choice").options
    assert "Uploaded: a.json" in options
    assert "Uploaded: notes.md" not in options and "Uploaded: shot.png" not in options
    assert app.selectbox(key="conversation_choice").value == "Uploaded: a.json"
    errors = [plain(e.value) for e in app.error]
    assert any(e.startswith("**notes.md** was not loaded") for e in errors)
    assert any(e.startswith("**shot.png** was not loaded") for e in errors)
    assert number(metrics(app)["Messages"]) == len(load(good, filename="a.json").messages)
    # Removed from the uploader, a rejected file's notice goes too.
    app.file_uploader(key="uploader").set_value([("a.json", good, "application/json")])
    run(app)
    assert not any("was not loaded" in plain(e.value) for e in app.error)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("junk.bin", bytes(range(256)) * 40),
        ("truncated.json", b'{"messages": [{"role": "user", "content": "hello"}, {"role": "assist'),
        ("empty.json", b""),
        ("picture.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64),
        ("not_a_transcript.json", json.dumps({"hello": "world"}).encode()),
    ],
)
def test_bad_files_give_a_readable_error_on_every_page(app, name, data):
    upload(app, name, data)
    errors = [plain(e.value) for e in app.error]
    assert errors, "a bad file must be reported"
    assert any(name.split(".")[0] in error for error in errors)
    assert not any("Traceback" in error for error in errors)
    # No format reads it: it leaves the picker, and every page says so above what it analyses instead.
    assert f"Uploaded: {name}" not in app.selectbox(key="conversation_choice").options
    for page in ("zones", "savings", "compress"):
        go(app, page)
        assert any(plain(w.value).startswith(f"{name} was not loaded") for w in app.warning), page
        assert not any(name in plain(c.value) for c in app.caption if c.value.startswith(name)), page


def test_forcing_a_wrong_format_is_an_error_and_auto_detection_recovers(app):
    upload(app, "chat.json", (SAMPLES / "langchain_messages.json").read_bytes())
    app.selectbox(key="format_choice").set_value("codex")
    run(app)
    assert app.error
    app.selectbox(key="format_choice").set_value("auto-detect")
    run(app)
    assert not app.error
    assert metrics(app)["Messages"]


def test_session_picker_lists_every_session_and_switches(app):
    path = SAMPLES / "hermes_state.db"
    sessions = load(path).sessions
    assert len(sessions) > 1
    choose_sample(app, path.name)
    picker = app.selectbox(key="session_label")
    assert len(picker.options) == len(sessions)
    for option, info in zip(picker.options, sessions, strict=True):
        assert option.startswith(str(info.id))
    for info in sessions:
        option = next(o for o in app.selectbox(key="session_label").options if o.startswith(str(info.id)))
        app.selectbox(key="session_label").set_value(option)
        run(app)
        assert number(metrics(app)["Messages"]) == len(load(path, session=str(info.id)).messages)


def test_transcript_text_only_reaches_the_page_as_data(app):
    upload(app, "xss.json", (DATA / "xss_transcript.json").read_bytes())
    # The thread: the script and the handlers are shown as text, never as markup.
    thread = "".join(h.proto.body for h in app.get("html") if "cl-thread" in h.proto.body)
    assert "&lt;script" in thread and "<script" not in thread
    assert not re.search(r"<[a-z]+[^>]*\son\w+=", thread)
    table = table_with(as_table(app), "preview", "source")
    assert table["preview"].str.contains("<script>", regex=False).any()
    rendered = [m.value for m in app.markdown] + [c.value for c in app.caption]
    assert not any("<script" in text or "onerror" in text for text in rendered)


def test_empty_state_offers_the_samples(monkeypatch, tmp_path):
    import dashboard.memo as session

    monkeypatch.setattr(session, "SAMPLE_DIR", tmp_path)
    at = new_app()
    assert any("No conversation loaded yet" in i.value for i in at.info)
    assert not at.metric
    go(at, "zones")
    assert any("No conversation loaded yet" in i.value for i in at.info)
    assert not at.exception


def test_the_log_model_can_be_adopted_in_one_click(app):
    choose_sample(app, "anthropic_messages_session.json")
    from core.models import context_window

    app.button(key="use_log_model").click()
    run(app)
    assert app.selectbox(key="model").value == "claude-sonnet-4-5"
    assert app.number_input(key="context_length").value == context_window("claude-sonnet-4-5")
    assert "Tokens (cl100k_base)" in metrics(app)


def test_claude_code_branches_are_in_the_picker_with_the_counts_the_page_shows(app):
    path = SAMPLES / "claude_code_v2_session.jsonl"
    sessions = load(path).sessions
    assert {info.kind for info in sessions} == {"session", "branch"}
    choose_sample(app, path.name)
    options = app.selectbox(key="session_label").options
    assert len(options) == len(sessions)
    branch_option = next(o for o in options if "abandoned branch" in o)
    for info in sessions:
        option = next(o for o in app.selectbox(key="session_label").options if o.startswith(f"{info.id} · "))
        assert f"{info.message_count:,} messages" in option
        app.selectbox(key="session_label").set_value(option)
        run(app)
        assert number(metrics(app)["Messages"]) == info.message_count == len(load(path, session=str(info.id)).messages)
    assert branch_option in options


def test_rows_placed_nowhere_are_visible_warnings_with_counts(app):
    path = SAMPLES / "claude_code_v2_session.jsonl"
    choose_sample(app, path.name)
    conversation = load(path)
    warnings = [plain(w.value) for w in app.warning]
    (box,) = [w for w in warnings if "import warning(s)" in w]
    attachments = next(e for e in conversation.report.skipped if "attachment rows" in e.reason)
    assert f"{attachments.count} row(s) skipped: attachment rows" in box
    assert any(plain(c.value).startswith(f"{conversation.report.read} lines read") for c in app.caption)
    report_rows = html_table(app, "load-report")
    assert report_rows.loc[report_rows["what"] == "lines read", "rows"].iloc[0] == conversation.report.read
    # Every warning, in full, in the load report's text.
    assert text_blocks(app)["load_warnings"].splitlines() == list(conversation.warnings)


def test_message_detail_shows_display_text_and_the_raw_message(app):
    path = SAMPLES / "claude_code_v2_session.jsonl"
    conversation = load(path)
    index = next(i for i, m in enumerate(conversation.messages) if "\x1b[" in str(m.get("content")))
    choose_sample(app, path.name)
    as_table(app).number_input(key="detail_index").set_value(index)
    run(app)
    shown = [c.value for c in app.code]
    assert any("PASSED" in text and "\x1b" not in text for text in shown)
    app.toggle(key="detail_raw").set_value(True)
    run(app)
    raw = json.loads(next(c.value for c in app.code if c.value.lstrip().startswith("{")))
    assert raw == conversation.messages[index]


def test_the_release_that_wrote_the_summaries_is_named_and_offered(app):
    """An upload holding a v0.16.0 handoff: the overview says so and offers that release's profile."""
    import json as _json

    from core.profiles import SUMMARY_PREFIX_V0_16_0

    messages = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the login test."},
        {"role": "user", "content": SUMMARY_PREFIX_V0_16_0 + "\n## Active Task\nUser asked: 'Fix the login test.'"},
        {"role": "assistant", "content": "Continuing from the summary."},
    ]
    upload(app, "resumed.json", _json.dumps(messages).encode())
    infos = [plain(i.value) for i in app.info]
    assert any("written by Hermes v0.16.0." in text for text in infos), infos
    app.button(key="use_detected_profile").click()
    run(app)
    assert app.selectbox(key="profile").value == "v0.16.0"
    assert not any(b.key == "use_detected_profile" for b in app.button)


def test_the_small_tables_are_html_that_wraps_and_the_message_grid_keeps_one_line_rows(app):
    """The overview's few-row tables are plain HTML (nothing cut on a narrow page, no grid to load on
    the first page); the message table stays a grid of one-line rows."""
    from dashboard.ui import WRAP_ROW_HEIGHT

    assert not app.dataframe  # the first page draws no data grid
    request = html_table(app, "request-parts")
    assert request["source"].str.len().max() > 60  # a long explanation, whole
    assert "cannot be estimated" in " ".join(request["source"])
    by_role = html_table(app, "by-role")
    assert set(by_role["role"]) == {"system", "user", "assistant", "tool"}
    assert all(isinstance(n, int) for n in by_role["tokens"]) and all(s.endswith(" %") for s in by_role["share"])
    body = next(h.proto.body for h in app.get("html") if 'data-table="request-parts"' in h.proto.body)
    assert "<script" not in body and "white-space:nowrap" in body and "overflow-wrap:break-word" in body
    grid = next(f for f in as_table(app).dataframe if {"preview", "source"} <= set(f.value.columns))
    assert grid.row_height != WRAP_ROW_HEIGHT  # a sized grid keeps one-line rows
