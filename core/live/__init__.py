"""Live sessions: following agent transcripts as they grow, and an index of the sessions on disk.

For the command line and the dashboard page:

* ``SessionFollower(path, config).poll()`` → a :class:`LiveStatus` when the file changed (None
  otherwise); ``follow(path, config, interval=0.5, stop=event)`` yields them in a loop. A status
  holds the messages, the whole request (``request_tokens``, equal to ``analyze --json``'s
  ``request.total``), the trigger against the threshold, the requests left until the threshold at
  the recent growth rate, the plan's zones (what Hermes would summarise now) and each compaction the
  log records as it appears; ``status.to_dict()`` is the ``--json`` line, ``status.gauge()`` the
  terminal line.
* ``SessionIndex(roots, config=...)``: ``refresh()`` indexes what changed (a cache keyed by path,
  size and modification time under ``~/.cache/context-lens``; the batch engine for a large first
  scan), ``rows(query=..., sort_by=...)`` lists :class:`SessionRow` s, ``search(text)`` finds text
  across sessions, ``frame()`` gives a pandas table.

Nothing here writes to the watched files or folders. See the modules for the details:
``tail`` (a growing file), ``sources`` (one resumable reader per layout), ``status`` (the figures),
``follower`` (the follower), ``index`` (the sessions index), ``cli`` (``context-lens watch`` and
``sessions``). The dashboard's Live and Sessions pages (``dashboard/live.py``) use the same objects.
"""

from core.live.follower import SessionFollower, follow
from core.live.status import LiveStatus, Measurement, Zones, measure

__all__ = ["LiveStatus", "Measurement", "SessionFollower", "Zones", "follow", "measure"]
