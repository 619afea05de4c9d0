"""Context Lens as a Hermes Agent context-engine plugin.

Installing this project into Hermes' environment registers the plugin ``context-lens`` (entry point
group ``hermes_agent.plugins``). With, in ``$HERMES_HOME/config.yaml``::

    plugins:
      enabled: [context-lens]
    context:
      engine: context-lens

Hermes compacts its conversations with Context Lens' compressor, configured by
``$HERMES_HOME/context-lens/settings.json`` (``core.hermes_plugin.settings``), and every compaction
is appended to ``$HERMES_HOME/context-lens/compactions.jsonl`` (``core.hermes_plugin.events``).

Nothing here imports Streamlit or pandas, and Hermes' own modules are imported only inside Hermes.
"""

from __future__ import annotations

from typing import Any

from core.hermes_plugin.version import __version__

__all__ = ["ENGINE_NAME", "__version__", "register"]

ENGINE_NAME = "context-lens"


def register(ctx: Any) -> None:
    """Hermes' plugin hook: register one ``ContextLensEngine`` as the context engine."""
    from core.hermes_plugin.engine import ContextLensEngine

    ctx.register_context_engine(ContextLensEngine())
