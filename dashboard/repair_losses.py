"""The notice the Zones, Compress & preview and Fact retention pages share: what Hermes' tool-pair
repair removed without it ever reaching the summary, and the facts that went with it
(``core.views.repair_losses``)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from core.views.repair_losses import RepairLosses, repair_losses
from dashboard.memo import Settings, Transcript
from dashboard.runs import last_run_for, offline_compression, run_view
from dashboard.state import escape_markdown
from dashboard.ui import table


def losses_of_run(run: dict[str, Any]) -> RepairLosses:
    """The repair losses of a run of the Compress page (kept with the run)."""
    return run_view(run, "repair-losses", lambda: repair_losses(run["result"]))


def current_repair_losses(transcript: Transcript, settings: Settings) -> RepairLosses:
    """The repair losses of the user's last run with these parameters, else of the offline compression
    (the repair depends on the boundaries, not on the summary's words)."""
    run = last_run_for(transcript, settings)
    return losses_of_run(run) if run is not None else offline_repair_losses(transcript, settings)


def offline_repair_losses(transcript: Transcript, settings: Settings) -> RepairLosses:
    """The repair losses of the offline compression with these parameters (shared, memoised)."""
    result = offline_compression(transcript, settings)
    return transcript.memo(("repair-losses", settings), lambda: repair_losses(result))


def repair_losses_notice(losses: RepairLosses, key: str) -> None:
    """A warning and the removed messages with their lost facts; nothing when the repair removed nothing."""
    if not losses.messages:
        return
    st.warning(escape_markdown(losses.sentence()))
    with st.expander(f"Removed by the tool-pair repair: {losses.messages:,} message(s), "
                     f"{len(losses.lost_facts):,} fact(s) lost"):
        import pandas as pd

        table(pd.DataFrame([
            {"message": loss.message_index, "what the repair did": loss.action, "zone": loss.zone,
             "call at": loss.call_index, "facts": loss.facts, "lost": loss.lost, "why": loss.reason}
            for loss in losses.losses
        ]), key=f"{key}_repair_messages", column_config={"why": st.column_config.TextColumn("why", width="large")})
        if len(losses.lost_facts):
            st.caption("The facts of those messages that appear nowhere in the output (the summary included):")
            table(losses.lost_facts, key=f"{key}_repair_facts")
