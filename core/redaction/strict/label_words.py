"""The words of the label grammar: which names label a credential, and which words around one show
that it is not a value (``token_count``, "the password policy is ...", ``Optional[str]``)."""

from __future__ import annotations

PASSWORD_WORDS = frozenset({"password", "passwd", "pwd", "pw", "pass", "passphrase", "passcode", "passwort",
                             "contrasena", "mdp"})
SECRET_WORDS = frozenset({"secret", "token", "credential", "credentials", "creds", "cred", "apikey", "bearer",
                           "jwt", "sas"})
SESSION_WORDS = frozenset({"sessionid", "sessid", "phpsessid", "jsessionid", "sid", "session", "sessiontoken"})
WEAK_WORDS = frozenset({"auth", "signature", "sig", "hmac"})
# The word before "key" that makes it a credential ("api key", "signing key", ...).
KEY_PREFIXES = frozenset({
    "api", "secret", "access", "private", "account", "master", "signing", "sign", "encryption", "enc",
    "auth", "client", "shared", "storage", "service", "app", "application", "hmac", "subscription",
    "license", "licence", "webhook", "jwt", "session", "crypto", "aes", "deploy", "admin", "root",
    "consumer", "developer", "dev", "prod", "live", "test", "bot", "personal", "azure", "aws", "gcp",
    "stripe", "openai", "anthropic", "twilio", "sendgrid", "mailgun", "heroku", "slack", "github",
    "gitlab", "npm", "pypi", "groq", "mistral", "cohere", "google", "maps", "firebase", "supabase",
    "pinecone", "algolia", "datadog", "sentry", "vercel", "netlify", "cloudflare", "linear", "notion",
    "airtable", "shopify", "paypal", "braintree", "plaid", "cipher", "decryption", "sas", "storageaccount",
    "primaryaccess", "secondary", "primarykey",
})
KEY_BENIGN_PREFIXES = frozenset({
    "sort", "cache", "primary", "foreign", "partition", "hot", "public", "pub", "dict", "map", "react",
    "idempotency", "lookup", "row", "group", "object", "s3", "redis", "i18n", "translation", "index",
    "unique", "composite", "sorting", "hash", "keyboard", "registry", "config", "setting", "settings",
    "dedup", "routing", "shard", "cluster", "bucket", "file", "local", "global", "the", "a", "my", "your",
    "this", "that", "each", "any", "every", "no", "by", "one", "dedupe", "lock", "state", "item", "node",
    "column", "field", "event", "message", "record", "entry", "table", "json", "yaml", "env",
    "ssh", "gpg", "pgp", "host", "server", "trust", "signed",
})
KEY_WORD_BENIGN = frozenset({"monkey", "donkey", "turkey", "whiskey", "hockey", "jockey", "hotkey", "turnkey",
                              "keykey", "passkey", "sortkey", "pubkey", "publickey", "hashkey", "cachekey"})
KEY_WORD_SECRET = frozenset({"secretkey", "accesskey", "privatekey", "accountkey", "masterkey", "signingkey",
                              "authkey", "clientkey", "sharedaccesskey", "sharedkey", "encryptionkey", "hmackey",
                              "subscriptionkey", "licensekey", "storagekey", "servicekey", "appkey", "apikey"})
# "NextToken", "page_token", "ClientToken" (AWS idempotency): opaque, but not credentials.
NON_SECRET_TOKEN_PREFIXES = frozenset({
    "next", "page", "continuation", "pagination", "purchase", "sync", "cancel", "cancellation", "idempotency",
    "client", "request", "resume", "marker", "start", "end", "cursor", "input", "output", "max", "total",
    "prompt", "completion", "special", "stop", "bos", "eos", "pad", "unk", "sep", "mask", "cls",
})
# A trailing segment that only qualifies the value ("password_plain", "secret_key_base", "token_v2").
VALUE_SUFFIXES = frozenset({
    "value", "val", "raw", "plain", "plaintext", "str", "string", "b64", "base64", "hex", "literal", "input",
    "material", "base", "live", "test", "prod", "production", "dev", "staging", "local", "new", "old",
    "current", "backup", "confirmation", "confirm", "again", "override", "default", "env", "encoded",
})
# Names ending in one of these are about a secret, not the secret itself.
NON_SECRET_LAST = frozenset({
    "id", "ids", "type", "types", "name", "names", "file", "files", "filename", "path", "paths", "dir", "url",
    "uri", "urls", "endpoint", "host", "length", "len", "count", "counts", "size", "limit", "limits", "field",
    "fields", "label", "prompt", "hint", "ttl", "expiry", "expires", "expiration", "exp", "lifetime",
    "timeout", "header", "headers", "var", "vars", "variable", "policy", "strength", "format", "mode",
    "enabled", "enable", "disabled", "required", "min", "max", "regex", "pattern", "hash", "hashed", "salt",
    "usage", "kind", "index", "version", "rotation", "store", "manager", "provider", "scope", "scopes",
    "encoding", "encoder", "tokenizer", "tokenizers", "tokens", "budget", "widget", "form", "reset", "change",
    "forgot", "prefix", "suffix", "location", "source", "ref", "arn", "schema", "model", "class", "error",
    "errors", "message", "status", "state", "valid", "validator", "validation", "check", "handler", "helper",
    "util", "utils", "module", "test", "tests", "spec", "mock", "fixture", "placeholder", "description", "help",
    "rule", "rules", "chars", "request", "response", "callback", "redirect", "flow", "grant", "method",
    "algorithm", "alg", "cipher", "user", "username", "login", "email", "generator", "py", "js", "ts", "json",
    "yaml", "yml", "md", "txt", "db", "rs", "go", "rb", "env", "cfg", "ini", "toml", "lock", "pem",
    "rotated", "expired", "refresh", "at", "on", "by", "issued", "created", "updated", "used", "sent",
    "data", "list", "map", "dict", "set", "get", "fn", "func", "function", "object", "obj", "info", "meta",
    "metadata", "params", "config", "settings", "options", "opts", "args", "kwargs", "client", "service",
    "server", "backend", "storage", "cache", "reader", "writer", "loader", "parser", "builder", "factory",
    "counter", "estimator", "estimate", "window", "stats", "metrics", "cost", "price", "rate", "ratio",
    "percent", "threshold", "target", "span", "offset", "start", "end", "pos", "position",
    "rejected", "accepted", "missing", "invalid", "insensitive", "sensitive", "case", "exists", "present",
    "masked", "redacted", "redaction", "detector", "detection", "scanner", "scan", "leak", "leaks", "holder",
})
# Words between a label and "is"/":" that show the sentence is about the secret, not its value
# ("the token limit is 128000", "the password policy is ...").
GAP_WORDS_BAD = frozenset({
    "id", "ids", "type", "name", "file", "path", "url", "length", "count", "size", "limit", "limits", "field",
    "label", "prompt", "hint", "ttl", "expiry", "expiration", "lifetime", "timeout", "header", "policy",
    "strength", "format", "mode", "usage", "budget", "rotation", "store", "manager", "provider", "scope",
    "hash", "salt", "reset", "change", "prefix", "suffix", "requirements", "rules", "rule", "sauce", "window",
    "refresh", "counts", "estimate", "estimator", "cost", "price", "usage:", "spent", "used", "left",
    "remaining", "version", "schema", "validation", "error", "status", "check", "generation",
})
STOPWORDS = frozenset({
    "required", "optional", "none", "null", "nil", "true", "false", "yes", "no", "undefined", "empty", "missing",
    "invalid", "incorrect", "wrong", "expired", "correct", "valid", "changed", "reset", "set", "unset", "hidden",
    "redacted", "masked", "string", "str", "int", "bool", "boolean", "number", "bytes", "object", "any", "secret",
    "password", "token", "key", "see", "below", "above", "here", "there", "the", "a", "an", "not", "is", "was",
    "and", "or", "for", "of", "to", "in", "on", "at", "with", "this", "that", "your", "my", "our", "their",
    "its", "it", "same", "different", "provided", "stored", "needed", "generated", "updated", "rotated",
    "revoked", "example", "placeholder", "todo", "tbd", "n/a", "xxx", "await", "new", "yield", "return",
    "function", "lambda", "async", "self", "cls", "nan", "secretstr", "optional[str]", "str|none",
    "none,", "also", "now", "still", "only", "just", "already", "being", "be", "been", "from", "by", "as",
    "if", "then", "else", "when", "which", "what", "who", "how", "where", "why", "saved", "used",
    "sent", "shown", "printed", "logged", "ok", "okay", "fine", "strong", "weak", "long", "short", "too",
    "very", "case-sensitive", "supplied", "given", "accepted", "rejected", "omitted", "ignored", "absent",
    "present", "unknown", "default", "env", "environment", "file", "config", "vault", "specified",
})
TYPE_NAMES = frozenset({"str", "string", "int", "bytes", "bool", "boolean", "number", "any", "object",
                         "secretstr", "secretbytes", "optional", "none", "char", "text", "varchar", "uuid"})

DETERMINERS = frozenset({"the", "my", "our", "your", "a", "an", "this", "that", "new", "old", "current", "their",
                          "his", "her", "its", "same", "real", "actual"})
