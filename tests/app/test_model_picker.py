"""The sidebar's model picker: a provider, then that provider's models (litellm's table decides both)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.models import chat_models_by_provider, context_window, list_chat_models
from dashboard.sidebar import CUSTOM_MODEL
from tests.app.conftest import APP, TIMEOUT, run

GROUPS = chat_models_by_provider(modes=("chat", "responses"))


def test_the_model_box_lists_the_providers_models_only(app):
    provider, model = app.selectbox(key="model_provider"), app.selectbox(key="model")
    assert (provider.value, model.value) == ("openai", "gpt-4o")
    assert provider.options == list(GROUPS)
    assert model.options == [CUSTOM_MODEL, *GROUPS["openai"]]
    # Every listed model is under exactly one provider.
    assert sorted(m for models in GROUPS.values() for m in models) == list_chat_models(modes=("chat", "responses"))


def test_another_provider_keeps_the_model_under_its_plain_name_there(app):
    app.selectbox(key="model_provider").set_value("azure")
    run(app)
    assert app.selectbox(key="model").value == "azure/gpt-4o"
    assert app.selectbox(key="model").options == [CUSTOM_MODEL, *GROUPS["azure"]]
    assert app.number_input(key="context_length").value == context_window("azure/gpt-4o")


def test_a_provider_without_the_model_keeps_the_window_entered(app):
    app.number_input(key="context_length").set_value(100_000)
    run(app)
    app.selectbox(key="model_provider").set_value("anthropic")
    run(app)
    assert app.selectbox(key="model").value == CUSTOM_MODEL
    assert app.number_input(key="context_length").value == 100_000
    app.selectbox(key="model").set_value("claude-sonnet-4-5")
    run(app)
    assert app.number_input(key="context_length").value == context_window("claude-sonnet-4-5")


def test_a_link_naming_a_model_opens_its_provider():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["model"] = "claude-sonnet-4-5"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="model_provider").value == "anthropic"
    assert at.selectbox(key="model").value == "claude-sonnet-4-5"
    assert "claude-sonnet-4-5" in at.selectbox(key="model").options


def test_a_link_naming_the_custom_window_keeps_it():
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.query_params["model"] = CUSTOM_MODEL
    at.query_params["window"] = "100000"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="model").value == CUSTOM_MODEL
    assert at.number_input(key="context_length").value == 100_000
    assert not [w.value for w in at.warning if "model=" in w.value]
