"""The strike record's schema, as ordered migration steps per engine (SQLite, PostgreSQL).

Step N brings a record to version N; `schema_version` holds the versions applied. A record
from before versioning has no such table: step 1 (`IF NOT EXISTS` throughout) finds its
tables in place and only the later steps change it. Add a step, never edit one.
"""

from __future__ import annotations

from gwanjong_gateway.record.notice_rows import notices_table

_CLAIMS = """
-- The database itself refuses a second live claim on a target (or, for new posts, on the
-- same text), so two gateways or two racing calls cannot both write.
CREATE UNIQUE INDEX IF NOT EXISTS strikes_one_claim ON strikes (platform, target, action)
    WHERE target != '' AND status IN ('pending', 'posted', 'handoff', 'unknown')
"""
_ONE_POST = """
CREATE UNIQUE INDEX IF NOT EXISTS strikes_one_post ON strikes (platform, intent_key)
    WHERE target = '' AND status IN ('pending', 'posted', 'handoff', 'unknown')
"""


def _strikes(id_column: str, time_type: str) -> str:
    return f"""
CREATE TABLE IF NOT EXISTS strikes (
    id            {id_column},
    intent_key    TEXT NOT NULL,
    platform      TEXT NOT NULL,
    target        TEXT NOT NULL,          -- post id acted on; '' for a new post
    target_url    TEXT NOT NULL DEFAULT '',
    author        TEXT NOT NULL DEFAULT '',
    opportunity   TEXT NOT NULL DEFAULT '',
    action        TEXT NOT NULL,          -- comment | post | upvote
    content_hash  TEXT NOT NULL,
    content       TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    mode          TEXT NOT NULL,          -- dry-run | confirm | live
    status        TEXT NOT NULL,          -- a ledger.StrikeStatus
    reason        TEXT NOT NULL DEFAULT '',
    approver      TEXT NOT NULL DEFAULT '',  -- auto | human | ''
    result_id     TEXT NOT NULL DEFAULT '',
    result_url    TEXT NOT NULL DEFAULT '',
    context       TEXT NOT NULL DEFAULT '{{}}',  -- what the model saw in draft
    policy        TEXT NOT NULL DEFAULT '[]',  -- the policy decisions, in order
    created_at    {time_type} NOT NULL,
    updated_at    {time_type} NOT NULL
)"""


def _health(time_type: str) -> str:
    return f"""
CREATE TABLE IF NOT EXISTS platform_health (
    platform      TEXT PRIMARY KEY,
    failures      INTEGER NOT NULL DEFAULT 0,
    paused_reason TEXT NOT NULL DEFAULT '',
    updated_at    {time_type} NOT NULL
)"""


def _first(id_column: str, time_type: str) -> list[str]:
    return [
        _strikes(id_column, time_type),
        "CREATE INDEX IF NOT EXISTS strikes_target ON strikes (platform, target, action)",
        "CREATE INDEX IF NOT EXISTS strikes_intent ON strikes (intent_key)",
        _CLAIMS,
        _ONE_POST,
        _health(time_type),
    ]


#: who (the signed-in principal) made the strike: the audit's `by`, as a column
_PRINCIPAL = ["ALTER TABLE strikes ADD COLUMN principal TEXT NOT NULL DEFAULT ''"]

#: the inbox's `next_since` per platform, shared by every replica (used with [store] url)
_CURSORS = [
    "CREATE TABLE IF NOT EXISTS inbox_cursors (platform TEXT PRIMARY KEY, next_since TEXT NOT NULL)"
]

#: the usage figures of every process (PostgreSQL only: SQLite keeps `usage.db`, its own file)
_USAGE = [
    """
CREATE TABLE IF NOT EXISTS usage_calls (
    at            DOUBLE PRECISION NOT NULL,
    scope         TEXT NOT NULL,
    platform      TEXT NOT NULL,
    tool          TEXT NOT NULL,
    kind          TEXT NOT NULL,
    ms            DOUBLE PRECISION NOT NULL,
    tokens        BIGINT,
    retry_after   DOUBLE PRECISION,
    message       TEXT NOT NULL DEFAULT '',
    rl_remaining  BIGINT,
    rl_limit      BIGINT,
    rl_reset      TEXT
)""",
    "CREATE INDEX IF NOT EXISTS usage_calls_at ON usage_calls (at)",
]

#: `confirm_handoff` finds the pending hand-off of an opportunity with one indexed query
_HANDOFFS = ["CREATE INDEX IF NOT EXISTS strikes_opportunity ON strikes (opportunity, status)"]

#: how many spaced read-backs found an unsure write absent (strike/settle.py), so a clock
#: step or a restart cannot turn it `failed` before the settle window really passed
_READBACKS = ["ALTER TABLE strikes ADD COLUMN readbacks INTEGER NOT NULL DEFAULT 0"]

#: whose call each usage row counts (team mode: each principal reads their own usage);
#: SQLite's usage.db gets the column when it is opened (usage/log.py)
_USAGE_PRINCIPAL = [
    "ALTER TABLE usage_calls ADD COLUMN IF NOT EXISTS principal TEXT NOT NULL DEFAULT ''",
    "CREATE INDEX IF NOT EXISTS usage_calls_principal ON usage_calls (principal, at)",
]

#: who (the signed-in principal) confirmed a hand-off as posted by a person
_CONFIRMED_BY = ["ALTER TABLE strikes ADD COLUMN confirmed_by TEXT NOT NULL DEFAULT ''"]


#: an unsure write the platform cannot show (a vote, a read that keeps failing) past its
#: settle window: only a person settles it (`gwanjong history --resolve`); rows from before
#: this step said so only in their reason's words
def _needs_person(find: str) -> list[str]:
    # ``find``: the engine's substring test (no `%` in SQL that psycopg also reads)
    return [
        "ALTER TABLE strikes ADD COLUMN needs_person INTEGER NOT NULL DEFAULT 0",
        "UPDATE strikes SET needs_person = 1 WHERE status IN ('pending', 'unknown') "
        f"AND {find}(reason, 'history --resolve') > 0",
    ]


def _handoff_claims(time_type: str) -> list[str]:
    """A hand-off the model said was posted, without proof (strike/proof.py), stays the
    person's: when it claimed so and the link it gave. Hand-offs expire and are dismissed:
    the sweep finds the open ones by status and age."""
    return [
        f"ALTER TABLE strikes ADD COLUMN claimed_at {time_type} NOT NULL DEFAULT 0",
        "ALTER TABLE strikes ADD COLUMN claimed_url TEXT NOT NULL DEFAULT ''",
        "CREATE INDEX IF NOT EXISTS strikes_status ON strikes (status, created_at)",
    ]


def _approvals(id_column: str, time_type: str) -> list[str]:
    """Writes waiting for a person (rules/approvals.py): at most one pending per target."""
    return [
        f"""
CREATE TABLE IF NOT EXISTS approvals (
    id            {id_column},
    principal     TEXT NOT NULL DEFAULT '',
    platform      TEXT NOT NULL,
    target        TEXT NOT NULL,
    target_url    TEXT NOT NULL DEFAULT '',
    author        TEXT NOT NULL DEFAULT '',
    opportunity   TEXT NOT NULL DEFAULT '',
    action        TEXT NOT NULL,
    intent_key    TEXT NOT NULL,
    lock_key      TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    text          TEXT NOT NULL,          -- exactly what will be sent, footer included
    body          TEXT NOT NULL,          -- the model's text, before the footer
    digest        TEXT NOT NULL,          -- SHA-256 of [title, text]; since `outgoing` (step 16), of it
    post          TEXT NOT NULL,          -- the drafted post (JSON), to run the chain again
    context       TEXT NOT NULL DEFAULT '{{}}',
    policy        TEXT NOT NULL DEFAULT '[]',
    status        TEXT NOT NULL,          -- a rules.approvals.ApprovalStatus
    created_at    {time_type} NOT NULL,
    expires_at    {time_type} NOT NULL,
    decided_at    {time_type},
    decided_by    TEXT NOT NULL DEFAULT '',
    channel       TEXT NOT NULL DEFAULT '',
    reason        TEXT NOT NULL DEFAULT '',
    edited        INTEGER NOT NULL DEFAULT 0,
    record        BIGINT,
    token_hash    TEXT NOT NULL DEFAULT ''
)""",
        "CREATE UNIQUE INDEX IF NOT EXISTS approvals_one_pending ON approvals (lock_key) "
        "WHERE status = 'pending'",
        "CREATE INDEX IF NOT EXISTS approvals_status ON approvals (status, principal)",
    ]


def _handles(time_type: str) -> list[str]:
    """Scouted opportunities by the handle the model holds (scout/handles.py): what draft
    and strike find again in any process, after a restart too, until they expire."""
    return [
        f"""
CREATE TABLE IF NOT EXISTS handles (
    handle_hash  TEXT PRIMARY KEY,        -- SHA-256 of the handle: the row is no bearer key
    principal    TEXT NOT NULL DEFAULT '', -- whose it is ('' without sign-in)
    client       TEXT NOT NULL DEFAULT '', -- an optional client key's digest, to group work
    platform     TEXT NOT NULL,
    opportunity  TEXT NOT NULL,           -- the post's stable id (the record's opportunity)
    scouted      TEXT NOT NULL,           -- the opportunity (JSON)
    drafted      TEXT,                    -- draft's context (JSON), once drafted
    created_at   {time_type} NOT NULL,
    expires_at   {time_type} NOT NULL
)""",
        "CREATE INDEX IF NOT EXISTS handles_principal ON handles (principal, expires_at)",
        "CREATE INDEX IF NOT EXISTS handles_expiry ON handles (expires_at)",
    ]


#: the claim's checks stay index lookups however long the record grows (bench/record/claims.py:
#: without these, 1,000,000 strikes made each claim scan the platform's rows three times):
#: the author cool-down, today's count for the cap, the last write for the minimum interval
_CLAIM_CHECKS = [
    "CREATE INDEX IF NOT EXISTS strikes_author ON strikes (platform, author, created_at)",
    "CREATE INDEX IF NOT EXISTS strikes_since ON strikes (platform, action, created_at)",
    "CREATE INDEX IF NOT EXISTS strikes_latest ON strikes (platform, created_at)",
]
#: what each priced platform call cost (usage/ledger.py: the daily budget's reservations);
#: PostgreSQL only, as step 4: SQLite's ledger is a table of usage.db
_SPEND = [
    """
CREATE TABLE IF NOT EXISTS usage_spend (
    id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    at         DOUBLE PRECISION NOT NULL,
    platform   TEXT NOT NULL,
    tool       TEXT NOT NULL,
    principal  TEXT NOT NULL DEFAULT '',
    micros     BIGINT NOT NULL,
    settled    INTEGER NOT NULL DEFAULT 0
)""",
    "CREATE INDEX IF NOT EXISTS usage_spend_day ON usage_spend (platform, at)",
]

#: the one exact write (rules/outgoing.py) an approval sends, as its canonical JSON: what
#: its digest covers, tags included. Rows from before keep '' and a digest of [title, text]
_OUTGOING = ["ALTER TABLE approvals ADD COLUMN outgoing TEXT NOT NULL DEFAULT ''"]


def _settling(time_type: str) -> list[str]:
    """Who reads an unsure write back now (strike/settle.py): a lease taken by
    compare-and-set before the read-back, so two replicas never both read back and settle
    one write; it expires by itself, so a replica that died mid read-back frees it. And the
    strike's trace context, which the settlement's span links to."""
    return [
        f"ALTER TABLE strikes ADD COLUMN settling_until {time_type} NOT NULL DEFAULT 0",
        "ALTER TABLE strikes ADD COLUMN settling_by TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE strikes ADD COLUMN trace_id TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE strikes ADD COLUMN span_id TEXT NOT NULL DEFAULT ''",
    ]


SQLITE: list[list[str]] = [
    _first("INTEGER PRIMARY KEY AUTOINCREMENT", "REAL"),
    _PRINCIPAL,
    _CURSORS,
    [],  # step 4 (usage_calls) is PostgreSQL's: SQLite's usage figures stay in usage.db
    _HANDOFFS,
    _READBACKS,
    [],  # step 7 (usage_calls.principal) is PostgreSQL's, as step 4
    _CONFIRMED_BY,
    _needs_person("instr"),
    _approvals("INTEGER PRIMARY KEY AUTOINCREMENT", "REAL"),
    _handles("REAL"),
    _CLAIM_CHECKS,
    [],  # step 13 (usage_spend) is PostgreSQL's, as step 4: SQLite's ledger is in usage.db
    _handoff_claims("REAL"),
    _settling("REAL"),
    _OUTGOING,
    notices_table("REAL"),
]
POSTGRES: list[list[str]] = [
    # DOUBLE PRECISION: PostgreSQL's REAL is 4 bytes, too coarse for epoch seconds
    _first("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", "DOUBLE PRECISION"),
    _PRINCIPAL,
    _CURSORS,
    _USAGE,
    _HANDOFFS,
    _READBACKS,
    _USAGE_PRINCIPAL,
    _CONFIRMED_BY,
    _needs_person("strpos"),
    _approvals("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", "DOUBLE PRECISION"),
    _handles("DOUBLE PRECISION"),
    _CLAIM_CHECKS,
    _SPEND,
    _handoff_claims("DOUBLE PRECISION"),
    _settling("DOUBLE PRECISION"),
    _OUTGOING,
    notices_table("DOUBLE PRECISION"),
]
LATEST = len(SQLITE)
