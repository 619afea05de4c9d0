"""The exact token counts the dashboard's first page makes on the bundled default sample.

    python sample_conversations/first_page_counts.py           # (re)write token_counts/<sample>.json
    python sample_conversations/first_page_counts.py --check   # exit 1 when that file is stale

The dashboard opens on the default sample and counts its tokens exactly; reading an encoding's
files for that is about 0.4 s of the first page. This script opens the first page here, in a
process of its own and without any table, and writes down by text digest every count it made
(tiktoken's own counts). The dashboard hands them to its counters when it reads those exact
bytes (``dashboard.memo.learn_sample_counts``); any other count reads the encoding as usual.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def first_page_counts() -> tuple[str, dict]:
    """(the default sample's name, its table), from a first-page run in this process."""
    from streamlit.testing.v1 import AppTest

    import dashboard.loading
    from core.tokens import encodings_loaded, get_counter, text_digest
    from dashboard.memo import content_digest, default_sample, list_samples

    sample = default_sample(list_samples())
    if sample is None:
        raise SystemExit("no bundled sample")
    dashboard.loading.learn_sample_counts = lambda *_args, **_kwargs: []  # count everything here
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    app.run()
    if app.exception:
        raise SystemExit(f"the first page failed: {app.exception[0].value}")
    counts = {
        encoding: dict(sorted((text_digest(text), tokens) for text, tokens in get_counter(encoding).counts().items()))
        for encoding in encodings_loaded()
    }
    return sample.name, {"sample": sample.name, "sample_digest": content_digest(sample.read_bytes()), "counts": counts}


def main(argv: list[str]) -> int:
    from dashboard.memo import counts_file

    name, table = first_page_counts()
    path = counts_file(name)
    text = json.dumps(table, indent=1, sort_keys=True) + "\n"
    if "--check" in argv:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != text:
            print(f"{path.relative_to(ROOT)} is stale: run python sample_conversations/first_page_counts.py")
            return 1
        print(f"{path.relative_to(ROOT)} is current")
        return 0
    path.parent.mkdir(exist_ok=True)
    partial = path.with_suffix(".json.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
    print(f"wrote {path.relative_to(ROOT)}: {sum(len(c) for c in table['counts'].values())} counts")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
