"""aider's chat history and LLM history: sessions, inputs, commands, reflections, usage, requests, fragments."""

import re

import pytest

from core.formats import FormatError, detect, load
from tests.formats.checks import SAMPLES, assert_canonical, assert_tool_pairs

CHAT = "aider.chat.history.md"
LLM = "aider.llm.history"


def load_text(text: str, name: str = ".aider.chat.history.md", **kwargs):
    conv = load(text.encode(), filename=name, **kwargs)
    assert conv.format == "aider"
    assert_canonical(conv)
    assert conv.report.read == conv.report.accounted()
    return conv


def chat(*lines: str) -> str:
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The chat history sample


def test_chat_sample_sessions_and_the_last_launch():
    conv = load(SAMPLES / CHAT)
    raw = (SAMPLES / CHAT).read_text(encoding="utf-8")
    starts = re.findall(r"^# aider chat started at (.+)$", raw, flags=re.M)
    assert [info.id for info in conv.sessions] == starts == ["2026-03-01 16:40:55", "2026-03-02 09:14:07"]
    assert conv.session_id == starts[-1] and conv.model == "anthropic/claude-sonnet-4-5"
    assert [m["role"] for m in conv.messages] == ["user", "assistant"] * 4
    first = load(SAMPLES / CHAT, session=starts[0])
    assert first.model == "openai/gpt-4.1" and len(first.messages) == conv.sessions[0].message_count == 2


def test_chat_sample_inputs_commands_and_replies():
    conv = load(SAMPLES / CHAT)
    users = [m["content"] for m in conv.messages if m["role"] == "user"]
    # A two-line input is one message, without aider's '#### ' prefixes and line-break spaces.
    assert users[0] == ('parse_amount accepts "1.234,56" but a Swiss export writes "1 234,56" with a narrow no-break space.\n'
                        "Fix it and add a test.")
    # /add, /run, /clear and /ask are commands; /ask's text is logged again as the input itself.
    assert not any(text.startswith("/") for text in users)
    assert users[3] == "which importers still round amounts through float?"
    assert conv.report.metadata["commands typed to aider (not sent to the model)"] >= 4  # with the blank lines after them
    replies = [m["content"] for m in conv.messages if m["role"] == "assistant"]
    assert "<<<<<<< SEARCH" in replies[0] and ">>>>>>> REPLACE" in replies[0]
    # The model's own quote and heading stay in its reply (aider's lines end with two spaces).
    assert "\n> value = round(float(text), 2)\n" in replies[3] and "#### What changes" in replies[3]


def test_chat_sample_reflection_is_the_user_message_aider_sent():
    conv = load(SAMPLES / CHAT)
    reflection = conv.messages[4]
    assert reflection["role"] == "user"
    assert reflection["content"].startswith("# 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch")
    assert reflection["content"].endswith("Just reply with fixed versions of the block above that failed to match.")
    assert conv.messages[3]["role"] == conv.messages[5]["role"] == "assistant"


def test_chat_sample_usage_from_the_tokens_lines():
    conv = load(SAMPLES / CHAT)
    usage = [u for u in conv.usage if u]
    assert usage[0] == {"prompt_tokens": 9800, "completion_tokens": 412, "cache_creation_tokens": 2100, "cost": 0.04,
                        "session_cost": 0.04, "tokens_rounded": True}
    assert usage[1]["prompt_tokens_details"] == {"cached_tokens": 9800} and usage[1]["completion_tokens"] == 230
    # Both cache counts: the cost comes on the next line.
    assert usage[2]["prompt_tokens"] == 12000 and usage[2]["cache_creation_tokens"] == 2400 and usage[2]["cost"] == 0.02
    assert all(conv.messages[i]["role"] == "assistant" for i, u in enumerate(conv.usage) if u)
    assert conv.report.metadata["token and cost reports (the usage of the reply above them)"] == 5


def test_chat_sample_clear_is_a_context_reset_and_command_output_a_warning():
    conv = load(SAMPLES / CHAT)
    (event,) = conv.compaction_events
    assert event.kind == "context-cleared" and conv.messages[event.position]["content"].startswith("which importers")
    assert "(/clear)" in event.source
    assert any("command output(s) were added to the chat" in w for w in conv.warnings)


def test_chat_every_line_is_accounted_for():
    conv = load(SAMPLES / CHAT)
    lines = (SAMPLES / CHAT).read_text(encoding="utf-8").split("\n")[:-1]
    assert conv.report.read == len(lines) and conv.report.read == conv.report.accounted()
    assert conv.report.skipped_count == 0


# ---------------------------------------------------------------------------------------------
# Chat history edge cases


def test_ask_without_the_repeated_input_sends_its_text():
    conv = load_text(chat("# aider chat started at 2025-01-02 10:00:00", "", "#### /ask what is in budget.py?  ", "",
                          "Monthly reports.", "", "> Tokens: 812 sent, 30 received.  "))
    assert conv.messages == [{"role": "user", "content": "what is in budget.py?"}, {"role": "assistant", "content": "Monthly reports."}]
    assert conv.usage[1] == {"prompt_tokens": 812, "completion_tokens": 30}


def test_a_file_without_the_two_spaces_reads_every_quote_as_aider_output():
    conv = load_text(chat("# aider chat started at 2025-01-02 10:00:00", "", "#### explain", "", "It is fine.",
                          "> a quote", "", "> Tokens: 1.1k sent, 5 received."))
    assert [m["content"] for m in conv.messages] == ["explain", "It is fine."]
    assert conv.usage[1]["prompt_tokens"] == 1100


def test_a_fragment_without_its_header_loads_with_a_warning():
    text = chat("#### rename parse_date  ", "", "Done.", "", "> Tokens: 2.0k sent, 14 received.  ")
    assert detect(text.encode(), filename="part.md") == "aider"
    conv = load_text(text, name="part.md")
    assert len(conv.messages) == 2 and any("starts inside a session" in w for w in conv.warnings)


@pytest.mark.parametrize("text", [
    "# ledgerline\n\nA budget tool.\n\n#### Install\n\n> Note: Python 3.11+\n",
    "Release notes\n=============\n\n#### 1.2\n\n- faster imports\n",
])
def test_ordinary_markdown_is_not_a_transcript(text):
    with pytest.raises(FormatError) as excinfo:
        load(text.encode(), filename="README.md")
    message = str(excinfo.value)
    assert message.startswith("README.md: line 1: ") and "not JSON" in message and "not a transcript" in message


def test_the_project_readme_is_refused():
    with pytest.raises(FormatError, match="not a transcript"):
        load(SAMPLES / "README.md")


def test_unknown_session_is_listed():
    with pytest.raises(FormatError, match="session 'nope' not found; the file holds: '2026-03-01 16:40:55'"):
        load(SAMPLES / CHAT, session="nope")


def test_aider_forced_on_json_is_refused_clearly():
    with pytest.raises(FormatError, match="plain text; expected that layout, not JSON"):
        load(b'[{"role": "user", "content": "hi"}]', filename="x.json", format="aider")


# ---------------------------------------------------------------------------------------------
# The LLM history


def test_llm_sample_last_request_is_the_conversation():
    conv = load(SAMPLES / LLM)
    raw = (SAMPLES / LLM).read_text(encoding="utf-8").split("\n")
    starts = [i for i, line in enumerate(raw) if line.startswith("TO LLM ")]
    last = raw[starts[-1]:]
    assert [info.id for info in conv.sessions] == ["request-1", "request-2", "request-3"] and conv.session_id == "request-3"
    assert len(conv.messages) == last.count("-------") + 1
    assert conv.messages[-1] == {"role": "assistant", "content": "All of them, through parse_amount."}
    # The system prompt was written as list content with cache_control: read back into its text.
    assert conv.messages[0]["role"] == "system" and conv.system_prompt.startswith("Act as an expert software developer")
    assert "cache_control" not in conv.system_prompt and conv.system_prompt.endswith("Reply in the language the user writes in.")
    (event,) = conv.compaction_events
    assert event.kind == "aider-summary" and conv.messages[event.position]["content"].startswith("I spoke to you previously")
    sizes = conv.metadata["requests"]
    assert [s["messages"] for s in sizes] == [info.message_count - 1 for info in conv.sessions]
    assert all(s["characters"] > 0 for s in sizes)


def test_llm_every_request_loads_and_other_lines_are_other_sessions():
    conv = load(SAMPLES / LLM)
    first = load(SAMPLES / LLM, session="request-1")
    assert first.messages[-2]["content"].startswith("parse_amount accepts")
    assert first.messages[-1]["content"].startswith("The narrow no-break space is not stripped.")
    report = conv.report
    assert report.read == len((SAMPLES / LLM).read_text(encoding="utf-8").split("\n")) - 1
    assert report.other_sessions + report.placed == report.read


def test_llm_request_without_response_and_unprefixed_continuation():
    text = ("TO LLM 2025-02-01T10:00:00\n-------\nSYSTEM Be brief.\n-------\nUSER type: text\nUSER text: first line\n"
            "second line\nUSER type: image_url\nUSER Image_url URL: data:image/png;base64,iVBORw0KGgo=\n")
    conv = load_text(text, name=".aider.llm.history")
    assert conv.messages[1]["content"] == [{"type": "text", "text": "first line\nsecond line"},
                                           {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]
    assert any("has no 'LLM RESPONSE'" in w for w in conv.warnings)


def test_llm_fragment_gets_a_specific_error():
    text = "-------\nSYSTEM Act as an expert.\n-------\nUSER fix it\nUSER please\n"
    with pytest.raises(FormatError) as excinfo:
        load(text.encode(), filename="cut.history")
    message = str(excinfo.value)
    assert message.startswith("cut.history: line 1: ") and "part of an aider LLM history" in message
    assert "'TO LLM <time>'" in message


def test_samples_keep_tool_pairs_trivially():
    for name in (CHAT, LLM):
        assert_tool_pairs(load(SAMPLES / name).messages)


def test_an_unfinished_multi_line_output_stops_at_aider_s_next_line():
    text = chat("# aider chat started at 2025-01-02 10:00:00", "", "#### fix it  ", "", "Here.", "",
                "> Tokens: 1.0k sent, 9 received.  ", "> # 1 SEARCH/REPLACE block failed to match!", "details",
                "", "#### never mind  ", "", "Ok.", "", "> Tokens: 1.1k sent, 2 received.  ")
    conv = load_text(text)
    assert [m["content"] for m in conv.messages] == ["fix it", "Here.", "never mind", "Ok."]
