"""Redaction preview and the strict-redaction switch: what the summarizer receives, masks counted and shown."""

from __future__ import annotations

import re

from core import CompressorConfig, ContextCompressor
from core.redaction.hermes import redact_many
from core.redaction.strict import count_by_kind, redact_with_spans
from dashboard.sections import SECTIONS
from tests.app.chat_server import chat_server, run_remote  # noqa: F401 - chat_server is a fixture
from tests.app.conftest import (
    DATA,
    SAMPLES,
    choose_sample,
    go,
    load_messages,
    metrics,
    number,
    run,
    sidebar_config,
    text_blocks,
    upload,
)

SECRETS = "secrets_in_tool_output.json"
OFFLINE = "Offline extractive summary (default)"
LITELLM = "A model through litellm"
LOCAL = "Local model (SmolLM2, offline)"
NONE = "No summarizer (the profile's fallback)"
AWS_SECRET = "FaKe/SeCrEt+KeY/0000/NotARealKey/EXAMPLE1"
# Fake credentials of the sample that sit in the summarised turns (messages 4-20).
FAKE_SECRETS = (
    "hunter2-FAKE-pass",
    "sk-proj-FAKEKEY0000aaaabbbb",
    "AKIAFAKEEXAMPLE00001",
    AWS_SECRET,
    "FAKEsignatureNOTvalid",
    "dGhpcyBpcyBhIGZha2Uga2V5",
)
MASK_SHAPE = re.compile(r"[A-Za-z0-9_-]{6}\.\.\.[A-Za-z0-9_-]{4}")


def _independent_turn_pieces(config: CompressorConfig) -> list[str]:
    """The texts the serializer redacts for the summarised turns, read from a real compression."""
    messages = load_messages(SAMPLES / SECRETS)
    result = ContextCompressor(config, summarizer=lambda prompt, max_tokens: "## Active Task\nx").compress(messages)
    pieces: list[str] = []
    for message in result.plan.pruned_messages[result.plan.turns_start:result.plan.compress_end]:
        pieces.append(message.get("content") or "")
        for call in message.get("tool_calls") or []:
            pieces.append(call["function"]["arguments"])
    return pieces


def _counts(at) -> dict[tuple[str, str], int]:
    frame = next(f.value for f in at.dataframe if list(f.value.columns) == ["layer", "kind", "masked"])
    return {(row.layer, row.kind): int(row.masked) for row in frame.itertuples(index=False)}


def _whole_text(at) -> str:
    return text_blocks(at)["summary_input"]


def _open_preview(at, sample: str = SECRETS):
    choose_sample(at, sample)
    return go(at, "redaction_preview")


def test_the_preview_is_registered_right_after_compress():
    names = [name for name, _title, _icon in SECTIONS["Compression"]]
    assert names.index("redaction_preview") == names.index("compress") + 1


def test_offline_with_strict_off_shows_the_profile_masks_and_counts_them(app):
    app.selectbox(key="profile").set_value("v0.16.0")  # the figures below are v0.16.0's masks
    _open_preview(app)
    assert app.toggle(key="preview_strict").value is True  # on by default, for every summarizer
    app.toggle(key="preview_strict").set_value(False)
    run(app)
    config = sidebar_config(app)
    text = _whole_text(app)
    # Exactly the serialised turns a real compression sends.
    result = ContextCompressor(config, summarizer=lambda p, m: "## Active Task\nx").compress(
        load_messages(SAMPLES / SECRETS))
    assert text == result.summarizer_call.serialized_turns
    assert number(metrics(app)["Characters sent"]) == len(text)
    # Reference masks, counted independently from the masks' shapes in the text.
    expected_total = text.count("***") + len(MASK_SHAPE.findall(text)) + text.count("[REDACTED PRIVATE KEY]")
    counts = _counts(app)
    assert set(layer for layer, _kind in counts) == {"reference"}
    assert sum(counts.values()) == expected_total == number(metrics(app)["Reference masks"]) == 10
    assert counts[("reference", "database-url")] == text.count(":***@") == 6
    assert number(metrics(app)["Strict masks"]) == 0
    # Without the strict layer the prefix-less AWS secret key goes out.
    assert AWS_SECRET in text


def test_strict_on_counts_match_count_by_kind_and_no_fake_secret_is_sent(app):
    _open_preview(app)
    app.toggle(key="preview_strict").set_value(True)
    run(app)
    assert app.toggle(key="preview_strict").value is True
    config = sidebar_config(app)
    profile_redacted = redact_many(_independent_turn_pieces(config))
    strict_spans = [span for text in profile_redacted for span in redact_with_spans(text)[1]]
    expected = count_by_kind(strict_spans)
    assert expected  # the sample has secrets only the strict layer catches
    counts = _counts(app)
    assert {kind: n for (layer, kind), n in counts.items() if layer == "strict"} == expected
    assert number(metrics(app)["Strict masks"]) == sum(expected.values())
    text = _whole_text(app)
    html_bodies = "".join(h.value for h in app.html)
    for secret in FAKE_SECRETS:
        assert secret not in text, secret
        assert secret not in html_bodies, secret
    # Each mask is highlighted with its layer and kind, and the comparison line names both totals.
    assert html_bodies.count('<mark title="strict: ') == sum(expected.values())
    assert html_bodies.count('<mark title="reference: ') == sum(n for (layer, _k), n in counts.items() if layer == "reference")
    captions = " ".join(c.value for c in app.caption)
    assert f"Strict on: {sum(counts.values())} masked values" in captions
    # The choice made here is the Compress page's choice for this summarizer.
    go(app, "compress")
    assert app.toggle(key="strict_redaction").value is True


def test_markup_in_the_turns_is_escaped_in_the_highlighted_view(app):
    upload(app, "xss.json", (DATA / "xss_transcript.json").read_bytes())
    go(app, "redaction_preview")
    assert app.checkbox(key="redaction_only_masked").disabled  # no mask: every message is shown
    text = _whole_text(app)
    assert "<script>window.__xss = 'script'</script>" in text  # the summarizer gets the text as it is
    bodies = [h.value for h in app.main.get("html")]  # the page's own (the sidebar holds the dashboard's style)
    joined = "".join(bodies)
    assert "&lt;script&gt;window.__xss = &#x27;script&#x27;&lt;/script&gt;" in joined
    assert "&lt;img src=x onerror=" in joined
    assert "<script" not in joined and "<img" not in joined
    # The only tags are the view's own.
    assert set(re.findall(r"<(/?[a-z]+)", joined)) <= {"div", "/div", "pre", "/pre", "mark", "/mark", "span", "/span"}


def test_strict_switch_defaults_follow_the_summarizer_and_keep_the_users_choice(app):
    go(app, "compress")
    # On by default for every summarizer: the provider receives the turns, every summary quotes them.
    expected = {OFFLINE: True, LITELLM: True, LOCAL: True, NONE: True}
    for choice, on in expected.items():
        app.radio(key="summarizer_choice").set_value(choice)
        run(app)
        assert app.toggle(key="strict_redaction").value is on, choice
    # Turned off for the remote provider: it stays off, also after visiting another summarizer, whose
    # own choice is its own.
    app.radio(key="summarizer_choice").set_value(LITELLM)
    run(app)
    app.toggle(key="strict_redaction").set_value(False)
    run(app)
    app.radio(key="summarizer_choice").set_value(OFFLINE)
    run(app)
    assert app.toggle(key="strict_redaction").value is True
    app.toggle(key="strict_redaction").set_value(False)
    run(app)
    app.radio(key="summarizer_choice").set_value(LITELLM)
    run(app)
    assert app.toggle(key="strict_redaction").value is False
    app.radio(key="summarizer_choice").set_value(OFFLINE)
    run(app)
    assert app.toggle(key="strict_redaction").value is False


def test_the_switch_reaches_the_compressor(app):
    choose_sample(app, SECRETS)
    go(app, "compress")
    app.radio(key="summarizer_choice").set_value(NONE)
    run(app)
    prompts = {}
    for on in (False, True):
        app.toggle(key="strict_redaction").set_value(on)
        run(app)
        app.button(key="run_compressor").click()
        run(app)
        (prompt,) = [c.value for c in app.code if c.value.startswith("You are a summarization agent")]
        prompts[on] = prompt
    assert AWS_SECRET in prompts[False]
    assert AWS_SECRET not in prompts[True]
    config = sidebar_config(app)
    config.strict_redaction = True
    expected = ContextCompressor(config).compress(load_messages(SAMPLES / SECRETS))
    assert prompts[True] == expected.summarizer_call.prompt


# -- a remote provider on 127.0.0.1: what arrives is what the preview shows --------------------


def test_a_remote_provider_receives_exactly_the_previewed_text(app, chat_server):  # noqa: F811
    _open_preview(app)
    go(app, "compress")
    app.radio(key="summarizer_choice").set_value(LITELLM)
    run(app)
    go(app, "redaction_preview")
    assert app.toggle(key="preview_strict").value is True  # on by default for a remote provider
    previewed = _whole_text(app)
    run_remote(app, chat_server)
    assert app.success, "the summary should come back from the local endpoint"
    (body,) = chat_server.bodies
    prompt = body["messages"][0]["content"]
    assert f"TURNS TO SUMMARIZE:\n{previewed}\n\n" in prompt
    for secret in FAKE_SECRETS:
        assert secret not in prompt, secret


def test_long_text_is_paged_by_message(app):
    go(app, "redaction_preview")  # the long sample: no credential, every summarised message is listed
    config = sidebar_config(app)
    result = ContextCompressor(config, summarizer=lambda p, m: "## Active Task\nx").compress(
        load_messages(SAMPLES / "long_coding_session.json"))
    turns = result.plan.compress_end - result.plan.turns_start
    assert turns > 20
    assert any("No credential was found" in s.value for s in app.success)
    pages = -(-turns // 20)
    page_input = app.number_input(key="redaction_page")
    assert page_input.label == f"Page (of {pages})"

    def shown_messages() -> list[int]:
        body = "".join(h.value for h in app.html)
        return [int(n) for n in re.findall(r">message #(\d+)</div>", body)]

    assert shown_messages() == list(range(result.plan.turns_start, result.plan.turns_start + 20))
    page_input.set_value(pages)
    run(app)
    assert shown_messages() == list(range(result.plan.turns_start + 20 * (pages - 1), result.plan.compress_end))


def test_when_nothing_is_sent_the_hint_names_the_sidebar_control_that_changes_it(app):
    """A conversation too small to compress: the protected head leaves no room. The hint names the
    control as the sidebar labels it, and moving that control brings a summary request."""
    import json

    label = go(app, "overview").slider(key="protect_first_n").label
    messages = [{"role": "system", "content": "You are terse."}]
    for turn in range(3):
        messages += [{"role": "user", "content": f"question {turn}"}, {"role": "assistant", "content": f"answer {turn}"}]
    upload(app, "small.json", json.dumps(messages).encode())
    go(app, "redaction_preview")
    (hint,) = [i.value for i in app.info if "Nothing would be sent" in i.value]
    assert "too small" in hint and f"Lower **{label}** in the sidebar" in hint
    assert "tail ratio" not in hint  # no control is called so
    app.slider(key="protect_first_n").set_value(1)
    run(app)
    assert not [i.value for i in app.info if "Nothing would be sent" in i.value]
    assert "[USER]: question 1" in _whole_text(app)  # the turns now sent to the summarizer
