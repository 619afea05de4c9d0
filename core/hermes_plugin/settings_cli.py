"""``context-lens hermes-settings``: write the settings file the Hermes plugin reads.

    context-lens hermes-settings --profile v0.19.0 --threshold-percent 0.6 --summarizer auto
    context-lens hermes-settings --show            # print what the plugin would read, change nothing

Options left out keep what the file already says (a first write starts from the defaults), so one
setting can be changed at a time. ``--reset`` starts from the defaults instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from core import profiles as P
from core.config import TOKEN_ESTIMATORS
from core.hermes_plugin.settings import (
    SUMMARIZERS,
    PluginSettings,
    SettingsError,
    log_path,
    read_settings,
    settings_path,
    write_settings,
)

COMMAND = "hermes-settings"
# option dest -> settings field
_FIELDS = ("profile", "threshold_percent", "protect_first_n", "protect_last_n", "summary_target_ratio",
           "abort_on_summary_failure", "token_estimator", "strict_redaction", "context_length", "max_tokens",
           "summarizer", "summary_timeout", "record_message_text", "log")


def add_command(commands: Any) -> argparse.ArgumentParser:
    """Add the subcommand to ``context-lens``' subparsers."""
    parser = commands.add_parser(
        COMMAND, help="write the settings the context-lens Hermes plugin runs with",
        description="Write $HERMES_HOME/context-lens/settings.json, which the context-lens engine reads when Hermes "
                    "starts a session. Options not given keep the file's current values.")
    parser.add_argument("--hermes-home", metavar="DIR", help="Hermes' home (default: $HERMES_HOME or ~/.hermes)")
    parser.add_argument("--profile", choices=sorted(P.PROFILES), help="the Hermes release whose compressor runs")
    parser.add_argument("--threshold-percent", type=float, metavar="P", help="compress at this share of the window")
    parser.add_argument("--protect-first-n", type=int, metavar="N")
    parser.add_argument("--protect-last-n", type=int, metavar="N")
    parser.add_argument("--target-ratio", dest="summary_target_ratio", type=float, metavar="R",
                        help="the tail budget as a share of the threshold")
    parser.add_argument("--abort-on-summary-failure", action=argparse.BooleanOptionalAction, default=None)
    parser.add_argument("--token-estimator", choices=TOKEN_ESTIMATORS)
    parser.add_argument("--strict-redaction", action=argparse.BooleanOptionalAction, default=None,
                        help="mask secrets before anything reaches the summary model (default on)")
    parser.add_argument("--context-length", type=int, metavar="TOKENS",
                        help="pin the window (default: the one Hermes reports for its model)")
    parser.add_argument("--max-tokens", type=int, metavar="TOKENS", help="the output reserve (v0.18.0+)")
    parser.add_argument("--summarizer", choices=SUMMARIZERS,
                        help="hermes-model: the agent's model through litellm; extractive: offline; "
                             "none: the release's fallback; auto (default): the agent's model when it has one")
    parser.add_argument("--summary-timeout", type=float, metavar="SECONDS",
                        help="deadline of one summary call (default: Hermes' auxiliary.compression.timeout)")
    parser.add_argument("--record-message-text", action=argparse.BooleanOptionalAction, default=None,
                        help="put the messages' raw text into the compaction log (default off)")
    parser.add_argument("--log", action=argparse.BooleanOptionalAction, default=None,
                        help="write the compaction log (default on)")
    parser.add_argument("--reset", action="store_true", help="start from the defaults, not from the current file")
    parser.add_argument("--show", action="store_true", help="print the settings the plugin would read; write nothing")
    return parser


def run(args: argparse.Namespace) -> int:
    """Write (or show) the settings; 0 on success, 2 on a bad value."""
    current, warning = read_settings(args.hermes_home)
    if warning:
        print(f"context-lens: warning: {warning}", file=sys.stderr)
    if args.show:
        print(json.dumps(current.to_dict(), indent=2))
        print(f"# {settings_path(args.hermes_home)}", file=sys.stderr)
        return 0
    base = PluginSettings() if args.reset else current
    changes = {name: getattr(args, name) for name in _FIELDS if getattr(args, name, None) is not None}
    try:
        settings = base.with_changes(**changes)
    except SettingsError as exc:
        print(f"context-lens: error: {exc}", file=sys.stderr)
        return 2
    path = write_settings(settings, hermes_home=args.hermes_home)
    print(json.dumps(settings.to_dict(), indent=2))
    print(f"# written to {path}; compactions are logged to {log_path(args.hermes_home)}", file=sys.stderr)
    return 0
