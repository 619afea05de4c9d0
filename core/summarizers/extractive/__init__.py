"""An offline, deterministic summarizer that fills the 13-section handoff template by extraction.

It is the default wherever no model is configured. It reads only what it is given: the turns of a
``SummaryRequest`` (already redacted by the compressor, so masked values stay masked), the previous
summary and the focus topic. Nothing leaves the machine and the same request always gives the
same text.

Two ways to call it:

* ``summarize_request(request)``: the compressor's path, with the turns as message dicts.
* ``summarizer(prompt, max_tokens)``: the plain summarizer signature. The turns, the previous
  summary, the focus topic, the target size and the template headings are read back out of the
  prompt's documented layout (v0.15.1 to v0.17.0+, see :mod:`.prompt`). A prompt without that layout
  raises ``ValueError``. The request form is preferred: the serialized turns lose multimodal
  structure and cut contents longer than 6,000 characters.

Headings: the request's ``section_headings`` (the active profile's 13, in template order), by
position. Size: the summary aims at ``request.summary_budget`` tokens and never exceeds
``request.max_tokens`` (tiktoken ``cl100k_base``). When everything does not fit, the least valuable
lines go first (see :mod:`.fit`); headings are never cut.

The package: :mod:`.reading` (the turns, once), :mod:`.sections` (a builder per section),
:mod:`.fit` (the budget), :mod:`.prompt` (the plain path), :mod:`.summarizer` (the orchestration).
Every step is linear in the size of the turns.
"""

from core.summarizers.extractive.model import DEFAULT_HEADINGS as SECTION_HEADINGS
from core.summarizers.extractive.prompt import parse_prompt
from core.summarizers.extractive.summarizer import ExtractiveSummarizer
from core.summarizers.extractive.tokens import count_tokens

__all__ = ["SECTION_HEADINGS", "ExtractiveSummarizer", "count_tokens", "parse_prompt"]
