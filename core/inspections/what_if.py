"""What-ifs for sessions too short to compress, and advice a user can follow with the controls.

A 10K-token session never reaches Hermes' threshold: up to v0.17.0 it is never below 64,000 tokens,
and from v0.18.0 only a window of at most about 75,000 tokens (85 % of it, when the floor cannot
be served) brings it lower. Two what-ifs let such a session be explored anyway:

* **scale the window** (``WINDOW_SCALES``): the analyses run as if the model's window were a
  fraction of the sidebar's; every release then behaves as Hermes does with that window;
* **drop the 64K floor** (``CompressorConfig.what_if_no_floor``): the threshold is the release's
  percentage alone. This is *not* what Hermes does, and everything that shows it says so.

:func:`trigger_options` lists, for the largest prompt of a session, the changes of those controls
(and of the threshold slider and the release picker) that make the compressor fire, each checked
against the threshold the changed configuration really gives, so no page advises something the
controls cannot do.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from core import rules
from core.config import CompressorConfig
from core.profiles import DEFAULT_PROFILE, PROFILES

__all__ = [
    "THRESHOLD_STEPS",
    "WINDOW_SCALES",
    "TriggerOption",
    "scale_label",
    "trigger_options",
    "what_if_words",
]

#: The window scales the what-if offers: the share of the sidebar's window the analyses use (1 is
#: no what-if), fine enough that a session of a few thousand tokens finds a window it fills.
WINDOW_SCALES: tuple[float, ...] = (*(round(0.1 * step, 2) for step in range(10, 0, -1)),
                                    *(round(0.01 * step, 2) for step in range(9, 0, -1)))
#: The threshold slider's positions (0.05 to 1.0 in steps of 0.05).
THRESHOLD_STEPS: tuple[float, ...] = tuple(round(0.05 * step, 2) for step in range(1, 21))
#: Advice aims at a threshold the prompt reaches at about this share of its peak, so the replay
#: shows a compaction with part of the session still to come (any reachable threshold otherwise).
TARGET_SHARE = 0.75

NOT_HERMES = "not what Hermes does"


def scale_label(scale: float) -> str:
    """The scale as a share of the window: ``100 %``, ``9 %``."""
    return f"{scale * 100:.0f} %"


def what_if_words(scale: float, no_floor: bool, window: int, scaled_window: int) -> str | None:
    """The active what-ifs in words (None when there are none)."""
    pieces = []
    if scale != 1:
        pieces.append(f"the window scaled to {scale_label(scale)}, {window:,} → {scaled_window:,} tokens")
    if no_floor:
        pieces.append(f"the 64K floor dropped ({NOT_HERMES})")
    return "What-if: " + "; ".join(pieces) + "." if pieces else None


@dataclass(frozen=True)
class TriggerOption:
    """One way to make the compressor fire: what to change, and the threshold it then has.

    ``changes`` holds the new values of the dashboard's controls, under their names:
    ``threshold_percent``, ``window_scale``, ``what_if_no_floor`` and ``profile``. ``hermes`` is
    False for the what-if that Hermes itself never does (dropping the floor).
    """

    text: str
    changes: dict[str, Any]
    threshold_tokens: int
    hermes: bool


def _changed(config: CompressorConfig, window: int, scale: float, **changes: Any) -> CompressorConfig:
    return dataclasses.replace(config, context_length=max(1, round(window * scale)), **changes)


def _best(candidates: list[tuple[dict[str, Any], CompressorConfig]], peak: int) -> tuple[dict[str, Any], int] | None:
    """The candidate whose threshold is highest at or below ``TARGET_SHARE`` of ``peak`` with the peak
    inside its window; failing that, the highest at or below the peak."""
    reachable = [(changes, c.threshold_tokens, c.context_length) for changes, c in candidates
                 if c.threshold_tokens <= peak]
    aimed = [item for item in reachable if item[1] <= peak * TARGET_SHARE and peak <= item[2]]
    pool = aimed or reachable
    if not pool:
        return None
    changes, tokens, _window = max(pool, key=lambda item: item[1])
    return changes, tokens


def trigger_options(peak: int, config: CompressorConfig, window: int, scale: float = 1.0) -> list[TriggerOption]:
    """Changes that make a prompt of ``peak`` tokens reach the threshold, one per kind of change.

    Args:
        peak: The largest prompt of the session, in the unit the compressor decides in.
        config: The configuration in use (its ``context_length`` is the scaled window).
        window: The window before the what-if scale (the sidebar's context length).
        scale: The what-if scale in use.

    The options are, in order: the threshold slider alone; a smaller what-if window; for releases
    with the 64K floor that neither helps, v0.18.0 with a smaller window; and, when the slider alone
    cannot do it, the floor dropped (``hermes=False``). Each threshold is the one the changed
    configuration really gives. Empty when ``peak`` already reaches ``config``'s threshold, or when
    nothing the controls offer brings the threshold down to it.
    """
    if peak <= 0 or config.threshold_tokens <= peak:
        return []
    honest = not config.what_if_no_floor
    lower = [p for p in THRESHOLD_STEPS if p < config.threshold_percent - 1e-9]
    smaller = [s for s in WINDOW_SCALES if s < scale - 1e-9]
    options: list[TriggerOption] = []

    by_percent = _best([({"threshold_percent": p}, _changed(config, window, scale, threshold_percent=p))
                        for p in lower], peak)
    if by_percent is not None:
        changes, tokens = by_percent
        options.append(TriggerOption(
            f"Lower the threshold to {changes['threshold_percent']:.2f} of the window (threshold {tokens:,}).",
            changes, tokens, honest))

    by_scale = _best([({"window_scale": s}, _changed(config, window, s)) for s in smaller], peak)
    if by_scale is not None:
        changes, tokens = by_scale
        shown = max(1, round(window * changes["window_scale"]))
        options.append(TriggerOption(
            f"Scale the window to {scale_label(changes['window_scale'])} ({shown:,} tokens): {config.profile} then "
            f"triggers at {tokens:,}.", changes, tokens, honest))

    newest = PROFILES[DEFAULT_PROFILE]
    newest_rule = rules.threshold_rule(newest)
    if not config.threshold_rule.uses_output_reserve and not options and newest_rule.uses_output_reserve:
        switched = _best([({"profile": DEFAULT_PROFILE, "window_scale": s},
                           _changed(config, window, s, profile=DEFAULT_PROFILE)) for s in (*smaller, scale)], peak)
        if switched is not None:
            changes, tokens = switched
            shown = max(1, round(window * changes["window_scale"]))
            options.append(TriggerOption(
                f"No threshold of {config.profile} is below 64,000 tokens. {DEFAULT_PROFILE} triggers at 85 % of a "
                f"window the floor cannot serve: switch to it and scale the window to "
                f"{scale_label(changes['window_scale'])} ({shown:,} tokens; threshold {tokens:,}).", changes, tokens,
                honest))

    if honest and by_percent is None:
        floorless = _best([({"what_if_no_floor": True, "threshold_percent": p},
                            _changed(config, window, scale, threshold_percent=p, what_if_no_floor=True))
                           for p in (*lower, config.threshold_percent)], peak)
        if floorless is not None:
            changes, tokens = floorless
            if changes["threshold_percent"] == config.threshold_percent:
                del changes["threshold_percent"]
                how = ""
            else:
                how = f" and set the threshold to {changes['threshold_percent']:.2f}"
            options.append(TriggerOption(
                f"What-if ({NOT_HERMES}): drop the 64K floor{how} (threshold {tokens:,}).", changes, tokens, False))
    return options
