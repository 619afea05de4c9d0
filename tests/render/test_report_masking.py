"""The HTML report masks the credentials in the text it shows, and says what it masked and where.

The report is made to be attached to an issue: a password in a kept message, a key in the summary or
in the file's name must not travel with it. With masking turned off, the report says that nothing
was masked.
"""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from core import CompressorConfig, ContextCompressor
from core.render.report import ReportInput, html_report
from core.tokens import get_counter
from core.views.preview import preview_table
from core.views.zones import analyze_zones

KEY = "sk-proj-Q7vX2mN9pL4kR8tY1wE6uI3oA5sD0fG2hJ7kL9zX4cV"
PASSWORD = "Xy9#Secret"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
LOGIN = "P@ssw0rd123x"  # in the summary: the compressor's own redaction lets this one through


def _leaks(secret: str, text: str) -> bool:
    return any(secret[i:i + 10] in text for i in range(len(secret) - 9))


def _conversation() -> list[dict]:
    messages = [{"role": "system", "content": "You are a coding agent."}]
    for turn in range(30):
        messages.append({"role": "user", "content": f"Step {turn}: keep going with the migration."})
        messages.append({"role": "assistant", "content": f"Done with step {turn}; the tests pass."})
    call = {"id": "c1", "type": "function",
            "function": {"name": "terminal", "arguments": json.dumps({"command": f"mysql -u root -p'{PASSWORD}' shop"})}}
    messages += [
        {"role": "user", "content": f"Use this key for the deploy: {KEY}"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": f"aws_secret_access_key = {AWS_SECRET}"},
        {"role": "assistant", "content": "The import is done."},
    ]
    return messages


@pytest.fixture(scope="module")
def report_input() -> ReportInput:
    messages = _conversation()
    config = CompressorConfig(context_length=8_000, profile="v0.16.0")
    result = ContextCompressor(config, summarizer=lambda prompt, tokens: f"## Active Task\nLog in with admin / {LOGIN}").compress(
        messages, force=True)
    counter = get_counter("cl100k_base")
    return ReportInput(
        filename=f"{KEY}.json",  # a key as a file name (a temporary file named after it)
        generated=datetime(2026, 12, 3, 10, 0),
        parameters=[("Hermes release", "v0.16.0")],
        zones=analyze_zones(messages, config),
        result=result,
        summarizer="a test summarizer",
        preview=preview_table(result, counter, messages),
        release="v0.16.0",
    )


def test_the_report_masks_every_credential_it_would_show(report_input: ReportInput) -> None:
    report = html_report(report_input)
    assert report.startswith("<!DOCTYPE html>")
    for secret in (KEY, PASSWORD, AWS_SECRET, LOGIN):
        assert not _leaks(secret, report), secret
    assert "<h2>Credentials</h2>" in report
    # It says what was masked, by layer and kind, and where.
    section = report.split("<h2>Credentials</h2>", 1)[1].split("<h2>", 1)[0]
    assert "masked in this report" in section and "the summary" in section and "the file name" in section
    assert "reference" in section and "strict" in section and "password" in section


def test_with_masking_off_the_report_says_nothing_was_masked(report_input: ReportInput) -> None:
    from dataclasses import replace

    report = html_report(replace(report_input, mask_secrets=False))
    assert "Nothing was masked in this report" in report
    assert KEY in report  # the transcript's text as it is, which the report says


@pytest.mark.parametrize("release", ["v0.18.1", "v0.19.0"])
def test_a_release_that_shares_its_predecessors_redaction_masks_with_it(report_input: ReportInput,
                                                                        release: str) -> None:
    """v0.19.0 runs v0.18.1's redaction rules: a report of a v0.19.0 run masks with them (it once failed
    to find rules named after the release)."""
    from dataclasses import replace

    report = html_report(replace(report_input, release=release, parameters=[("Hermes release", release)]))
    for secret in (KEY, PASSWORD, AWS_SECRET, LOGIN):
        assert not _leaks(secret, report), secret
