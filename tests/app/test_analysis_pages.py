"""The analysis views (timeline replay, strategies, fact retention, parameter sweep, API validity)
driven with Streamlit's AppTest: what each page shows is what the library computes for the same
conversation and parameters.

Each page runs inside a small navigation app (the dashboard's shared sidebar and state, the page
under test as the default page), with the conversation handed over as an upload in the session,
exactly as the upload page stores it.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from core import CompressorConfig, ContextCompressor
from core.formats import load
from core.inspections.lint import lint
from core.profiles import PROFILES
from core.summarizers.extractive import ExtractiveSummarizer
from core.views.replay import replay
from core.views.retention import FactIndex, lost_facts
from core.views.strategies import compare_strategies
from core.views.sweep import best_cells, sweep
from dashboard.memo import content_digest
from dashboard.sidebar import escape_markdown
from tests.app.conftest import html_table, text_blocks
from tests.helpers import CODING_SESSION, asst, call, tool, user
from tests.helpers import sys as system

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 30
PAGES = ("timeline_replay", "strategies", "fact_retention", "parameter_sweep", "api_validity", "release_comparison")
# The sidebar's defaults: gpt-4o (128,000 tokens), Hermes' parameters.
DEFAULT = CompressorConfig(context_length=128_000, model="gpt-4o", max_tokens=16_384)  # the sidebar: gpt-4o, its output limit


def page_app(page: str) -> AppTest:
    """An app with the dashboard's shared state whose only page is ``pages/<page>.py``."""
    script = (
        "import streamlit as st\n"
        "from dashboard.sidebar import init_state\n"
        "st.set_page_config(layout='wide')\n"
        "init_state()\n"
        f"st.navigation([st.Page({str(ROOT / 'pages' / (page + '.py'))!r}, default=True)]).run()\n"
    )
    return AppTest.from_string(script, default_timeout=TIMEOUT)


def open_page(page: str, messages: list[dict[str, Any]], name: str = "session.json") -> AppTest:
    at = page_app(page)
    data = json.dumps(messages).encode()
    at.session_state["uploaded_files"] = [{"name": name, "data": data, "digest": content_digest(data)}]
    at.session_state["_kept_conversation_choice"] = f"Uploaded: {name}"
    return run(at)


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def loaded(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages as the page sees them (through the importer)."""
    return load(json.dumps(messages).encode(), filename="session.json").messages


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


# Tables are found by their columns (AppTest does not expose st.dataframe keys); these are plain HTML
# tables, found by their name.
HTML_TABLES = {"replay_compactions", "retention_summary", "strategies_table"}
TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "strategies_violations": (("api", "rule"), ()),
    "retention_lost": (("kind", "value", "message_index"), ("kept",)),
    "sweep_best": (("threshold_percent", "final_tokens"), ("protect_first_n",)),
    "sweep_all": (("protect_first_n", "final_tokens"), ()),
    "lint_violations": (("api", "rule", "severity"), ()),
}


def frame(at: AppTest, name: str) -> Any:
    if name in HTML_TABLES:
        return html_table(at, name)
    wanted, unwanted = TABLES[name]
    for element in at.dataframe:
        columns = set(element.value.columns)
        if set(wanted) <= columns and not set(unwanted) & columns:
            return element.value
    raise AssertionError(f"no table {name!r} on the page")


def verdict(errors: int, warnings: int) -> str:
    """The API validity page's wording of one API's answer."""
    text = "accepted" if not errors else f"rejected: {errors} error" + ("s" if errors > 1 else "")
    return text + (f", {warnings} warning" + ("s" if warnings > 1 else "") if warnings else "")


def tool_loop(rounds: int = 30) -> list[dict[str, Any]]:
    messages = [system(), user("Fix the failing build in src/app.py")]
    for j in range(rounds):
        messages.append(asst(None, [call(f"c{j:02d}", "read_file", {"path": f"src/m{j:02d}.py"})]))
        messages.append(tool(f"c{j:02d}", f"out{j:02d} src/m{j:02d}.py " + "x" * 19_980))
    messages.append(asst("Done."))
    return messages


SESSION = CODING_SESSION


def test_every_page_runs_on_the_default_sample() -> None:
    """With nothing uploaded the dashboard opens on the long coding session (504 messages)."""
    for page in PAGES:
        at = run(page_app(page))
        assert not at.error, (page, [e.value for e in at.error])
        assert at.title[0].value
        assert "504 messages" in at.caption[0].value
        assert at.dataframe or at.get("plotly_chart")


def test_timeline_replay_page() -> None:
    messages = tool_loop()
    at = open_page("timeline_replay", messages)
    expected = replay(loaded(messages), DEFAULT, ExtractiveSummarizer())
    shown = metrics(at)
    assert shown["Assistant turns"] == "31"
    assert shown["Compactions"] == str(len(expected.compressed)) == "2"  # v0.19.0: the threshold is 83,712
    assert shown["Peak prompt"] == f"{expected.peak_prompt:,}"
    table = frame(at, "replay_compactions")
    assert table["message_index"].tolist() == [36, 60]
    # Each before and after shares a column (the table fits an 800-pixel page).
    assert table["tokens"].tolist() == [f"{r.tokens_before:,} → {r.tokens_after:,}" for r in expected.compactions]
    assert table["messages"].tolist() == [f"{r.messages_before:,} → {r.messages_after:,}"
                                          for r in expected.compactions]
    assert not {"tokens_before", "tokens_after", "messages_before", "messages_after"} & set(table.columns)
    assert table["outcome"].tolist() == ["summarized"] * 2
    # The replay, and how the summary grew from one compaction to the next.
    assert [chart.key for chart in at.get("plotly_chart")] == ["replay_chart", "replay_summary_chars"]
    # The last summary is shown as text.
    assert text_blocks(at)["replay_summary"] == expected.summaries[-1].split("\n", 1)[1]

    at.radio(key="replay_summarizer").set_value("No summarizer (the profile's fallback)")
    run(at)
    assert frame(at, "replay_compactions")["outcome"].tolist()[0] == "fallback"
    assert any("no auxiliary LLM provider configured" in w.value for w in at.warning)


def test_the_compactions_say_why_a_call_made_no_compaction_under_the_table() -> None:
    """A call whose handoff outweighs what it summarised makes no compaction: a list under the table
    says why, by the call's number (a column of these sentences made the rows taller than a screen and
    the table wider than an 800-pixel page). A call that compacted nothing has no tail: a dash, and
    the others whole numbers. When every call compacted, there is no list."""
    from tests.views.test_replay import stuck_on_a_dump

    messages = stuck_on_a_dump()
    at = open_page("timeline_replay", messages)
    at.selectbox(key="profile").set_value("v0.16.0")
    run(at)
    expected = replay(loaded(messages), dataclasses.replace(DEFAULT, profile="v0.16.0"), ExtractiveSummarizer())
    table = frame(at, "replay_compactions")
    assert table["outcome"].tolist() == [r.outcome for r in expected.compactions]
    assert "not_smaller" in table["outcome"].tolist()
    assert "why" not in table.columns and table.columns[-1] == "cooldown_s"
    assert table["tail_tokens"].tolist() == [r.tail_tokens if r.tail_tokens is not None else "—"
                                             for r in expected.compactions]
    assert None in [r.tail_tokens for r in expected.compactions]  # the dash is tested, not assumed
    why = at.get("caption")
    listed = next(c.value for c in why if c.value.startswith("Why no compaction:"))
    explained = [r for r in expected.compactions if r.why]
    assert explained and listed.count("\n- ") == len(explained)
    for r in explained:
        assert f"- **#{r.number}** (at message {r.message_index}): {escape_markdown(r.why)}" in listed
    plain = open_page("timeline_replay", tool_loop())
    assert frame(plain, "replay_compactions").columns[-1] == "cooldown_s"
    assert not any(c.value.startswith("Why no compaction:") for c in plain.get("caption"))


def test_a_long_replay_lists_its_compactions_in_a_grid() -> None:
    """Past COMPACTIONS_AS_HTML rows the compactions go in a data grid, which scrolls within its height
    and keeps its headings in view; the rows are the same."""
    messages = tool_loop(120)
    at = open_page("timeline_replay", messages)
    at.number_input(key="context_length").set_value(64_000)
    run(at)
    expected = replay(loaded(messages), dataclasses.replace(DEFAULT, context_length=64_000), ExtractiveSummarizer())
    assert len(expected.compactions) > 30
    grid = next(f.value for f in at.dataframe if {"compaction", "ineffective_strikes"} <= set(f.value.columns))
    assert grid["message_index"].tolist() == [r.message_index for r in expected.compactions]
    assert grid["tokens_after"].tolist() == [r.tokens_after for r in expected.compactions]
    assert "why" not in grid.columns  # the reasons, when a call gives one, are listed under the table
    assert not any('data-table="replay_compactions"' in e.proto.body for e in at.get("html"))


def test_timeline_replay_below_the_threshold() -> None:
    at = open_page("timeline_replay", SESSION)
    assert metrics(at)["Compactions"] == "0"
    assert "never reached the threshold" in at.info[0].value


def test_strategies_page() -> None:
    at = open_page("strategies", SESSION)
    # A first visit runs Hermes with the sidebar's profile only; every release is one click away.
    first = frame(at, "strategies_table")
    assert first["strategy"].tolist() == [f"Hermes {DEFAULT.profile}", "Truncation", "Observation masking (last 10)",
                                          "Codex-style"]
    # The first view (the other rows, shown while the Codex-style reset summarises the whole log) gave
    # way to the whole comparison: one chart (HTML bars, no Plotly figure), one table.
    charts = [e.proto.body for e in at.get("html") if 'data-chart="strategy_tokens"' in e.proto.body]
    assert len(charts) == 1 and not at.get("plotly_chart")
    assert re.findall(r'title="([^"]+) · tokens after', charts[0]) == first["strategy"].tolist()
    assert sum('data-table="strategies' in element.proto.body for element in at.get("html")) == 1
    at.checkbox(key="strategies_every_release").check()
    run(at)
    table = frame(at, "strategies_table")
    comparison = compare_strategies(loaded(SESSION), DEFAULT, ExtractiveSummarizer())
    expected = comparison.table
    hermes = [f"Hermes {name}" for name in PROFILES]
    assert table["strategy"].tolist() == [*hermes, "Truncation", "Observation masking (last 10)", "Codex-style"]
    assert first["tokens_after"].tolist() == expected["tokens_after"].tolist()[len(hermes) - 1:]
    assert table["tokens_after"].tolist() == expected["tokens_after"].tolist()
    assert table["anthropic_errors"].tolist() == [0] * (len(hermes) + 2) + [3]
    # The log itself has no API error: nothing is said about errors it already had.
    assert not any("already has" in caption.value for caption in at.caption)
    assert table["pairs_ok"].tolist() == ["yes"] * (len(hermes) + 3)
    assert table["retention_all"].tolist() == [f"{share * 100:.2f} %" for share in expected["retention_all"]]
    # What decides between them first (size, facts kept, a valid request), every column still shown.
    order = table.columns.tolist()
    assert order[:8] == ["strategy", "tokens_after", "fits_budget", "retention_all", "retention_compacted", "pairs_ok",
                         "openai_errors", "anthropic_errors"]
    assert sorted(order) == sorted(set(expected.columns) - {"facts_kept", "compacted_facts", "compacted_kept",
                                                          "pair_violations", "notes"})
    # The notes are listed under the table, one line per strategy that has any (as a column, an
    # 800-pixel page cut them at its edge).
    noted = expected[expected["notes"] != ""]
    assert len(noted) >= 2
    listed = next(c.value for c in at.caption if c.value.startswith("Notes:"))
    assert listed.count("\n- ") == len(noted)
    for name, notes in zip(noted["strategy"], noted["notes"], strict=True):
        assert f"**{name}**: {notes}" in listed.replace("\\", "")

    # The output picked is read as a thread (one card per output message), the summary's card marked.
    def thread() -> str:
        return next(e.proto.body for e in at.get("html") if 'id="cl-strategies-0"' in e.proto.body)

    hermes_run = comparison.run(f"Hermes {DEFAULT.profile}")
    assert thread().count('id="cl-strategies-') == min(len(hermes_run.messages), 50)
    assert thread().count(">SUMMARY<") == 1
    at.selectbox(key="strategies_pick").set_value("Codex-style")
    run(at)
    violations = frame(at, "strategies_violations")
    assert violations["rule"].tolist() == ["alternation"] * 3
    codex = comparison.run("Codex-style")
    assert thread().count('id="cl-strategies-') == len(codex.messages)
    assert thread().count(">SUMMARY<") == 1 and "output #0" in thread()
    # Every other card names the original it came from.
    assert thread().count(">FROM #") == len(codex.messages) - 1
    assert at.get("download_button")

    at.number_input(key="strategies_keep_last").set_value(1)
    run(at)
    assert frame(at, "strategies_table")["strategy"].tolist()[len(PROFILES) + 1] == "Observation masking (last 1)"


def test_fact_retention_page() -> None:
    at = open_page("fact_retention", SESSION)
    messages = loaded(SESSION)
    result = ContextCompressor(DEFAULT, summarizer=ExtractiveSummarizer()).compress(messages)
    scored = FactIndex(messages).retention_of(range(result.plan.compress_start, result.plan.compress_end), result.messages)
    summary = frame(at, "retention_summary")
    assert summary["run"].tolist() == ["Hermes (sidebar parameters, offline summary)"]
    assert summary["total"].tolist() == [len(scored)]
    assert summary["kept"].tolist() == [int(scored["kept"].sum())]
    lost = lost_facts(scored)
    if len(lost):
        assert frame(at, "retention_lost")["value"].tolist() == lost["value"].tolist()

    # The Strategies page's comparison, with that page's options: by default the sidebar's release only.
    at.radio(key="retention_source").set_value("Every strategy")
    run(at)
    assert frame(at, "retention_summary")["run"].tolist() == [
        f"Hermes {DEFAULT.profile}", "Truncation", "Observation masking (last 10)", "Codex-style"]
    at.selectbox(key="retention_pick").set_value("Codex-style")
    run(at)
    assert metrics(at)["Facts in the compacted part"] == str(
        len(FactIndex(messages).facts_in([2, 3, 4, 5, 7, 8, 9])))
    at.session_state["_kept_strategies_every_release"] = True  # as set on the Strategies page
    at.session_state["_kept_strategies_keep_last"] = 3
    run(at)
    assert frame(at, "retention_summary")["run"].tolist() == [
        *(f"Hermes {name}" for name in PROFILES), "Truncation", "Observation masking (last 3)", "Codex-style"]


def test_the_facts_each_summary_lost_are_listed_one_summary_per_tab() -> None:
    """Each summary's lost facts in a tab of its own, the page's width (side by side, a third of it
    cut long paths and URLs), its count in the tab's label: the summary's facts less those kept."""
    at = run(page_app("fact_retention"))  # the long sample: the shorter summaries lose facts
    compared = next(d.value for d in at.dataframe if {"summary", "facts", "kept"} <= set(d.value.columns))
    lost_counts = [int(facts - kept) for facts, kept in zip(compared["facts"], compared["kept"], strict=True)]
    lost_tabs = [tab for tab in at.tabs if tab.label.startswith("Lost by")]
    assert [tab.label for tab in lost_tabs] == [
        f"Lost by {what} ({n})" for what, n in zip(
            ["the offline summary", "the offline summary at the fallback's size", "the fallback"], lost_counts,
            strict=True)]
    assert sum(lost_counts) > 0
    for tab, n in zip(lost_tabs, lost_counts, strict=True):
        shown = [c for c in tab.children.values() if type(c).__name__ == "Dataframe"]
        assert (len(shown[0].value) if shown else 0) == n
    # The summaries themselves, one per tab too, named as in the table.
    summary_tabs = {tab.label: tab for tab in at.tabs if not tab.label.startswith("Lost by")}
    assert list(summary_tabs) == compared["summary"].tolist()
    assert all(len(next(iter(tab.children.values())).value) > 100 for tab in summary_tabs.values())


def test_parameter_sweep_page() -> None:
    messages = tool_loop(20)
    at = open_page("parameter_sweep", messages)
    table = sweep(loaded(messages), DEFAULT, protect_first_ns=(0, 1, 2, 3, 5, 8))
    shown = frame(at, "sweep_best")
    best = best_cells(table[table["protect_first_n"] == 3], top=8)
    assert shown["final_tokens"].tolist() == best["final_tokens"].tolist()
    assert shown["threshold_percent"].tolist() == best["threshold_percent"].tolist()
    # The result right after the parameters (a narrow page scrolls the later columns out of sight).
    assert shown.columns[:4].tolist() == ["threshold_percent", "summary_target_ratio", "final_tokens", "savings_pct"]
    every_cell = next(e for e in at.dataframe if "protect_first_n" in e.value.columns)
    assert list(every_cell.proto.column_order)[:6] == ["protect_first_n", "threshold_percent", "summary_target_ratio",
                                                        "final_tokens", "savings_pct", "outcome"]
    assert set(every_cell.proto.column_order) == set(every_cell.value.columns)  # none hidden
    assert len(at.get("plotly_chart")) == 1
    # Only the head size shown is computed: its 7 x 8 grid (each other one when it is chosen).
    assert set(frame(at, "sweep_all")["protect_first_n"]) == {3} and len(frame(at, "sweep_all")) == 56

    # The caption gives the time the grid took to compute, also when it is read back from the memo.
    took = [c.value for c in at.caption if "computed in" in c.value]
    assert len(took) == 1
    run(at)
    assert [c.value for c in at.caption if "computed in" in c.value] == took

    at.selectbox(key="sweep_first").set_value(1)
    run(at)
    best_one = best_cells(table[table["protect_first_n"] == 1], top=8)
    assert frame(at, "sweep_best")["final_tokens"].tolist() == best_one["final_tokens"].tolist()
    assert set(frame(at, "sweep_all")["protect_first_n"]) == {1}

    # 20 rounds are about 101,000 tokens: with gpt-4o's 16,384-token reserve (v0.18.0) 0.9 of the remaining
    # 111,616 is 100,454, which they reach; no cell of the grid is left untriggered, unless forced off.
    all_cells = frame(at, "sweep_all")
    firsts = all_cells[all_cells["protect_first_n"] == 1]
    over = firsts[firsts["threshold_tokens"] > firsts["tokens_before"]]
    under = firsts[firsts["threshold_tokens"] <= firsts["tokens_before"]]
    assert set(over["outcome"]) <= {"not triggered"} and set(under["outcome"]) == {"summarized"}
    at.selectbox(key="profile").set_value("v0.16.0")  # no reserve: 0.8 and 0.9 (102,400 and 115,200) stay out
    run(at)
    all_cells = frame(at, "sweep_all")
    high = all_cells[(all_cells["threshold_percent"] >= 0.8) & (all_cells["protect_first_n"] == 1)]
    assert set(high["outcome"]) == {"not triggered"}
    at.checkbox(key="sweep_respect_trigger").set_value(False)
    run(at)
    all_cells = frame(at, "sweep_all")
    high = all_cells[(all_cells["threshold_percent"] >= 0.8) & (all_cells["protect_first_n"] == 1)]
    assert set(high["outcome"]) == {"summarized"}


@pytest.mark.parametrize("with_extras", [False, True, "strategies page options"])
def test_api_validity_page(with_extras: bool | str) -> None:
    broken = [system(), user("Deploy."), asst(None, [call("d1", "terminal", {"command": "make deploy"})]),
              user("Well?"), tool("d1", "done")] + SESSION[1:]
    at = page_app("api_validity")
    data = json.dumps(broken).encode()
    at.session_state["uploaded_files"] = [{"name": "broken.json", "data": data, "digest": content_digest(data)}]
    at.session_state["_kept_conversation_choice"] = "Uploaded: broken.json"
    if with_extras:
        at.session_state["_kept_lint_strategies"] = True
        at.session_state["_kept_lint_replay"] = True
    if with_extras == "strategies page options":  # as last set on the Strategies page
        at.session_state["_kept_strategies_every_release"] = True
        at.session_state["_kept_strategies_keep_last"] = 3
    run(at)
    overview = html_table(at, "lint_overview")
    # One verdict per API beside each name, in words (an HTML table: it wraps on a narrow page).
    assert overview.columns.tolist() == ["conversation", "OpenAI", "Anthropic", "messages"]
    messages = loaded(broken)
    upload_errors = lint(messages)
    assert overview["conversation"].tolist()[0] == "The conversation as loaded"
    assert int(((upload_errors["api"] == "openai") & (upload_errors["severity"] == "error")).sum()) == 2
    assert overview["OpenAI"].tolist()[0] == "rejected: 2 errors"
    assert overview["Anthropic"].tolist()[0] == "rejected: 3 errors"
    assert overview["messages"].tolist()[0] == len(messages)
    compressed = ContextCompressor(DEFAULT, summarizer=ExtractiveSummarizer()).compress(messages).messages
    found = lint(compressed)
    errors = int(((found["api"] == "openai") & (found["severity"] == "error")).sum())
    warnings = int(((found["api"] == "openai") & (found["severity"] == "warning")).sum())
    assert overview["OpenAI"].tolist()[1] == verdict(errors, warnings)
    # The Strategies page's comparison with that page's options: by default the sidebar's release only.
    every_release = with_extras == "strategies page options"
    releases = list(PROFILES) if every_release else [DEFAULT.profile]
    extras = [*(f"Strategy: Hermes {name}" for name in releases), "Strategy: Truncation",
              f"Strategy: Observation masking (last {3 if every_release else 10})", "Strategy: Codex-style",
              "Timeline replay: the final context"]
    assert overview["conversation"].tolist()[2:] == (extras if with_extras else [])
    # A rejected verdict stands out (bold); an accepted one does not.
    body = next(e.proto.body for e in at.get("html") if 'data-table="lint_overview"' in e.proto.body)
    cells = dict((text, style) for style, text in re.findall(r'<td style="([^"]*)">([^<]*)</td>', body))
    assert "font-weight: 600" in cells["rejected: 2 errors"] and "font-weight: 600" in cells["rejected: 3 errors"]
    assert all("font-weight: 600" not in style for text, style in cells.items() if text.startswith("accepted"))
    violations = frame(at, "lint_violations")
    assert violations["rule"].tolist() == ["unanswered_tool_call", "misplaced_tool_result",
                                           "tool_result_not_next", "alternation", "orphan_tool_result"]
    at.radio(key="lint_api").set_value("anthropic")
    run(at)
    assert frame(at, "lint_violations")["rule"].tolist() == ["tool_result_not_next", "alternation",
                                                             "orphan_tool_result"]


def test_transcript_text_is_never_rendered_as_markup() -> None:
    payload = "<img src=x onerror=alert(1)> **bold** [link](http://example.com)"
    messages = [system(), user(payload), asst("ok " + payload)] + SESSION[1:]
    for page in PAGES:
        at = open_page(page, messages)
        for element in list(at.markdown) + list(at.caption) + list(at.warning) + list(at.info) + list(at.error):
            assert "<img" not in element.value, (page, element.value)
