"""The Release comparison page: every release's compression of the same transcript, side by side."""

from __future__ import annotations

import datetime

from core import CompressorConfig
from core.formats import load
from core.profiles import PROFILES
from core.summarizers.extractive import ExtractiveSummarizer
from core.views.releases import compare_releases
from tests.app.conftest import SAMPLES, choose_sample, go, html_table, new_app, plain, run, text_blocks
from tests.helpers import HtmlTable, count_compressions, release_bands

LONG = SAMPLES / "long_coding_session.json"
SIDEBAR = CompressorConfig(model="gpt-4o", max_tokens=16_384)  # the sidebar's defaults


def _frame(at, key):
    """A data grid of the page, found by its columns (the test harness does not expose widget keys of
    tables)."""
    for element in at.dataframe:
        if key == "releases_moves" and list(element.value.columns)[:2] == ["messages", "count"]:
            return element.value
    raise AssertionError(f"no table {key!r} on the page")


def test_the_figures_are_one_plain_table_the_outcome_first():
    """Plain HTML with wrapped headings, so every column sits on an 800-pixel page (a data grid put the
    zones' boundaries past its edge); the outcome and its size come before the zones that explain them."""
    at = new_app()
    go(at, "release_comparison")
    table = html_table(at, "releases_table")
    assert list(table.columns)[:7] == ["release", "threshold_tokens", "triggers", "outcome", "tokens_after",
                                      "savings_pct", "messages_after"]
    assert not any("threshold_tokens" in element.value.columns for element in at.dataframe)
    # None left out but the tokens before, the same for every release: said once under the table.
    library = compare_releases(load(LONG).messages, SIDEBAR, ExtractiveSummarizer,
                               now=datetime.datetime.now().astimezone()).table
    assert library["tokens_before"].nunique() == 1
    assert set(table.columns) == set(library.columns) - {"tokens_before", "summary_layout", "repairs", "focus",
                                                         "cooldown_s"}
    assert any(c.value.startswith(f"Tokens before: {int(library['tokens_before'].iloc[0]):,} for every release.")
               for c in at.caption)
    assert table["triggers"].tolist() == ["yes" if t else "no" for t in library["triggers"]]
    assert table["savings_pct"].tolist() == [f"{s:.2f} %" for s in library["savings_pct"]]
    cells = HtmlTable(next(e.proto.body for e in at.get("html") if 'data-table="releases_table"' in e.proto.body))
    assert [text for _, text in cells.headings][:7] == ["release", "threshold", "reaches it", "outcome",
                                                         "tokens after", "saved", "messages after"]
    # The sidebar's release in bold; tokens after unlike the release above, shaded.
    after = library["tokens_after"].tolist()
    column = list(table.columns).index("tokens_after")
    shaded = [index for index, row in enumerate(cells.styles) if "background-color" in row[column]]
    assert shaded == [i for i in range(1, len(after)) if after[i] != after[i - 1]] and shaded
    assert [i for i, row in enumerate(cells.styles) if "font-weight: bold" in row[0]] == [len(PROFILES) - 1]


def test_every_release_is_a_row_with_the_library_figures():
    at = new_app()
    go(at, "release_comparison")
    assert not at.exception, [e.value for e in at.exception]
    table = html_table(at, "releases_table")
    assert table["release"].tolist() == list(PROFILES)
    library = compare_releases(load(LONG).messages, SIDEBAR, ExtractiveSummarizer,
                               now=datetime.datetime.now().astimezone())
    expected = library.table
    for column in ("threshold_tokens", "head", "middle", "tail", "messages_after", "tokens_after"):
        assert table[column].tolist() == expected[column].tolist(), column
    # How each release writes its summary, in a table of its own, row for row: plain HTML, whose text
    # wraps at any width (no data grid).
    writing = html_table(at, "releases_writing")
    assert writing["release"].tolist() == list(PROFILES)
    for column in ("summary_layout", "repairs", "focus"):
        assert writing[column].tolist() == expected[column].tolist(), column
    assert writing["cooldown_s"].tolist() == [int(s) for s in expected["cooldown_s"]]
    assert not any("summary_layout" in element.value.columns for element in at.dataframe)
    cells = HtmlTable(next(e.proto.body for e in at.get("html") if 'data-table="releases_writing"' in e.proto.body))
    assert [text for _, text in cells.headings] == ["release", "summary message", "tool-pair repair",
                                                     "focus of the summary", "cooldown (s)"]
    # The sidebar's release in bold; a summary message unlike the release above it, shaded.
    layouts = expected["summary_layout"].tolist()
    shaded = [index for index, row in enumerate(cells.styles) if "background-color" in row[1]]
    assert shaded == [i for i in range(1, len(layouts)) if layouts[i] != layouts[i - 1]] and shaded
    assert [i for i, row in enumerate(cells.styles) if "font-weight: bold" in row[0]] == [len(PROFILES) - 1]
    assert "summary_layout" not in table.columns
    # On the long session v0.18.0 summarises more: its tail budget counts whole tool-call envelopes.
    assert table["tail"].tolist()[3] < table["tail"].tolist()[2]
    markdown = " ".join(plain(m.value) for m in at.markdown)
    assert "v0.17.0 → v0.18.0" in markdown and "envelope" in markdown
    assert "_compressed_summary flag" in " ".join(writing["summary_layout"])
    # Where each release puts every message: one band per release, drawn as HTML (no chart script).
    (zones_html,) = [e.proto.body for e in at.get("html") if 'data-chart="release_zones"' in e.proto.body]
    bands = release_bands(zones_html)
    assert [release for release, _ in bands] == list(PROFILES)
    for (_release, runs), release_run in zip(bands, library.runs, strict=True):
        assert [zone for zone, first, last in runs for _ in range(first, last + 1)] == release_run.zones
    assert not at.get("plotly_chart")
    # The moves shown by default: from the release before the newest to the newest (the sidebar's).
    moves = _frame(at, "releases_moves")
    assert list(moves.columns) == ["messages", "count", "v0.18.1", "v0.19.0"]
    assert moves.astype(str).values.tolist() == library.moves("v0.18.1", "v0.19.0").astype(str).values.tolist()
    # Between v0.17.0 and v0.18.0 the envelope weight moves tail messages into the summary.
    older = library.moves("v0.17.0", "v0.18.0")
    assert set(older["v0.17.0"]) == {"TAIL"} and set(older["v0.18.0"]) == {"MIDDLE"}
    v17, v18 = expected.loc[2], expected.loc[3]
    assert older["count"].sum() == v17["tail"] - v18["tail"]


def test_without_a_summarizer_each_release_writes_its_fallback():
    at = new_app()
    choose_sample(at, "resumed_with_handoff_summary.json")
    go(at, "release_comparison")
    at.radio(key="releases_summarizer").set_value("No summarizer (each release's fallback)")
    run(at)
    table = html_table(at, "releases_table")
    assert set(table["outcome"]) == {"fallback"}
    assert all("fallback text" in layout for layout in html_table(at, "releases_writing")["summary_layout"])
    codes = text_blocks(at)
    assert "Summary generation was unavailable" in codes["releases_summary_v0.15.1"]  # its static note
    assert "## Historical Task Snapshot" in codes["releases_summary_v0.17.0"]
    assert "## Historical Task Snapshot" in codes["releases_summary_v0.19.0"]


def test_a_tiny_conversation_is_too_small_for_every_release():
    at = new_app()
    tiny = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    import json

    from dashboard.memo import content_digest

    data = json.dumps(tiny).encode()
    at.session_state["uploaded_files"] = [{"name": "tiny.json", "data": data, "digest": content_digest(data)}]
    at.session_state["_kept_conversation_choice"] = "Uploaded: tiny.json"
    go(at, "release_comparison")
    assert not at.exception
    table = html_table(at, "releases_table")
    assert set(table["outcome"]) == {"too_small"}
    # No zones, said as such (0 messages in each would read as an empty conversation).
    for column in ("head", "middle", "tail"):
        assert set(table[column]) == {"—"}, column
    # Only the threshold differs (v0.18.0 takes the output reserve off, v0.19.0 raises 50 % to 75 %).
    assert any(plain(m.value) == "**What differs between the releases here:** threshold." for m in at.markdown)


def test_a_table_of_wrapped_rows_is_tall_enough_for_every_release(monkeypatch):
    """Six releases in rows tall enough to wrap their long text: the grid is given their height (at
    Streamlit's default height the newest release was cut off below the fifth row)."""
    import pandas as pd
    import streamlit as st

    from dashboard import ui

    asked: list[dict] = []
    monkeypatch.setattr(st, "dataframe", lambda frame, **options: asked.append(options))
    rows = pd.DataFrame({"release": list(PROFILES), "summary layout": ["standalone user message, END marker, _compressed_summary flag (was standalone user message)"] * 6})
    ui.table(rows, key="releases")
    assert asked[-1]["row_height"] == ui.WRAP_ROW_HEIGHT
    assert asked[-1]["height"] == ui.WRAP_ROW_HEIGHT * len(PROFILES) + ui.ROW_PX + 3
    many = pd.DataFrame({"text": ["a long line of text that wraps onto a second line of the grid"] * 40})
    ui.table(many)
    assert asked[-1]["height"] == ui.WRAP_ROW_HEIGHT * ui.WRAP_VISIBLE_ROWS + ui.ROW_PX + 3  # then it scrolls


def test_the_sidebar_release_s_offline_run_is_the_one_the_other_pages_made(monkeypatch):
    """With the offline summary, the sidebar's release is the Hermes run Zones (and the other pages)
    show: the page makes the five other releases only, and its row is that run's figures."""
    made = count_compressions(monkeypatch)
    at = new_app()
    run(at)
    # Under a name of its own: a transcript no other test's session has analysed yet.
    from dashboard.memo import content_digest

    data = LONG.read_bytes()
    at.session_state["uploaded_files"] = [{"name": "shared_run.json", "data": data, "digest": content_digest(data)}]
    at.session_state["_kept_conversation_choice"] = "Uploaded: shared_run.json"
    go(at, "zones")
    assert made == ["v0.19.0"]
    made.clear()
    go(at, "release_comparison")
    assert not at.exception, [e.value for e in at.exception]
    assert made == [release for release in PROFILES if release != "v0.19.0"]
    table = html_table(at, "releases_table")
    expected = compare_releases(load(LONG).messages, SIDEBAR, ExtractiveSummarizer,
                                now=datetime.datetime.now().astimezone()).table
    for column in ("outcome", "head", "middle", "tail", "messages_after", "tokens_after"):
        assert table[column].tolist() == expected[column].tolist(), column
    # Without the offline summary nothing is shared: every release runs on the page.
    made.clear()
    at.radio(key="releases_summarizer").set_value("No summarizer (each release's fallback)")
    run(at)
    assert made == list(PROFILES)
