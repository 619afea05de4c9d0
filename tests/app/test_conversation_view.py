"""The readable conversation on the overview: paging, search and jump on a 10,000-message log."""

from __future__ import annotations

import json
import re

from tests.app.conftest import plain, run, upload

MESSAGES = 10_000


def big_log() -> list[dict]:
    """A long agent session: a task, then call / result / remark triples; message 7,777 holds a unique word."""
    messages: list[dict] = [{"role": "system", "content": "You are a coding agent."},
                            {"role": "user", "content": "Fix the **build**, see <script>alert(1)</script>."}]
    step = 0
    while len(messages) < MESSAGES:
        call_id = f"c{step}"
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "run_shell", "arguments": json.dumps({"command": f"make step{step}"})}}]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": f"step {step} output\n" * 3})
        messages.append({"role": "assistant", "content": f"Step {step} done."})
        step += 1
    messages = messages[:MESSAGES]
    messages[7_777] = {"role": "assistant", "content": "Found the zanzibar regression."}
    return messages


def thread_html(at) -> str:
    return "".join(h.proto.body for h in at.get("html") if "cl-thread" in h.proto.body)


def cards(at) -> list[int]:
    return [int(n) for n in re.findall(r'id="cl-overview-(\d+)"', thread_html(at))]


def test_a_10k_message_log_is_read_a_page_at_a_time_with_search_and_jump(app):
    upload(app, "long.json", json.dumps({"messages": big_log()}).encode())
    assert cards(app) == list(range(50))
    assert app.number_input(key="overview_thread_page").max == MESSAGES // 50
    html = thread_html(app)
    assert "Calls <span class=\"cl-tool-name\">run_shell</span>" in html
    assert "Result of <span class=\"cl-tool-name\">run_shell</span>" in html
    assert "&lt;script&gt;" in html and "<strong>build</strong>" in html

    app.number_input(key="overview_thread_page").set_value(3)
    run(app)
    assert cards(app) == list(range(100, 150))

    app.text_input(key="overview_thread_query").set_value("zanzibar")
    run(app)
    assert cards(app) == [7_777]
    assert any("1 shown of 1 matching “zanzibar”" in plain(c.value) for c in app.caption)

    # A jump to a message the search hides clears the search, opens its page and scrolls to it.
    app.number_input(key="overview_thread_jump").set_value(9_876)
    run(app)
    assert app.text_input(key="overview_thread_query").value == ""
    assert app.number_input(key="overview_thread_page").value == 9_876 // 50 + 1
    assert 9_876 in cards(app)
    scripts = [h.proto.body for h in app.get("html") if "scrollIntoView" in h.proto.body]
    assert any("#cl-overview-9876" in body for body in scripts)
