"""Helpers for driving the dashboard with Streamlit's AppTest."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import app_test as app_test_module

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app.py"
DATA = Path(__file__).resolve().parent / "data"
SAMPLES = ROOT / "sample_conversations"
TIMEOUT = 30


def sample_paths() -> list[Path]:
    from dashboard.memo import list_samples

    return list_samples(SAMPLES)


def new_app() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def app() -> AppTest:
    return new_app()


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def go(at: AppTest, page: str) -> AppTest:
    """Switch to ``pages/<page>.py`` and run it."""
    at.switch_page(f"pages/{page}.py")
    return run(at)


def plain(markdown: str) -> str:
    """Markdown source with backslash escapes removed (the page escapes file names and errors)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def table_with(at: AppTest, *columns: str) -> Any:
    """The first dataframe on the page that has all these columns."""
    for frame in at.dataframe:
        value = frame.value
        if all(column in value.columns for column in columns):
            return value
    raise AssertionError(f"no dataframe with columns {columns}")


def html_table(at: AppTest, name: str) -> Any:
    """The HTML table ``data-table=name`` on the page (``core.render.html_tables``) as a frame keyed by
    its columns' names, cells as shown; whole numbers ("1,234") as integers."""
    import pandas as pd

    from tests.helpers import HtmlTable

    def value(text: str) -> Any:
        text = text.strip()
        digits = text.replace(",", "")
        return int(digits) if digits.lstrip("-").isdigit() else text

    for element in at.get("html"):
        body = element.proto.body
        if f'data-table="{name}"' in body:
            table = HtmlTable(body)
            return pd.DataFrame([[value(cell) for cell in row] for row in table.rows],
                                columns=[column or "" for column, _ in table.headings])
    raise AssertionError(f"no HTML table {name!r} on the page")


def text_blocks(at: AppTest) -> dict[str, str]:
    """The page's plain-text blocks (``core.render.text_blocks``) by their ``data-text`` name, each
    text as the reader sees it."""
    from tests.helpers import TextBlocks

    blocks: dict[str, str] = {}
    for element in at.get("html"):
        if "data-text=" in element.proto.body:
            blocks.update(TextBlocks(element.proto.body).texts)
    return blocks


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def number(text: str) -> int:
    """``"12,345 msgs"`` -> 12345."""
    digits = "".join(ch for ch in text.split()[0] if ch.isdigit() or ch == "-")
    return int(digits)


def choose_sample(at: AppTest, filename: str) -> AppTest:
    go(at, "overview")
    at.selectbox(key="conversation_choice").set_value(f"Sample: {filename}")
    return run(at)


def upload(at: AppTest, name: str, data: bytes, mime: str = "application/json") -> AppTest:
    go(at, "overview")
    at.file_uploader(key="uploader").set_value((name, data, mime))
    return run(at)


def load_messages(path: Path, **kwargs: Any) -> list[dict[str, Any]]:
    """The messages the dashboard analyses by default: the context after the agent's last compaction."""
    from core.formats import load

    return load(path, **kwargs).live_context().messages


def pick_model(at: AppTest, model: str) -> AppTest:
    """Set the sidebar's model as a user does: its provider (from litellm's table), then the model;
    the custom window has no provider. The caller runs the app."""
    from core.models import load_model_table

    entry = load_model_table().get(model)
    if entry is not None and at.selectbox(key="model_provider").value != entry["litellm_provider"]:
        at.selectbox(key="model_provider").set_value(entry["litellm_provider"])
        run(at)
    at.selectbox(key="model").set_value(model)
    return at


def sidebar_config(at: AppTest) -> Any:
    """The CompressorConfig the sidebar widgets describe, built independently of the dashboard."""
    from core import CompressorConfig

    model = at.selectbox(key="model").value
    return CompressorConfig(
        context_length=int(at.number_input(key="context_length").value),
        threshold_percent=float(at.slider(key="threshold_percent").value),
        protect_first_n=int(at.slider(key="protect_first_n").value),
        protect_last_n=int(at.slider(key="protect_last_n").value),
        summary_target_ratio=float(at.slider(key="summary_target_ratio").value),
        profile=at.selectbox(key="profile").value,
        max_tokens=int(at.number_input(key="max_tokens").value) or None,
        token_estimator=at.radio(key="token_estimator").value,
        model="" if model.startswith("(") else model,
    )


@pytest.fixture
def media_files(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, bytes]]:
    """Every file the app hands to the browser (download buttons), by URL basename."""
    files: dict[str, bytes] = {}
    base = app_test_module.MemoryMediaFileStorage

    class RecordingStorage(base):  # type: ignore[misc, valid-type]
        def load_and_get_id(self, path_or_data, mimetype, kind, filename=None):  # noqa: ANN001
            file_id = super().load_and_get_id(path_or_data, mimetype, kind, filename)
            files[file_id] = path_or_data if isinstance(path_or_data, bytes) else bytes(path_or_data)
            return file_id

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", RecordingStorage)
    yield files


def download_bytes(files: dict[str, bytes], button: Any) -> bytes:
    file_id = Path(button.proto.url).stem
    return files[file_id]


def download_json(files: dict[str, bytes], button: Any) -> Any:
    return json.loads(download_bytes(files, button).decode("utf-8"))
