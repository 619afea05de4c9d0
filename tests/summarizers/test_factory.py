"""core.summarizers.factory: one builder for the dashboard, the command line and the batch."""

from __future__ import annotations

import pytest

from core.batch import AnalysisSettings
from core.batch import summarizer_for as batch_summarizer
from core.summarizers.extractive import ExtractiveSummarizer
from core.summarizers.factory import LOCAL_MAX_TOKENS_CAP, make_summarizer
from core.summarizers.llm import DEFAULT_TIMEOUT_S, LiteLLMSummarizer


def test_each_kind():
    assert make_summarizer("none") is None
    assert isinstance(make_summarizer("extractive"), ExtractiveSummarizer)
    remote = make_summarizer("litellm", model="gpt-4o-mini", summary_model="gpt-4.1-nano", timeout=9, max_retries=1)
    assert isinstance(remote, LiteLLMSummarizer)
    assert (remote.model, remote.summary_model, remote.timeout, remote.max_retries) == (
        "gpt-4o-mini", "gpt-4.1-nano", 9, 1)
    assert remote.request_kwargs("P", 5_000)["max_tokens"] == 5_000
    server = make_summarizer("server", model="openai/local", api_base="http://127.0.0.1:9/v1")
    assert (server.timeout, server.max_retries) == (DEFAULT_TIMEOUT_S, 0)
    assert server.request_kwargs("P", 5_000)["max_tokens"] == LOCAL_MAX_TOKENS_CAP
    uncapped = make_summarizer("server", model="openai/local", api_base="http://127.0.0.1:9/v1", max_tokens_cap=None)
    assert uncapped.request_kwargs("P", 5_000)["max_tokens"] == 5_000
    with pytest.raises(ValueError, match="unknown summarizer 'gpt'"):
        make_summarizer("gpt")


def test_the_batch_builds_through_it(monkeypatch):
    monkeypatch.setenv("CONTEXT_LENS_API_KEY", "sk-batch-0123456789")
    settings = AnalysisSettings(summarizer="litellm", model="gpt-4o-mini", llm_timeout_s=7.5, llm_retries=3)
    built = batch_summarizer(settings)
    assert isinstance(built, LiteLLMSummarizer) and (built.timeout, built.max_retries) == (7.5, 3)
    assert "sk-batch" not in repr(built)
    assert batch_summarizer(AnalysisSettings(summarizer="none")) is None
