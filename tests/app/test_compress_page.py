"""Compress & preview: outcomes, the preview with its badges, the summary and the downloads."""

from __future__ import annotations

import json

import yaml

from core import ContextCompressor
from core.formats import dump, load
from core.summarizers.extractive import ExtractiveSummarizer
from core.tokens import encoding_name_for_model, get_counter
from tests.app.conftest import (
    DATA,
    SAMPLES,
    choose_sample,
    download_bytes,
    download_json,
    go,
    load_messages,
    metrics,
    number,
    plain,
    run,
    sidebar_config,
    table_with,
    text_blocks,
    upload,
)

LONG_SAMPLE = SAMPLES / "long_coding_session.json"
OFFLINE = "Offline extractive summary (default)"
NONE = "No summarizer (the profile's fallback)"
LITELLM = "A model through litellm"


def compress_on_page(at, summarizer_label=OFFLINE, **checks):
    go(at, "compress")
    at.radio(key="summarizer_choice").set_value(summarizer_label)
    for key, value in checks.items():
        at.checkbox(key=key).set_value(value)
    run(at)
    at.button(key="run_compressor").click()
    return run(at)


def test_offline_run_shows_outcome_preview_summary_and_downloads(media_files, app):
    messages = load_messages(LONG_SAMPLE)
    compress_on_page(app)
    config = sidebar_config(app)
    result = ContextCompressor(config, summarizer=ExtractiveSummarizer()).compress(messages)
    assert result.outcome == "summarized"

    success = plain(app.success[0].value)
    assert f"Messages {result.plan.compress_start}–{result.plan.compress_end - 1} became one summary" in success
    assert f"{len(messages):,} → {len(result.messages):,} messages" in success
    counter = get_counter(encoding_name_for_model(config.model))
    assert number(metrics(app)["Tokens (tiktoken)"]) == counter.count_messages(result.messages)
    assert number(metrics(app)["Messages"]) == len(result.messages)

    # The summary, as text, exactly.
    assert text_blocks(app)["compress_summary"] == result.assembly.summary_text
    # The preview opens on the summary, in full, with its zone.
    summary_position = next(i for i, o in enumerate(result.assembly.origins) if o.kind == "summary")
    assert app.number_input(key="preview_number").value == summary_position
    headers = [plain(m.value) for m in app.markdown if m.value.startswith("**output")]
    assert any(h.startswith(f"**output #{summary_position} · user · SUMMARY**") for h in headers)
    assert any(code.value == result.messages[summary_position]["content"] for code in app.code)
    # The thread first: the summary's card carries its badge; the table holds every figure.
    thread = "".join(h.proto.body for h in app.get("html") if "cl-thread" in h.proto.body)
    assert f'id="cl-preview-{summary_position}"' in thread and ">SUMMARY</span>" in thread
    # One search box over the thread (its own), the table's own search once the table is read.
    searches = [box.key for box in app.text_input if box.key.startswith("preview_")]
    assert searches == ["preview_thread_query"], searches
    app.session_state["_kept_preview_view"] = "Table"
    run(app)
    searches = [box.key for box in app.text_input if box.key.startswith("preview_")]
    assert searches == ["preview_query"], searches
    preview = table_with(app, "#", "zone", "badges", "tokens", "text")
    assert preview["#"].tolist() == list(range(len(result.messages)))
    assert preview["tokens"].tolist() == [counter.count_message(m) for m in result.messages]

    # Side by side: every original message is accounted for.
    table = table_with(app, "before #", "change", "after #", "before tokens", "after tokens")
    assert {int(i) for i in table["before #"].dropna()} == set(range(len(messages)))
    assert (table["change"] == "summarised").sum() == result.plan.compress_end - result.plan.compress_start
    assert (table["change"] == "added (summary)").sum() == (0 if result.assembly.summary_merged else 1)

    # Downloads: the compressed conversation as OpenAI chat JSON, and the Hermes settings.
    button = app.download_button(key="download_openai")
    assert download_bytes(media_files, button).decode() == dump(result.messages, "openai-chat")
    assert download_json(media_files, button)["messages"] == result.messages
    snippet = yaml.safe_load(download_bytes(media_files, app.download_button(key="download_yaml")).decode())
    assert snippet["compression"]["threshold"] == config.threshold_percent
    assert snippet["compression"]["protect_last_n"] == config.protect_last_n
    assert snippet["model"]["context_length"] == config.context_length


def test_original_format_download_round_trips(media_files, app):
    path = SAMPLES / "anthropic_messages_session.json"
    choose_sample(app, path.name)
    compress_on_page(app)
    messages = load_messages(path)
    result = ContextCompressor(sidebar_config(app), summarizer=ExtractiveSummarizer()).compress(messages)
    data = download_bytes(media_files, app.download_button(key="download_original"))
    assert data.decode() == dump(result.messages, "anthropic")
    reloaded = load(data, filename="again.json")
    assert reloaded.format == "anthropic"
    assert len(reloaded.messages) == len(result.messages)


def test_no_summarizer_takes_the_profile_fallback_with_its_reason(app):
    compress_on_page(app, NONE)
    warning = plain(app.warning[0].value)
    assert "Fallback summary" in warning
    assert "no auxiliary LLM provider configured" in warning
    result = ContextCompressor(sidebar_config(app)).compress(load_messages(LONG_SAMPLE))
    assert text_blocks(app)["compress_summary"] == result.assembly.summary_text


def test_abort_on_failure_keeps_the_conversation(app):
    compress_on_page(app, NONE, abort_on_summary_failure=True)
    error = plain(app.error[0].value)
    assert "Aborted" in error and "no auxiliary LLM provider configured" in error
    messages = load_messages(LONG_SAMPLE)
    assert number(metrics(app)["Messages"]) == len(messages)


def test_a_small_conversation_is_too_small(app):
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    upload(app, "tiny.json", json.dumps({"messages": messages}).encode())
    compress_on_page(app)
    assert any("Too small to compress" in i.value for i in app.info)
    assert number(metrics(app)["Messages"]) == 2


def test_stale_result_is_flagged_after_a_slider_move(app):
    compress_on_page(app)
    assert not app.warning
    app.slider(key="threshold_percent").set_value(0.9)
    run(app)
    assert any("parameters changed since this run" in w.value for w in app.warning)


def test_transcript_markup_is_shown_as_text_and_never_as_markdown(app):
    upload(app, "xss.json", (DATA / "xss_transcript.json").read_bytes())
    compress_on_page(app)
    texts = [t.value for t in app.text] + [c.value for c in app.code] + list(text_blocks(app).values())
    assert any("<script>window.__xss = 'script'</script>" in t for t in texts)
    # Escaped in the HTML the page sends: shown as text, never run.
    assert not any("<script>window.__xss" in h.proto.body for h in app.get("html"))
    assert any("<img src=x onerror=" in t for t in texts)
    markdown = [m.value for m in app.markdown] + [c.value for c in app.caption]
    markdown += [e.value for e in app.success] + [e.value for e in app.warning] + [e.value for e in app.info]
    assert not any("<script" in text or "onerror" in text or "javascript:" in text for text in markdown)


def test_litellm_form_keeps_the_key_out_of_everything_it_shows(media_files, app):
    go(app, "compress")
    app.radio(key="summarizer_choice").set_value(LITELLM)
    run(app)
    key_input = app.text_input(key="llm_api_key")
    assert key_input.proto.type == key_input.proto.PASSWORD
    secret = "sk-test-never-shown-0123456789"
    key_input.set_value(secret)
    app.text_input(key="llm_model").set_value("openai/some-model")
    app.text_input(key="llm_api_base").set_value("http://127.0.0.1:9/v1")
    run(app)
    shown = [m.value for m in app.markdown] + [c.value for c in app.code] + [t.value for t in app.text]
    shown += [h.proto.body for h in app.get("html")]
    assert not any(secret in text for text in shown)
    kept = {k: v for k, v in app.session_state.to_dict().items() if str(k).startswith("_kept_")}
    assert kept and secret not in json.dumps(kept, default=str)


def test_unreachable_litellm_endpoint_falls_back_with_a_readable_reason(app):
    """A real litellm call to a closed local port: the failure becomes the fallback's reason (v0.16.0;
    v0.18.0 aborts on it, see the next test)."""
    app.selectbox(key="profile").set_value("v0.16.0")
    go(app, "compress")
    app.radio(key="summarizer_choice").set_value(LITELLM)
    run(app)
    app.text_input(key="llm_model").set_value("openai/context-lens-test")
    app.text_input(key="llm_api_base").set_value("http://127.0.0.1:9/v1")
    app.text_input(key="llm_api_key").set_value("sk-unused")
    run(app)
    app.button(key="run_compressor").click()
    app.run(timeout=90)  # the first litellm import takes several seconds
    assert not app.exception
    warning = plain(app.warning[0].value)
    assert "Fallback summary" in warning
    assert "connect" in warning.lower() or "refused" in warning.lower()


def test_the_config_export_names_the_logs_model_not_the_sidebar_default(media_files, app):
    path = SAMPLES / "anthropic_messages_session.json"
    logged = load(path).model
    assert logged and app.selectbox(key="model").value != logged
    choose_sample(app, path.name)
    compress_on_page(app)
    snippet = yaml.safe_load(download_bytes(media_files, app.download_button(key="download_yaml")).decode())
    assert snippet["model"]["default"] == logged
    assert any("the model the transcript was written with" in plain(c.value) for c in app.caption)


def test_a_jump_in_the_filtered_preview_opens_its_page_or_says_the_filters_hide_it(app):
    """With the preview's role filter on, the thread's jump box finds a message by its place among
    the filtered ones (after clearing a search that hid it), and says so when the filter hides it."""
    import re

    compress_on_page(app)
    result = ContextCompressor(sidebar_config(app), summarizer=ExtractiveSummarizer()).compress(
        load_messages(LONG_SAMPLE))
    assistants = [n for n, m in enumerate(result.messages) if m.get("role") == "assistant"]
    hidden = next(n for n, m in enumerate(result.messages) if m.get("role") != "assistant")
    assert len(assistants) > 50, len(assistants)  # a second page of filtered cards
    app.multiselect(key="preview_roles").set_value(["assistant"])
    app.text_input(key="preview_thread_query").set_value("no message says this")
    run(app)

    def cards() -> list[int]:
        html = "".join(h.proto.body for h in app.get("html") if "cl-thread" in h.proto.body)
        return [int(n) for n in re.findall(r'id="cl-preview-(\d+)"', html)]

    assert cards() == []
    wanted = assistants[-1]
    app.number_input(key="preview_thread_jump").set_value(wanted)
    run(app)
    assert app.text_input(key="preview_thread_query").value == ""
    assert app.number_input(key="preview_thread_page").value == assistants.index(wanted) // 50 + 1
    assert wanted in cards()

    app.number_input(key="preview_thread_jump").set_value(hidden)
    run(app)
    assert any(f"Output #{hidden:,} is hidden by the filters above" in plain(i.value) for i in app.info), \
        [i.value for i in app.info]
    assert wanted in cards()  # the page stays where it was
