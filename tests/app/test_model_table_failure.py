"""A failure to read litellm's model table shows in one run only: the lookups are cached, their
failures are not, so the next session gets the model list, its window and its output reserve."""

from __future__ import annotations

import streamlit as st

import core.models
from dashboard import model_picker
from dashboard.sidebar import CUSTOM_MODEL
from tests.app.conftest import new_app


def _sidebar_model(at):
    model = next(box for box in at.sidebar.selectbox if box.label == "Model")
    window = next(box for box in at.sidebar.number_input if box.label == "Context length (tokens)")
    reserve = next(box for box in at.sidebar.number_input if box.label == "Output reserve (max_tokens)")
    return model.value, window.value, reserve.value


def test_a_failed_table_read_is_not_kept_for_later_sessions(monkeypatch):
    def unreadable(*args, **kwargs):
        raise core.models.ModelTableError("the model table could not be read")

    st.cache_data.clear()
    model_picker._models_by_provider.clear()
    model_picker._provider_index.clear()
    with monkeypatch.context() as patch:
        for name in ("list_chat_models", "context_window", "output_limit"):
            patch.setattr(core.models, name, unreadable)
        broken = new_app()
        assert _sidebar_model(broken) == (CUSTOM_MODEL, 128_000, 0)
        # No provider to pick from: the Model box offers the custom window alone.
        assert not [box for box in broken.sidebar.selectbox if box.label == "Provider"]
        assert next(box for box in broken.sidebar.selectbox if box.label == "Model").options == [CUSTOM_MODEL]

    # A new session once the table reads again: the default model with its figures.
    expected = (core.models.context_window("gpt-4o"), core.models.output_limit("gpt-4o"))
    assert expected == (128_000, 16_384)
    again = new_app()
    assert _sidebar_model(again) == ("gpt-4o", *expected)
    assert again.selectbox(key="model_provider").value == "openai"
