"""One number per quantity: every page rendered on one sample, and each figure that two pages show
(tokens before, tokens after, the summary, the threshold, the whole request) read off each of them
and compared.

Every figure is read as the page shows it (a metric, its help line, a table cell, a caption or the
request bar's scale), then checked against the others and against the library's own figure.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from core.inspections.request import request_breakdown, weigher_for
from tests.app.conftest import choose_sample, go, html_table, metrics, new_app, number, run

SAMPLE = "long_coding_session.json"


def helps(at: Any) -> dict[str, str]:
    return {m.label: m.proto.help for m in at.metric}


def table_with(at: Any, *columns: str) -> Any:
    for frame in at.dataframe:
        if all(column in frame.value.columns for column in columns):
            return frame.value
    raise AssertionError(f"no table with {columns}")


def numbers_after(pattern: str, texts: list[str]) -> list[int]:
    """Every number (with thousands separators) right after ``pattern`` in ``texts``."""
    found = []
    for text in texts:
        found += [int(value.replace(",", "")) for value in re.findall(pattern + r"\**([\d,]+)", text)]
    return found


@pytest.fixture(scope="module")
def shown() -> dict[str, Any]:
    """What each page shows, read once: ``{page: {...}}``."""
    at = new_app()
    choose_sample(at, SAMPLE)
    pages: dict[str, Any] = {}
    go(at, "overview")
    bar = next(h.value for h in at.main.get("html") if 'data-chart="whole-request"' in h.value)
    pages["overview"] = {"metrics": metrics(at), "bar": bar, "profile": at.selectbox(key="profile").value,
                         "model": at.selectbox(key="model").value, "captions": [c.value for c in at.caption]}
    go(at, "zones")
    pages["zones"] = {"metrics": metrics(at)}
    go(at, "compress")
    at.button(key="run_compressor").click()
    run(at)
    pages["compress"] = {"metrics": metrics(at), "helps": helps(at), "composition": table_with(at, "role", "before",
                                                                                               "after", "change")}
    go(at, "savings")
    pages["savings"] = {"metrics": metrics(at), "composition": table_with(at, "role", "before", "after", "change")}
    go(at, "release_comparison")
    pages["release_comparison"] = {"table": html_table(at, "releases_table"), "captions": [c.value for c in at.caption]}
    go(at, "parameter_sweep")
    pages["parameter_sweep"] = {"captions": [c.value for c in at.caption],
                                "cells": table_with(at, "threshold_percent", "summary_target_ratio", "protect_first_n",
                                                    "threshold_tokens")}
    go(at, "strategies")
    pages["strategies"] = {"metrics": metrics(at), "table": html_table(at, "strategies_table")}
    go(at, "timeline_replay")
    pages["timeline_replay"] = {"helps": helps(at)}
    pages["config"] = {key: at.slider(key=key).value for key in ("threshold_percent", "summary_target_ratio",
                                                                  "protect_first_n")}
    return pages


def release_row(shown: dict[str, Any]) -> Any:
    table = shown["release_comparison"]["table"]
    return table[table["release"] == shown["overview"]["profile"]].iloc[0]


def test_tokens_before(shown):
    exact = {
        "overview": number(next(v for k, v in shown["overview"]["metrics"].items() if k.startswith("Tokens ("))),
        "compress": number(shown["compress"]["helps"]["Tokens (tiktoken)"].removeprefix("before: ")),
        "savings": number(shown["savings"]["metrics"]["Original"]),
        "strategies": number(shown["strategies"]["metrics"]["Original"]),
        "composition": int(shown["compress"]["composition"]["before"].sum()),
    }
    assert len(set(exact.values())) == 1, exact
    estimate = {
        "overview": number(shown["overview"]["metrics"]["Hermes estimate"]),
        "compress": number(shown["compress"]["helps"]["Hermes estimate"].removeprefix("before: ")),
        # The same for every release: said once, under the table.
        "release_comparison": numbers_after("Tokens before: ", shown["release_comparison"]["captions"])[0],
        "parameter_sweep": numbers_after("Before compression: ", shown["parameter_sweep"]["captions"])[0],
    }
    assert len(set(estimate.values())) == 1, estimate
    assert exact["overview"] != estimate["overview"]  # two units, each shown the same everywhere


def test_tokens_after(shown):
    exact = {
        "compress": number(shown["compress"]["metrics"]["Tokens (tiktoken)"]),
        "composition": int(shown["compress"]["composition"]["after"].sum()),
        "savings": number(shown["savings"]["metrics"]["Final"]),
        "savings composition": int(shown["savings"]["composition"]["after"].sum()),
        "strategies budget": number(shown["strategies"]["metrics"]["Budget"]),
        "strategies row": int(shown["strategies"]["table"].set_index("strategy")
                              .loc[f"Hermes {shown['overview']['profile']}", "tokens_after"]),
        "cost": number(shown["compress"]["helps"]["Request after"]),
    }
    assert len(set(exact.values())) == 1, exact
    estimate = {
        "compress": number(shown["compress"]["metrics"]["Hermes estimate"]),
        "release_comparison": int(release_row(shown)["tokens_after"]),
        "parameter_sweep": numbers_after(r"ends at ", shown["parameter_sweep"]["captions"])[0],
    }
    assert len(set(estimate.values())) == 1, estimate
    assert exact["compress"] < number(shown["savings"]["metrics"]["Original"])


def test_summary_tokens(shown):
    def summary_row(table: Any) -> int:
        return int(table.set_index("role").loc["summary", "after"])

    figures = {
        "compress metric": number(shown["compress"]["metrics"]["Summary"]),
        "compress composition": summary_row(shown["compress"]["composition"]),
        "savings composition": summary_row(shown["savings"]["composition"]),
    }
    assert len(set(figures.values())) == 1, figures
    assert figures["compress metric"] > 0


def test_threshold(shown):
    cells = shown["parameter_sweep"]["cells"]
    config = shown["config"]
    current = cells[(cells["threshold_percent"].round(4) == round(config["threshold_percent"], 4))
                    & (cells["summary_target_ratio"].round(4) == round(config["summary_target_ratio"], 4))
                    & (cells["protect_first_n"] == config["protect_first_n"])]
    figures = {
        "overview": number(shown["overview"]["metrics"]["Compression threshold"]),
        "overview caption": numbers_after(r"Threshold: ", shown["overview"]["captions"])[0],
        "zones": number(shown["zones"]["metrics"]["Threshold"]),
        "release_comparison": int(release_row(shown)["threshold_tokens"]),
        "parameter_sweep": int(current["threshold_tokens"].iloc[0]),
        "timeline_replay": number(shown["timeline_replay"]["helps"]["Peak prompt"].removeprefix("threshold ")),
    }
    assert len(set(figures.values())) == 1, figures


def test_whole_request(shown):
    from core import CompressorConfig
    from core.formats import load
    from tests.app.conftest import SAMPLES

    shown_total = number(shown["overview"]["metrics"]["Whole request"])
    # The bar's scale ends at the largest figure it shows: here the request, larger than the window.
    scale_end = int(re.search(r"<span>0</span><span>([\d,]+) ", shown["overview"]["bar"]).group(1).replace(",", ""))
    window = numbers_after(r"[Ww]indow ", shown["overview"]["captions"])[0]  # the source line: "window 128,000"
    assert scale_end == max(shown_total, window)
    conversation = load(SAMPLES / SAMPLE)
    encoding = next(k for k in shown["overview"]["metrics"] if k.startswith("Tokens (")).removeprefix("Tokens (")[:-1]
    model = shown["overview"]["model"]
    request = request_breakdown(conversation, weigher_for(CompressorConfig(
        token_estimator="tiktoken", model="" if model.startswith("(") else model)))
    assert request.unit == encoding
    assert shown_total == request.total
