"""The patterns ``bench_safety`` times as they were before they were made linear (recorded anchors).

Each row: the pattern's place now, the pattern as it was, and the input that showed it quadratic (a
label of ``core.pattern_audit.adversarial_inputs``).
"""

from __future__ import annotations

BEFORE: tuple[tuple[str, str, int, str], ...] = (
    ('core.facts.extract._CAMEL_SHAPE_RE',
     '[a-z][A-Z]|[A-Z]{2,}[a-z]{2,}',
     0, "'A' * n"),
    ('core.facts.extract._CODE_LINE_RE',
     '\\s*(?:\\d+\\s*[|:\\t→]\\s*)?(?:[-+](?![-+])\\s*)?(?:raise|except|catch|throw|throws|import|from|class|def|if|elif|else|return|try|with|assert|for|while|case|const|let|var|public|private|protected|print|log|logger|logging|console|self|yield|await|pass|@|#|//|/\\*|\\*)(?![\\w])',
     0, "'throws' + ' ' * n"),
    ('core.facts.extract._PATH_RE',
     '(?<![\\w./~:<\\\\-])(?:(?:~|\\.{1,2})?/(?:[\\w.@+-]+/)*[\\w.@+-]*[\\w@+-]|[A-Za-z]:\\\\(?:[\\w.@+-]+\\\\)*[\\w.@+-]*[\\w@+-]|[\\w@+-][\\w.@+-]*(?:/[\\w.@+-]+)*/[\\w@+-][\\w.@+-]*\\.[A-Za-z][A-Za-z0-9]{0,7}|[\\w@+-][\\w.@+-]*(?:/[\\w.@+-]+)*/(?=[\\s,;:)\'\\"`]|$)|[\\w-][\\w.-]*\\.(?:py|pyi|ipynb|js|mjs|cjs|jsx|ts|tsx|json|jsonl|yaml|yml|toml|ini|cfg|conf|md|rst|txt|csv|tsv|html|css|scss|sh|bash|zsh|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|sql|xml|lock|log|env|proto|tf|vue|svelte|gradle|pem|db|sqlite|parquet)(?![\\w.])|Dockerfile|Makefile)(?:::[\\w.-]+(?:\\[[^\\]\\s]*\\])?)*(?![\\w/])',
     0, "'@' * n"),
    ('core.facts.noise._PASSING_RE',
     '^\\s*(?:\\S+::\\S+(?:\\s+\\S+)?\\s+(?:PASSED|SKIPPED|XFAIL|XPASS|XFAILED|XPASSED)\\b|(?:PASSED|SKIPPED|XFAIL|XPASS)\\s+(?:\\[\\d+\\]\\s+)?\\S+|\\w+ \\([\\w.]+\\)(?: \\S.*)? \\.\\.\\. (?:ok|skipped\\b.*)|test [\\w:<>]+ \\.\\.\\. (?:ok|ignored)|=== (?:RUN|PAUSE|CONT)\\s+\\S+|--- (?:PASS|SKIP): \\S+|ok\\s+\\S+\\s+(?:\\(cached\\)|[\\d.]+s)|[✓✔√]\\s+\\S|PASS\\s+\\S+)',
     0, "':' * n"),
    ('core.facts.noise._PROGRESS_MEASURE_RE',
     '\\d+%|\\d+/\\d+|\\beta\\b|/s\\b|\\d+(?:\\.\\d+)?\\s?[kKMG]i?B\\b',
     0, "'7' * n"),
    ('core.facts.noise._BARE_ENTRY_RE',
     '^\\s*(?:[\\w.@+~\\\\-]*[A-Za-z_][\\w.@+~\\\\-]*(?:/[\\w.@+~ \\\\-]*)*/?|(?:[ MADRCUT?!][MADRCUT?! ]|[MADRCUT?!]\\d{0,3})[ \\t]+\\S.*|(?:modified|new file|deleted|renamed|typechange):\\s+\\S.*)\\s*$',
     0, "' ' * n"),
    ('core.facts.credentials._LABEL_HINT_RE',
     'secret|passw|passphrase|\\bpwd?\\b|token\\\\*\\"?\\s*[:=]|_token|credential|auth\\w*\\s*[:=]|authorization|bearer|cookie|session_?id|private[_ ]?key|key\\\\*\\"?\\s*[:=]|://[^\\s/@]+@|://[^\\s/@]+:[^/@\\n]*@|-----BEGIN|webhook|\\+[1-9]\\d{6}|<@!?\\d|curl\\b[^\\n]*\\s-u\\s',
     2, "'auth' repeated"),
    ('core.summarizers.extractive.prompt._CALL_LINE_RE',
     '  ([^(]*)\\((.*)\\)$',
     16, "' ' * n"),
    ('core.summarizers.extractive.sections.constraints._CLAUSE_SPLIT_RE',
     '[,;:]\\s+|\\s+-\\s+',
     0, "'\\n\\t' * n"),
    ('core.redaction.strict.labels._CONNECTOR_RE',
     "[ \\t]+(?P<gap>(?:[A-Za-z0-9_.@/'\\-]{1,30}[ \\t]+){0,4}?)(?:(?:(?:is|was|are|were|has[ \\t]+been|have[ \\t]+been|will[ \\t]+be|got|been)[ \\t]+)?(?:(?:set|changed|reset|updated|rotated|switched)[ \\t]+to|is|was|are|were|becomes|to|now)[ \\t]*:?|(?P<last>[A-Za-z0-9_.@/'\\-]{1,30}):)(?=[ \\t])",
     2, "' ' * n"),
    ('core.redaction.strict.labels._SEP_RE',
     '(?:\\\\{0,7}[\\"\'`])?\\]?[ \\t]*(:=|=>|->|::|==|!=|=|:)',
     0, "'\\t' * n"),
    ('core.redaction.strict.labels._OPEN_QUOTE_RE',
     '[ \\t]*(\\\\{0,7})([\\"\'`])',
     0, "' ' * n"),
    ('core.redaction.strict.private_keys._PRIVATE_KEY_BODY_RE',
     '(?:(?:\\s|\\\\+[nr])+[A-Za-z0-9+/=]{16,}|(?:[ \\t]*(?:\\r?\\n|\\\\+[nr]))+[ \\t]*(?:[A-Za-z0-9+/=]+|[A-Za-z\\-]{2,30}: [^\\r\\n\\\\]{1,80}))*+',
     0, "' ' * n"),
)
