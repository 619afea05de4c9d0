# Over 600 lines: the secrets corpus, one entry per credential form.
"""Deterministic generator for the credential corpora used by the strict-redaction tests.

Every value is random but obviously fake (``FAKE``/``EXAMPLE`` markers where the format allows).
Two *styles* exist on purpose:

* ``heldout`` (seed 20260917): its own key names, sentences, files and tools; it is only ever used by
  the test asserting that nothing survives, never for tuning detectors.
* ``tune`` (seed 1234): the corpus the detectors are developed against (``credentials.jsonl``),
  plus the near-miss corpus (``near_misses.jsonl``).

Each credential line is a JSON object::

    {"id": ..., "kind": ..., "reference": bool, "context": ..., "text": ..., "secret": ...}

``text`` is what the redactor sees; ``secret`` is the exact value that must not survive (for values
with a public part, such as a webhook URL, only the private part). ``reference`` says whether the kind
is one of the reference redaction's own patterns (spec hermes-compressor.md section 6.1); the
reference still misses some of those lines, e.g. inside escaped JSON or embedded in longer text.

Run ``python tests/data/secrets/generate.py`` to rewrite the three files next to this script.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"
UPPER_DIGITS = string.ascii_uppercase + string.digits
SYMBOLS = "!#$%&*?@^~"

CONTEXTS = ("user_text", "tool_args", "escaped_json", "escaped_json_2", "tool_output")


def pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def digits(rng: random.Random, n: int) -> str:
    return str(rng.randint(1, 9)) + pick(rng, string.digits, n - 1)


# --------------------------------------------------------------------------------------------
# How each kind's value looks, and the phrasings per style
# --------------------------------------------------------------------------------------------


@dataclass
class Cred:
    value: str  # as written in the text
    secret: str  # the part that must not survive


@dataclass
class Kind:
    name: str
    reference: bool  # the reference redaction catches it by itself
    make: Callable[[random.Random], Cred]
    # per style: prose templates ({v} = value), a JSON key for embedding, file/output lines and shell commands
    prose: dict[str, list[str]]
    json_key: dict[str, str]
    lines: dict[str, list[str]]
    shell: dict[str, list[str]] = field(default_factory=dict)
    # how the value is written inside a JSON object under ``json_key`` ({v} = value); default: bare
    json_value: dict[str, str] = field(default_factory=dict)


def _both(templates: list[str]) -> dict[str, list[str]]:
    return {"tune": templates, "heldout": templates}


def _password_value(rng: random.Random) -> str:
    word = rng.choice(["hunter", "falcon", "maple", "orbit", "cobalt", "juniper", "pepper", "willow", "zephyr"])
    if rng.random() < 0.5:
        word = word.capitalize()
    return f"{word}{digits(rng, rng.randint(2, 4))}{rng.choice(SYMBOLS)}"


def _strong_password(rng: random.Random) -> str:
    return "Fk" + pick(rng, ALNUM, 6) + rng.choice(SYMBOLS) + pick(rng, ALNUM, rng.randint(4, 10))


def _passphrase(rng: random.Random) -> str:
    words = ["copper", "lantern", "quiet", "meadow", "violet", "harbor", "tundra", "ember", "saddle", "glacier",
             "pickle", "rocket", "thistle", "canyon", "marble", "willow"]
    return " ".join(rng.sample(words, 4))


def _pem_body(rng: random.Random, first: str) -> list[str]:
    lines = [first + pick(rng, B64, 64 - len(first))]
    lines += [pick(rng, B64, 64) for _ in range(5)]
    lines.append(pick(rng, B64, 28) + "==")
    return lines


def _jwt(rng: random.Random) -> str:
    def enc(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")

    header = enc({"alg": "HS256", "typ": "JWT"})
    payload = enc({"sub": f"fake-user-{rng.randint(1000, 9999)}", "iat": 1700000000 + rng.randint(0, 10**6)})
    return f"{header}.{payload}.{pick(rng, URLSAFE, 43)}"


def _private_key(kind_label: str, first: str, end: bool = True) -> Callable[[random.Random], Cred]:
    def make(rng: random.Random) -> Cred:
        body = _pem_body(rng, first)
        block = [f"-----BEGIN {kind_label}-----", *body]
        if end:
            block.append(f"-----END {kind_label}-----")
        return Cred("\n".join(block), body[2])

    return make


def _simple(fn: Callable[[random.Random], str]) -> Callable[[random.Random], Cred]:
    def make(rng: random.Random) -> Cred:
        value = fn(rng)
        return Cred(value, value)

    return make


# Bare vendor-prefixed tokens need no label: the same generic phrasings serve every one of them.
TOKEN_PROSE = {
    "heldout": [
        "Here's what I copied from the provider dashboard: {v} -- can you wire it into the client?",
        "rotate this one afterwards please ({v}), it was shared in the team channel",
        "I pasted {v} into the settings page but the call still fails with 401",
    ],
    "tune": [
        "Use {v} for the deploy step.",
        "My key is {v} and it keeps getting rejected.",
        "Can you test the integration with {v}?",
    ],
}
TOKEN_LINES = {
    "heldout": ["credentials loaded: {v}", "  api_credential: {v}", "DEBUG using client token {v} for request"],
    "tune": ["token={v}", "INFO auth ok with {v}", "key: {v}"],
}
TOKEN_SHELL = {
    "heldout": ["gh auth login --with-token <<< '{v}'", "./deploy.sh --credential {v} --region eu-west-1"],
    "tune": ["curl -s https://api.example.com/v1/ping -H 'X-Token: {v}'", "python client.py --api-key {v}"],
}
TOKEN_JSON_KEY = {"heldout": "credential", "tune": "api_key"}


def vendor(name: str, fn: Callable[[random.Random], str], reference: bool) -> Kind:
    return Kind(name, reference, _simple(fn), TOKEN_PROSE, TOKEN_JSON_KEY, TOKEN_LINES, TOKEN_SHELL)


def build_kinds() -> list[Kind]:
    kinds: list[Kind] = []
    add = kinds.append

    # ---- reference pattern kinds (spec section 6.1): vendor prefixes ----
    add(vendor("openai-key", lambda r: "sk-proj-FAKE" + pick(r, ALNUM, 44), True))
    add(vendor("anthropic-key", lambda r: "sk-ant-api03-FAKE" + pick(r, URLSAFE, 80) + "AA", True))
    add(vendor("github-token", lambda r: "ghp_FAKE" + pick(r, ALNUM, 32), True))
    add(vendor("github-pat", lambda r: "github_pat_11FAKE" + pick(r, ALNUM + "_", 69), True))
    add(vendor("github-oauth", lambda r: "gho_FAKE" + pick(r, ALNUM, 32), True))
    add(vendor("slack-token", lambda r: f"xoxb-{digits(r, 12)}-{digits(r, 13)}-FAKE{pick(r, ALNUM, 20)}", True))
    add(vendor("google-api-key", lambda r: "AIzaSyFAKE" + pick(r, URLSAFE, 29), True))
    add(vendor("aws-access-key-id", lambda r: "AKIAFAKE" + pick(r, UPPER_DIGITS, 12), True))
    add(vendor("stripe-live-key", lambda r: "sk_live_FAKE" + pick(r, ALNUM, 24), True))
    add(vendor("stripe-test-key", lambda r: "sk_test_FAKE" + pick(r, ALNUM, 24), True))
    add(vendor("stripe-restricted-live", lambda r: "rk_live_FAKE" + pick(r, ALNUM, 24), True))
    add(vendor("huggingface-token", lambda r: "hf_FAKE" + pick(r, ALNUM, 30), True))
    add(vendor("replicate-token", lambda r: "r8_FAKE" + pick(r, ALNUM, 36), True))
    add(vendor("npm-token", lambda r: "npm_FAKE" + pick(r, ALNUM, 32), True))
    add(vendor("pypi-token", lambda r: "pypi-AgEIcHlwaS5vcmcFAKE" + pick(r, URLSAFE, 80), True))
    add(vendor("digitalocean-token", lambda r: "dop_v1_" + pick(r, HEX, 64), True))
    add(vendor("groq-key", lambda r: "gsk_FAKE" + pick(r, ALNUM, 48), True))
    add(vendor("xai-key", lambda r: "xai-FAKE" + pick(r, ALNUM, 76), True))
    add(vendor("perplexity-key", lambda r: "pplx-FAKE" + pick(r, ALNUM, 44), True))
    add(vendor("tavily-key", lambda r: "tvly-FAKE" + pick(r, ALNUM, 28), True))
    add(vendor("elevenlabs-key", lambda r: "sk_" + pick(r, HEX, 48), True))
    add(vendor("fal-key", lambda r: "fal_FAKE" + pick(r, URLSAFE, 30), True))
    add(vendor("firecrawl-key", lambda r: "fc-FAKE" + pick(r, ALNUM, 28), True))
    add(vendor("exa-key", lambda r: "exa_FAKE" + pick(r, ALNUM, 28), True))
    add(vendor("fernet-token", lambda r: "gAAAAAB" + pick(r, URLSAFE, 100) + "==", True))
    add(vendor("sendgrid-key-prefix", lambda r: "SG.FAKE" + pick(r, URLSAFE, 18), True))

    # ---- reference pattern kinds: structured ----
    add(Kind(
        "env-assignment", True, _simple(lambda r: "Fk" + pick(r, ALNUM, 22)),
        {"heldout": ["the runner needs PAYMENTS_WEBHOOK_SECRET={v} in its environment"],
         "tune": ["set SERVICE_API_TOKEN={v} before starting"]},
        {"heldout": "env", "tune": "env"},
        {"heldout": ["PAYMENTS_WEBHOOK_SECRET={v}"], "tune": ["SERVICE_API_TOKEN={v}"]},
        {"heldout": ["env PAYMENTS_WEBHOOK_SECRET={v} node worker.js"], "tune": ["SERVICE_API_TOKEN={v} ./run.sh"]},
    ))
    add(Kind(
        "json-secret-field", True, _simple(lambda r: "Fk" + pick(r, URLSAFE, 40)),
        {"heldout": ['the response body was {{"access_token": "{v}", "expires_in": 3600}}'],
         "tune": ['config has {{"refresh_token": "{v}"}} in it']},
        {"heldout": "access_token", "tune": "refresh_token"},
        {"heldout": ['  "access_token": "{v}",'], "tune": ['{{"refresh_token": "{v}", "scope": "read"}}']},
        {"heldout": ["echo '{{\"access_token\": \"{v}\"}}' > token.json"],
         "tune": ["printf '{{\"refresh_token\":\"{v}\"}}' | jq ."]},
    ))
    add(Kind(
        "bearer-token", True, _simple(lambda r: "FAKE" + pick(r, URLSAFE, 40)),
        {"heldout": ["the gateway log shows Authorization: Bearer {v} on every call"],
         "tune": ["I send Authorization: Bearer {v} and get 403"]},
        {"heldout": "Authorization", "tune": "Authorization"},
        {"heldout": ["> Authorization: Bearer {v}"], "tune": ["Authorization: Bearer {v}"]},
        {"heldout": ["wget --header='Authorization: Bearer {v}' https://files.example.org/a.tgz"],
         "tune": ["curl -H 'Authorization: Bearer {v}' https://api.example.com/me"]},
    ))
    add(Kind(
        "telegram-bot-token", True,
        lambda r: (lambda s: Cred(f"{digits(r, 10)}:{s}", s))("AAFAKE" + pick(r, URLSAFE, 29)),
        TOKEN_PROSE, TOKEN_JSON_KEY, TOKEN_LINES, TOKEN_SHELL,
    ))
    for label, first, ref, name in [
        ("RSA PRIVATE KEY", "MIIEowIBAAKCAQEA", True, "private-key-rsa"),
        ("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAA", True, "private-key-openssh"),
        ("EC PRIVATE KEY", "MHcCAQEEI", True, "private-key-ec"),
    ]:
        add(Kind(
            name, ref, _private_key(label, first),
            {"heldout": ["the deploy key the contractor left behind:\n{v}\nplease install it"],
             "tune": ["here is the key:\n{v}"]},
            {"heldout": "ssh_private_key", "tune": "private_key"},
            {"heldout": ["{v}"], "tune": ["{v}"]},
            {"heldout": ["cat > ~/.ssh/deploy_key <<'EOF'\n{v}\nEOF"], "tune": ["echo '{v}' > id_rsa"]},
        ))
    add(Kind(
        "db-url-password", True,
        lambda r: (lambda p: Cred(f"postgresql://app_rw:{p}@db.internal.example:5432/orders", p))(_strong_password(r)),
        {"heldout": ["our replica is at {v} if you need to query it"],
         "tune": ["connect with {v}"]},
        {"heldout": "database_url", "tune": "dsn"},
        {"heldout": ["DATABASE_URL={v}", "sqlalchemy.url = {v}"], "tune": ["db: {v}"]},
        {"heldout": ["pg_dump '{v}' > backup.sql"], "tune": ["psql {v} -c 'select 1'"]},
    ))
    add(Kind(
        "mongodb-url-password", True,
        lambda r: (lambda p: Cred(f"mongodb+srv://svc-reader:{p}@cluster0.fake.mongodb.net/app", p))(
            _strong_password(r)),
        {"heldout": ["the atlas string is {v}"], "tune": ["mongo uri: {v}"]},
        {"heldout": "mongo_uri", "tune": "uri"},
        {"heldout": ["MONGO_URL={v}"], "tune": ["uri = {v}"]},
        {"heldout": ["mongosh '{v}' --eval 'db.stats()'"], "tune": ["mongosh {v}"]},
    ))
    add(Kind(
        "jwt", True, _simple(_jwt),
        TOKEN_PROSE, TOKEN_JSON_KEY, TOKEN_LINES, TOKEN_SHELL,
    ))
    add(Kind(
        "form-body-secret", True,
        lambda r: (lambda s: Cred(f"grant_type=client_credentials&client_id=fake-app&client_secret={s}", s))(
            "Fk" + pick(r, ALNUM, 30)),
        {"heldout": ["the token endpoint gets {v}"], "tune": ["POST body: {v}"]},
        {"heldout": "data", "tune": "body"},
        {"heldout": ["{v}"], "tune": ["{v}"]},
        {"heldout": ["curl -d '{v}' https://auth.example.com/oauth/token"],
         "tune": ["http --form POST https://auth.example.com/token {v}"]},
    ))
    add(Kind(
        "phone-number", True, _simple(lambda r: "+1415555" + pick(r, string.digits, 4)),
        {"heldout": ["text the on-call phone {v} when the job fails"], "tune": ["call me at {v}"]},
        {"heldout": "phone", "tune": "phone"},
        {"heldout": ["on_call: {v}"], "tune": ["mobile={v}"]},
        {"heldout": ["./notify --sms {v}"], "tune": ["twilio-send --to {v}"]},
    ))

    # ---- strict-only kinds ----
    add(Kind(
        "aws-secret-key", False, _simple(lambda r: pick(r, B64, 30) + "EXAMPLEKEY"),
        {"heldout": ["The IAM user's secret key is {v} (access key AKIAFAKEEXAMPLE0001)",
                     "boto keeps failing, the secret I gave it: {v}"],
         "tune": ["aws secret access key: {v}", "my AWS secret is {v}"]},
        {"heldout": "SecretAccessKey", "tune": "aws_secret_access_key"},
        {"heldout": ['    "SecretAccessKey": "{v}",', "secret_key = {v}"],
         "tune": ["aws_secret_access_key = {v}", "AWS creds: AKIAFAKEEXAMPLE0002 / {v}"]},
        {"heldout": ["aws configure set aws_secret_access_key {v} --profile ci"],
         "tune": ["export aws_secret_access_key={v}"]},
    ))
    add(Kind(
        "azure-storage-key", False, _simple(lambda r: "FAKE" + pick(r, B64, 82) + "=="),
        {"heldout": ["the blob account key from the portal is {v}"],
         "tune": ["DefaultEndpointsProtocol=https;AccountName=fakeacct;AccountKey={v};EndpointSuffix=core.windows.net"]},
        {"heldout": "storageAccountKey", "tune": "AZURE_STORAGE_KEY"},
        {"heldout": ["AzureWebJobsStorage: DefaultEndpointsProtocol=https;AccountName=fakefn;AccountKey={v}"],
         "tune": ["AZURE_STORAGE_KEY={v}", "storage key: {v}"]},
        {"heldout": ["az storage blob list --account-name fakeacct --account-key {v}"],
         "tune": ["az storage container create -n logs --account-key {v}"]},
    ))
    add(Kind(
        "azure-shared-access-key", False, _simple(lambda r: "FAKE" + pick(r, B64, 39) + "="),
        {"heldout": ["Endpoint=sb://fake-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
                     "SharedAccessKey={v} is what the function app uses"],
         "tune": ["Endpoint=sb://fake-hub.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey={v};"
                  "EntityPath=events"]},
        {"heldout": "serviceBusConnection", "tune": "connection_string"},
        {"heldout": ["ServiceBus__Conn=Endpoint=sb://fake-bus.servicebus.windows.net/;SharedAccessKeyName=listen;"
                     "SharedAccessKey={v}"],
         "tune": ["conn = Endpoint=sb://fake-hub.servicebus.windows.net/;SharedAccessKeyName=send;"
                  "SharedAccessKey={v}"]},
        {"heldout": ["func settings add SB 'Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=a;"
                     "SharedAccessKey={v}'"],
         "tune": ["export EH_CONN='Endpoint=sb://y.servicebus.windows.net/;SharedAccessKeyName=b;"
                  "SharedAccessKey={v}'"]},
    ))
    add(Kind(
        "sql-server-password", False, _simple(_strong_password),
        {"heldout": ["Data Source=fake-sql.example.net;Initial Catalog=Billing;User Id=billing_app;Pwd={v};"
                     " is the string from appsettings"],
         "tune": ["Server=tcp:fake-sql.database.windows.net,1433;Initial Catalog=appdb;User ID=sqladmin;"
                  "Password={v};Encrypt=True;"]},
        {"heldout": "ConnectionStrings", "tune": "connection_string"},
        {"heldout": ['    "Billing": "Data Source=fake-sql.example.net;Initial Catalog=Billing;User Id=app;Pwd={v};"'],
         "tune": ["Server=localhost;Database=shop;User ID=sa;Password={v};TrustServerCertificate=True"]},
        {"heldout": ["sqlcmd -S fake-sql.example.net -U app -P '{v}' -Q 'SELECT 1'"],
         "tune": ["dotnet user-secrets set ConnectionStrings:Db 'Server=.;Database=shop;User ID=sa;Password={v}'"]},
    ))
    add(Kind(
        "password-sentence", False, _simple(_password_value),
        {"heldout": ["The login for the staging box is admin and the password there is {v}",
                     "fyi the wifi password at the office was changed to {v}"],
         "tune": ["my password is {v}", "the password for the db is {v} btw"]},
        {"heldout": "message", "tune": "text"},
        {"heldout": ["Your temporary password is {v} - change it after first login."],
         "tune": ["password: {v}"]},
        {"heldout": ["send_mail --to ops@example.com --body 'new root password is {v}'"],
         "tune": ["echo 'db password is {v}' >> notes.txt"]},
    ))
    add(Kind(
        "password-short-label", False, _simple(_password_value),
        {"heldout": ["user: deploy / pwd: {v}", "login svc-backup, passwd = {v}"],
         "tune": ["pw: {v}", "creds are admin / pw {v}"]},
        {"heldout": "passwd", "tune": "pw"},
        {"heldout": ["login=deploy pwd={v}"], "tune": ["pw: {v}"]},
        {"heldout": ["./vpn-connect --user ops --passwd {v}"], "tune": ["./login --user admin --password {v}"]},
    ))
    add(Kind(
        "passphrase", False, _simple(_passphrase),
        {"heldout": ["GPG passphrase: {v}"], "tune": ["the passphrase is {v}."]},
        {"heldout": "gpg_passphrase", "tune": "passphrase"},
        {"heldout": ['signing.passphrase = "{v}"'], "tune": ['passphrase: "{v}"']},
        {"heldout": ["gpg --batch --passphrase '{v}' -d secrets.gpg"],
         "tune": ["ssh-keygen -p -N '{v}' -f key  # passphrase {v}"]},
    ))
    add(Kind(
        "cli-password-flag", False, _simple(_strong_password),
        {"heldout": ["I ran sshpass -p '{v}' ssh deploy@10.0.0.5 and it hung"],
         "tune": ["run mysql -u root -p{v} shop to get in"]},
        {"heldout": "cmd", "tune": "command"},
        {"heldout": ["+ sshpass -p {v} scp dump.sql backup@10.0.0.9:/srv"], "tune": ["$ mysql -uroot -p{v} -e 'show databases'"]},
        {"heldout": ["sshpass -p '{v}' rsync -a ./dist deploy@10.0.0.5:/var/www"],
         "tune": ["mysqldump -u root -p{v} shop > shop.sql"]},
    ))
    add(Kind(
        "env-lowercase-secret", False, _simple(lambda r: "Fk" + pick(r, ALNUM, 10) + rng_symbol(r) + pick(r, ALNUM, 6)),
        {"heldout": ["my local config has redis_passwd={v} and export jwtSecret={v}"],
         "tune": ["the .env has db_password={v}"]},
        {"heldout": "mailerPassword", "tune": "db_password"},
        {"heldout": ["export jwtSecret={v}", "redis_passwd={v}", "Mail_Pass={v}"],
         "tune": ["db_password={v}", "export stripe_secret={v}", "Smtp_Password = {v}"]},
        {"heldout": ["heroku config:set redis_passwd={v}"], "tune": ["echo db_password={v} >> .env"]},
    ))
    add(Kind(
        "env-export-secret", False, _simple(lambda r: "Fk" + pick(r, URLSAFE, 30)),
        {"heldout": ["I added `export SIGNING_SECRET_V2=\"{v}\"` to my zshrc"],
         "tune": ["export FOO_SECRET={v} then rerun"]},
        {"heldout": "SIGNING_SECRET_V2", "tune": "FOO_SECRET"},
        {"heldout": ["export SIGNING_SECRET_V2=\"{v}\""], "tune": ["export FOO_SECRET={v}"]},
        {"heldout": ["export SIGNING_SECRET_V2=\"{v}\" && pytest"], "tune": ["export FOO_SECRET={v}; make run"]},
    ))
    add(Kind(
        "high-entropy-labelled", False, _simple(lambda r: pick(r, URLSAFE, r.randint(32, 48))),
        {"heldout": ["the HMAC key is {v}", "paste this credential into vault: {v}"],
         "tune": ["signing secret: {v}", "here's the token {v}"]},
        {"heldout": "hmacKey", "tune": "webhook_secret"},
        {"heldout": ["hmac_key {v}", "SessionToken: {v}"], "tune": ["webhook_secret={v}", "secret {v}"]},
        {"heldout": ["vault kv put secret/app hmac={v} credential={v}"],
         "tune": ["./verify --secret {v} payload.json"]},
    ))
    add(Kind(
        "high-entropy-hex-labelled", False, _simple(lambda r: pick(r, HEX, 40)),
        {"heldout": ["the client secret they emailed is {v}"], "tune": ["api secret = {v}"]},
        {"heldout": "clientSecret", "tune": "api_secret"},
        {"heldout": ["client_secret: {v}"], "tune": ["API_SECRET_HEX={v}", "secret: {v}"]},
        {"heldout": ["oauth2-proxy --client-secret={v}"], "tune": ["./app --secret {v}"]},
    ))
    add(Kind(
        "basic-auth-url", False,
        lambda r: (lambda p: Cred(f"https://deploy-bot:{p}@git.example.com/org/repo.git", p))(_strong_password(r)),
        {"heldout": ["the mirror lives at {v}"], "tune": ["clone {v} please"]},
        {"heldout": "remote", "tune": "url"},
        {"heldout": ["remote.origin.url={v}"], "tune": ["origin  {v} (fetch)"]},
        {"heldout": ["git push {v} main"], "tune": ["git clone {v}"]},
    ))
    add(Kind(
        "basic-auth-url-other-scheme", False,
        lambda r: (lambda p: Cred(f"amqps://events:{p}@mq.example.net:5671/prod", p))(_strong_password(r)),
        {"heldout": ["broker url is {v}"], "tune": ["the queue is at {v}"]},
        {"heldout": "broker_url", "tune": "amqp_url"},
        {"heldout": ["CELERY_BROKER={v}"], "tune": ["broker: {v}"]},
        {"heldout": ["celery -A app worker -b {v}"], "tune": ["python consume.py {v}"]},
    ))
    add(Kind(
        "curl-user-password", False,
        lambda r: (lambda p: Cred(f"-u admin:{p}", p))(_strong_password(r)),
        {"heldout": ["I tested with curl {v} https://jenkins.example.com/api/json"],
         "tune": ["curl {v} https://es.example.com:9200/_cat/indices"]},
        {"heldout": "args", "tune": "command"},
        {"heldout": ["+ curl -fsS {v} https://jenkins.example.com/crumbIssuer"], "tune": ["$ curl {v} localhost:9200"]},
        {"heldout": ["curl -fsS {v} https://jenkins.example.com/job/x/build -X POST"],
         "tune": ["curl {v} https://es.example.com:9200/_cluster/health"]},
    ))
    add(Kind(
        "authorization-basic", False,
        _simple(lambda r: base64.b64encode(f"svc:{_strong_password(r)}".encode()).decode()),
        {"heldout": ["the webhook sends Authorization: Basic {v} with each delivery"],
         "tune": ["I use Authorization: Basic {v}"]},
        {"heldout": "Authorization", "tune": "Authorization"},
        {"heldout": ["authorization: Basic {v}"], "tune": ["Authorization: Basic {v}"]},
        {"heldout": ["http GET https://api.example.org/v2/items 'Authorization: Basic {v}'"],
         "tune": ["curl -H 'Authorization: Basic {v}' https://api.example.com"]},
    ))
    add(Kind(
        "authorization-mixed-case", False, _simple(lambda r: "FAKE" + pick(r, URLSAFE, 36)),
        {"heldout": ["header was AuthoriZation: Token {v}"], "tune": ["AUTHorization: Bearer {v}"]},
        {"heldout": "AUTHORIZATION", "tune": "AUTHorization"},
        {"heldout": ["AUTHorization: Token {v}"], "tune": ["AUTHorization: Bearer {v}"]},
        {"heldout": ["http :8000/api 'AuthoriZation:Token {v}'"], "tune": ["curl -H 'AUTHorization: Bearer {v}' x"]},
    ))
    add(Kind(
        "api-key-header", False, _simple(lambda r: pick(r, HEX, 32)),
        {"heldout": ["set Ocp-Apim-Subscription-Key: {v} on the request"], "tune": ["X-API-Key: {v}"]},
        {"heldout": "Ocp-Apim-Subscription-Key", "tune": "X-API-Key"},
        {"heldout": ["Ocp-Apim-Subscription-Key: {v}"], "tune": ["x-api-key: {v}"]},
        {"heldout": ["curl -H 'Ocp-Apim-Subscription-Key: {v}' https://fake.azure-api.net/x"],
         "tune": ["curl -H 'X-API-Key: {v}' https://api.example.com"]},
    ))
    add(Kind(
        "session-cookie", False, _simple(lambda r: pick(r, string.ascii_lowercase + string.digits, 32)),
        {"heldout": ["my browser has Set-Cookie: connect.sid=s%3A{v}; Path=/; HttpOnly"],
         "tune": ["Cookie: sessionid={v}; csrftoken=abc"]},
        {"heldout": "cookie", "tune": "Cookie"},
        {"heldout": ["< set-cookie: PHPSESSID={v}; path=/; secure"], "tune": ["Cookie: sessionid={v}"]},
        {"heldout": ["curl -b 'JSESSIONID={v}' https://shop.example.com/cart"],
         "tune": ["curl --cookie 'sessionid={v}' https://app.example.com/"]},
    ))
    add(Kind(
        "gcp-private-key-id", False, _simple(lambda r: pick(r, HEX, 40)),
        {"heldout": ["in the downloaded JSON the private_key_id is {v}"], "tune": ['"private_key_id": "{v}"']},
        {"heldout": "private_key_id", "tune": "private_key_id"},
        {"heldout": ["  private_key_id: {v}"], "tune": ['  "private_key_id": "{v}",']},
        {"heldout": ["sed -i 's/\"private_key_id\": \".*\"/\"private_key_id\": \"{v}\"/' sa.json"],
         "tune": ["jq '.private_key_id = \"{v}\"' sa.json"]},
    ))
    add(Kind(
        "private-key-pgp", False, _private_key("PGP PRIVATE KEY BLOCK", "lQOYBF"),
        {"heldout": ["exported with gpg --armor:\n{v}"], "tune": ["my gpg key:\n{v}"]},
        {"heldout": "armored_key", "tune": "gpg_key"},
        {"heldout": ["{v}"], "tune": ["{v}"]},
        {"heldout": ["gpg --import <<'EOF'\n{v}\nEOF"], "tune": ["echo '{v}' | gpg --import"]},
    ))
    add(Kind(
        "private-key-truncated", False, _private_key("PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", end=False),
        {"heldout": ["the file starts like this (rest cut off):\n{v}"], "tune": ["first lines of the key:\n{v}"]},
        {"heldout": "key_pem", "tune": "private_key"},
        {"heldout": ["{v}\n... [output truncated]"], "tune": ["{v}\n[truncated]"]},
        {"heldout": ["head -8 sa.pem # {v}"], "tune": ["printf '{v}' > k.pem"]},
    ))
    add(Kind(
        "slack-webhook", False,
        lambda r: (lambda t: Cred(f"https://hooks.slack.com/services/{t}", t))(
            f"T0FAKE{pick(r, UPPER_DIGITS, 5)}/B0FAKE{pick(r, UPPER_DIGITS, 5)}/{pick(r, ALNUM, 24)}"),
        {"heldout": ["alerts go to {v}"], "tune": ["post to {v}"]},
        {"heldout": "slackWebhook", "tune": "webhook_url"},
        {"heldout": ["SLACK_HOOK={v}"], "tune": ["webhook: {v}"]},
        {"heldout": ["curl -X POST -d '{{\"text\":\"hi\"}}' {v}"], "tune": ["curl -d @msg.json {v}"]},
    ))
    add(Kind(
        "discord-webhook", False,
        lambda r: (lambda t: Cred(f"https://discord.com/api/webhooks/{digits(r, 18)}/{t}", t))(
            "FAKE" + pick(r, URLSAFE, 64)),
        {"heldout": ["the bot posts through {v}"], "tune": ["discord hook: {v}"]},
        {"heldout": "discordHook", "tune": "webhook_url"},
        {"heldout": ["notify_url = {v}"], "tune": ["DISCORD_WEBHOOK={v}"]},
        {"heldout": ["curl -H 'Content-Type: application/json' -d @m.json {v}"], "tune": ["curl -d @m.json {v}"]},
    ))
    add(vendor("stripe-restricted-test", lambda r: "rk_test_FAKE" + pick(r, ALNUM, 24), False))
    add(vendor("stripe-webhook-secret", lambda r: "whsec_FAKE" + pick(r, ALNUM, 28), False))
    add(vendor("twilio-api-key", lambda r: "SK" + pick(r, HEX, 32), False))
    add(Kind(
        "twilio-auth-token", False, _simple(lambda r: pick(r, HEX, 32)),
        {"heldout": ["the Twilio auth token on the console is {v}"], "tune": ["twilio auth token: {v}"]},
        {"heldout": "authToken", "tune": "twilio_auth_token"},
        {"heldout": ["twilio.authToken={v}"], "tune": ["twilio_auth_token = {v}"]},
        {"heldout": ["twilio profiles:create --auth-token {v}"], "tune": ["./sms --auth-token {v}"]},
    ))
    add(vendor("sendgrid-key", lambda r: f"SG.{pick(r, URLSAFE, 22)}.{pick(r, URLSAFE, 43)}", False))
    add(vendor("mailgun-key", lambda r: "key-" + pick(r, HEX, 32), False))
    add(vendor("heroku-key", lambda r: "HRKU-AAFAKE" + pick(r, URLSAFE, 52), False))
    add(Kind(
        "heroku-uuid-key", False, _simple(lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4))),
        {"heldout": ["heroku's API key for the pipeline bot is {v}"], "tune": ["heroku api key: {v}"]},
        {"heldout": "herokuApiKey", "tune": "heroku_api_key"},
        {"heldout": ["  password {v}"], "tune": ["heroku_api_key={v}"]},
        {"heldout": ["HEROKU_API_KEY={v} heroku apps"], "tune": ["heroku_api_key={v} ./deploy"]},
    ))
    add(Kind(
        "npm-legacy-token", False, _simple(lambda r: str(uuid.UUID(int=r.getrandbits(128), version=4))),
        {"heldout": ["my .npmrc has //npm.pkg.example.com/:_authToken={v}"],
         "tune": ["//registry.npmjs.org/:_authToken={v}"]},
        {"heldout": "npmrc", "tune": "npmrc"},
        {"heldout": ["//npm.pkg.example.com/:_authToken={v}"], "tune": ["//registry.npmjs.org/:_authToken={v}"]},
        {"heldout": ["npm config set //npm.pkg.example.com/:_authToken={v}"],
         "tune": ["echo //registry.npmjs.org/:_authToken={v} > .npmrc"]},
    ))
    add(vendor("gitlab-token", lambda r: "glpat-FAKE" + pick(r, URLSAFE, 16), False))
    add(vendor("google-oauth-secret", lambda r: "GOCSPX-FAKE" + pick(r, URLSAFE, 24), False))
    add(vendor("databricks-token", lambda r: "dapi" + pick(r, HEX, 32), False))
    add(vendor("sendgrid-key-full", lambda r: f"SG.FAKE{pick(r, URLSAFE, 18)}.{pick(r, URLSAFE, 43)}", False))
    for kind in kinds:
        kind.json_value = JSON_VALUES.get(kind.name, {})
    return kinds


# Kinds whose value is only recognisable together with its surroundings are embedded in that form.
JSON_VALUES: dict[str, dict[str, str]] = {
    "env-assignment": {"heldout": "PAYMENTS_WEBHOOK_SECRET={v}", "tune": "SERVICE_API_TOKEN={v}"},
    "bearer-token": {"heldout": "Bearer {v}", "tune": "Bearer {v}"},
    "authorization-basic": {"heldout": "Basic {v}", "tune": "Basic {v}"},
    "authorization-mixed-case": {"heldout": "Token {v}", "tune": "Bearer {v}"},
    "azure-shared-access-key": {
        "heldout": "Endpoint=sb://fake-bus.servicebus.windows.net/;SharedAccessKeyName=listen;SharedAccessKey={v}",
        "tune": "Endpoint=sb://fake-hub.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey={v}",
    },
    "sql-server-password": {
        "heldout": "Data Source=fake-sql.example.net;Initial Catalog=Billing;User Id=app;Pwd={v};",
        "tune": "Server=localhost;Database=shop;User ID=sa;Password={v};",
    },
    "password-sentence": {"heldout": "the new root password is {v}", "tune": "my password is {v}"},
    "cli-password-flag": {"heldout": "sshpass -p {v} ssh deploy@10.0.0.5", "tune": "mysql -u root -p{v} shop"},
    "session-cookie": {"heldout": "PHPSESSID={v}; lang=en", "tune": "sessionid={v}; theme=dark"},
    "npm-legacy-token": {"heldout": "//npm.pkg.example.com/:_authToken={v}", "tune": "//registry.npmjs.org/:_authToken={v}"},
}


def rng_symbol(rng: random.Random) -> str:
    return rng.choice("!#%*@^~+")


# --------------------------------------------------------------------------------------------
# Contexts (how a credential reaches the summarizer prompt)
# --------------------------------------------------------------------------------------------

STYLE = {
    "heldout": {
        "user_wrap": [
            "Quick one before I log off. {x}\nAlso the nightly job died again.",
            "ok so {x} -- no idea why prod differs from my laptop",
            "{x}\n\n(sorry for dumping this here)",
        ],
        "tools": ["run_shell", "exec", "bash"],
        "file_tools": [("save_file", "file_path", "body"), ("apply_patch", "target", "new_text")],
        "files": ["deploy/.env.production", "appsettings.Development.json", "infra/secrets.auto.tfvars", "ci/vars.yml"],
        "output_wrap": [
            "Exit code: 0\n--- stdout ---\n{x}\n--- stderr ---\n",
            "[2026-09-17T08:12:44Z] worker-3 starting\n{x}\n[2026-09-17T08:12:45Z] ready on :8080",
            "Contents of {f}:\n{x}\n(EOF)",
        ],
        "noise": ["LOG_LEVEL=warn", "FEATURE_FLAGS=beta_ui,fast_path", "REGION=eu-west-1", "WORKERS=8"],
        "outer_keys": ("request", "payload"),
    },
    "tune": {
        "user_wrap": [
            "Hi! {x}\nCan you fix the deploy?",
            "{x} -- what am I doing wrong?",
            "Context for the task: {x}",
        ],
        "tools": ["terminal", "shell"],
        "file_tools": [("write_file", "path", "content"), ("edit_file", "path", "text")],
        "files": [".env", "config/settings.yaml", "docker-compose.override.yml"],
        "output_wrap": [
            "$ cat {f}\n{x}\n$ ",
            "{x}",
            "stdout:\n{x}\nexit status 0",
        ],
        "noise": ["DEBUG=false", "PORT=3000", "NODE_ENV=production"],
        "outer_keys": ("body", "data"),
    },
}


def render_line(rng: random.Random, kind: Kind, style: str, cred: Cred) -> str:
    template = rng.choice(kind.lines[style])
    return template.replace("{v}", cred.value).replace("{{", "{").replace("}}", "}")


def fill(template: str, value: str) -> str:
    return template.replace("{v}", value).replace("{{", "{").replace("}}", "}")


def make_context(rng: random.Random, kind: Kind, style: str, context: str, cred: Cred) -> str:
    st = STYLE[style]
    if context == "user_text":
        prose = fill(rng.choice(kind.prose[style]), cred.value)
        return rng.choice(st["user_wrap"]).replace("{x}", prose)
    if context == "tool_args":
        if rng.random() < 0.5 and kind.shell.get(style):
            args = {"command": fill(rng.choice(kind.shell[style]), cred.value)}
            if style == "heldout":
                args["timeout"] = 120
            name = rng.choice(st["tools"])
        else:
            tool, path_key, content_key = rng.choice(st["file_tools"])
            noise = rng.sample(st["noise"], 2)
            args = {path_key: rng.choice(st["files"]), content_key: "\n".join([noise[0], render_line(rng, kind, style, cred), noise[1]])}
            name = tool
        text = json.dumps(args)
        return f"  {name}({text})" if rng.random() < 0.5 else text
    if context in ("escaped_json", "escaped_json_2"):
        inner: dict = {kind.json_key[style]: fill(kind.json_value.get(style, "{v}"), cred.value)}
        inner["region" if style == "tune" else "stage"] = rng.choice(["us-east-1", "staging", "prod"])
        encoded = json.dumps(inner)
        outer_a, outer_b = st["outer_keys"]
        if context == "escaped_json":
            args = {"url": "https://internal.example.com/api/config", outer_a: encoded}
        else:
            args = {"tool": "http_request", outer_b: json.dumps({"method": "PUT", outer_a: encoded})}
        return json.dumps(args)
    if context == "tool_output":
        noise = rng.sample(st["noise"], 2)
        body = "\n".join([noise[0], render_line(rng, kind, style, cred), noise[1]])
        return rng.choice(st["output_wrap"]).replace("{f}", rng.choice(st["files"])).replace("{x}", body)
    raise ValueError(context)


def credential_lines(style: str, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for kind in build_kinds():
        for context in CONTEXTS:
            cred = kind.make(rng)
            text = make_context(rng, kind, style, context, cred)
            if cred.secret not in text:
                raise AssertionError(f"{kind.name}/{context}: secret not verbatim in text")
            out.append({
                "id": f"{style}-{kind.name}-{context}",
                "kind": kind.name,
                "reference": kind.reference,
                "context": context,
                "text": text,
                "secret": cred.secret,
            })
    return out


# --------------------------------------------------------------------------------------------
# Near misses: things that look secret-ish but are not, and must stay untouched
# --------------------------------------------------------------------------------------------


def near_miss_lines(seed: int) -> list[dict]:
    rng = random.Random(seed)
    lines: list[dict] = []

    def add(kind: str, text: str) -> None:
        lines.append({"id": f"near-{kind}-{len(lines)}", "kind": kind, "text": text})

    for _ in range(8):
        sha = pick(rng, HEX, 40)
        short = sha[:7]
        add("git-sha", f"commit {sha}\nAuthor: Dev One <dev@example.com>\nDate:   Tue Sep 16 10:00:00 2026\n\n"
                       f"    fix token refresh race")
        add("git-sha", f"https://github.com/example/app/commit/{sha}")
        add("git-sha", f"{short} Merge pull request #{rng.randint(10, 999)} from example/fix-auth\n"
                       f"HEAD is now at {short} update secret rotation docs")
        add("git-sha", json.dumps({"sha": sha, "node_id": "C_kwDOFAKE" + pick(rng, HEX, 12), "message": "bump"}))
        add("git-sha", f"  {'token':>8}: refreshed in commit {sha[:12]}")
    for _ in range(8):
        u = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        add("uuid", f'{{"request_id": "{u}", "status": "ok"}}')
        add("uuid", f"INFO session {u} started for user 42")
        add("uuid", f"tool_call_id={u}")
        add("uuid", f"trace: {u} span={pick(rng, HEX, 16)}")
    for _ in range(6):
        payload = base64.b64encode(bytes(rng.getrandbits(8) for _ in range(rng.randint(300, 1200)))).decode()
        add("data-url", f'{{"type": "image_url", "image_url": {{"url": "data:image/png;base64,{payload}"}}}}')
        add("data-url", f"![screenshot](data:image/jpeg;base64,{payload})")
        add("data-url", f"token preview: data:image/webp;base64,{payload}")
    for _ in range(8):
        add("hex-id-url", f"https://cdn.example.com/objects/{pick(rng, HEX, 64)}/blob")
        add("hex-id-url", f"GET /api/v2/runs/{pick(rng, HEX, 32)}/artifacts 200 12ms")
        add("hex-id-url", f"https://storage.example.org/cache/{pick(rng, HEX, 40)}.tar.zst?download=1")
    for _ in range(6):
        add("lockfile-hash", json.dumps({"node_modules/left-pad": {
            "version": "1.3.0", "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
            "integrity": "sha512-" + pick(rng, B64, 86) + "=="}}, indent=2))
        add("lockfile-hash", f'{{file = "requests-2.32.3-py3-none-any.whl", hash = "sha256:{pick(rng, HEX, 64)}"}},')
        add("lockfile-hash", f"left-pad@^1.3.0:\n  version \"1.3.0\"\n  integrity sha512-{pick(rng, B64, 86)}==")
        add("lockfile-hash", f"requests==2.32.3 \\\n    --hash=sha256:{pick(rng, HEX, 64)}")
        add("lockfile-hash", f'[[package]]\nname = "serde"\nchecksum = "{pick(rng, HEX, 64)}"')
        add("lockfile-hash", f"golang.org/x/crypto v0.31.0 h1:{pick(rng, B64, 43)}=")
        add("lockfile-hash", f"SHA256 ({pick(rng, string.ascii_lowercase, 6)}.tar.gz) = {pick(rng, HEX, 64)}")
    for _ in range(6):
        add("docker-digest", f"python:3.11-slim@sha256:{pick(rng, HEX, 64)}")
        add("docker-digest", f"Digest: sha256:{pick(rng, HEX, 64)}\nStatus: Downloaded newer image for app:latest")
        add("docker-digest", f"{pick(rng, HEX, 12)}   app-web   \"gunicorn app:wsgi\"   Up 3 hours")
    paths = [
        "/home/dev/.cache/huggingface/hub/models--gpt2/snapshots/{h}/tokenizer.json",
        "src/auth/password_reset/token_generator.py",
        "/var/lib/secrets-manager/cache/{h}.json",
        "C:\\Users\\dev\\AppData\\Local\\pip\\cache\\http\\{h}",
        "tests/fixtures/api_key_rotation/expected_output.json",
        "~/.config/gcloud/credentials.db",
        "/etc/ssl/private/server.key (mode 600)",
    ]
    for path in paths:
        add("file-path", path.replace("{h}", pick(rng, HEX, 40)))
    code = [
        "password_field = forms.CharField(widget=forms.PasswordInput)",
        "token = get_token()",
        'api_key = os.environ["API_KEY"]',
        'api_key = os.getenv("OPENAI_API_KEY")',
        "def check_password(password: str, hashed: bytes) -> bool:",
        "if not token:\n    raise AuthError('missing token')",
        "self.secret_key = settings.SECRET_KEY",
        'password = request.POST.get("password")',
        '"password": {"type": "string", "minLength": 8}',
        "token_count = len(tokenizer.encode(text))",
        "response = client.chat(model=model, max_tokens=4096)",
        "const token = await getAccessToken();",
        "export const API_KEY = process.env.API_KEY;",
        "secret = load_secret(name=secret_name)",
        "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        "auth: {type: 'oauth2', flows: {}}",
        "credentials = service_account.Credentials.from_service_account_file(path)",
        "if user.check_password(raw_password):",
        "key = cache_key(request)",
        "for key, value in sorted(settings.items()):",
        'headers = {"Authorization": f"Bearer {token}"}',
        "TOKEN_LIMIT = 128000",
        'session_id = request.cookies.get("sessionid")',
        "private_key = load_pem_private_key(data, password=None)",
        "password: ${DB_PASSWORD}",
        "api_key: <your-api-key>",
        "token: '{{ secrets.GITHUB_TOKEN }}'",
        "PASSWORD = os.environ.get('PASSWORD', '')",
        "assert resp.json()['token_type'] == 'bearer'",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + pick(rng, B64, 43) + " dev@laptop",
        # shapes seen in real library code and docs
        "    handler.validate(\n        api_key=api_key,\n        client_secret=client_secret,\n    )",
        "class Session(BaseModel):\n    client_secret: ClientSecret\n    credential: UpdateCredentialItem",
        "            return {'Authorization': auth_token}",
        '          "NextToken": "' + pick(rng, B64, 60) + '",',
        '      "ClientToken": "' + pick(rng, ALNUM, 32) + '",',
        "        Token:                  '#ABB2BF',",
        '    "access_token": "your-access-token",\n    "password": "<your-password>",',
        "        password (bool, optional): Enable password input. Defaults to False.",
        "                # 1st pass: check if the value is an instance of the type",
        '    encrypted_token: Final = auth_header.removeprefix("Bearer ").strip()',
        "The token figure is `estimate_request_tokens_rough(messages, system_prompt, tools)`.",
        "    SECRET_KEY = 'AWS_SECRET_ACCESS_KEY'\n    ACCESS_KEY = 'aws_access_key_id'",
        'def reset_span(token: "Token[Span | None]") -> None:',
        "    self.webhook_secret = webhook_secret or os.getenv(\"WEBHOOK_SECRET\")",
    ]
    for snippet in code:
        add("code", snippet)
    tests = [
        "tests/test_auth.py::test_invalid_token_rejected PASSED",
        "tests/test_auth.py::test_password_reset_token_expires FAILED",
        "test_api_key_header_is_case_insensitive ... ok",
        "FAILED tests/unit/test_secrets.py::TestSecretManager::test_rotate_secret_key - AssertionError",
    ]
    for t in tests:
        add("test-name", t)
    words = [
        "The tokenizer splits the prompt into 1,532 tokens; the token limit is 128000.",
        "The password field is required and the token is expired, so log in again.",
        "Use a keyboard shortcut: press the key combination Ctrl+K to open the palette.",
        "Passport numbers and passwords must never be logged; see docs/security.md.",
        "API key rotation is documented in docs/keys.md and the secret store is Vault.",
        "Your session has expired. Please sign in again to continue.",
        "The cache key is built from the request path and the user id.",
        "Token usage: prompt 1532, completion 240, total 1772.",
        "We pass the credentials object to the client; authentication happens lazily.",
        "All 42 tests passed; bypassing the auth middleware in tests is intentional.",
        "The secret sauce is caching: hit rate went from 40% to 93%.",
        "Set the password policy to require 12 characters and one symbol.",
    ]
    for w in words:
        add("words", w)
    return lines


def write_jsonl(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> None:
    write_jsonl(HERE / "heldout.jsonl", credential_lines("heldout", seed=20260917))
    write_jsonl(HERE / "credentials.jsonl", credential_lines("tune", seed=1234))
    write_jsonl(HERE / "near_misses.jsonl", near_miss_lines(seed=4321))


if __name__ == "__main__":
    main()
