"""`gateway.toml`'s schema (docs/operate/gateway-toml.md). An unknown key, a bad value or a
missing command is a ConfigError naming the file and line, never a traceback. Neighbours:
`config.ops` (traces, metrics, logs, prices, spend) and `config.load` (finding the file,
`${VAR}` from the environment and `<state_dir>/.env`).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
import tomllib
import unicodedata
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic.functional_validators import AfterValidator

from gwanjong_gateway.config.away import EventKind, NotifySection, WatchSection
from gwanjong_gateway.config.ops import (
    LimitSection,
    LoggingSection,
    MetricsSection,
    PriceSection,
    TelemetrySection,
)
from gwanjong_shared.contract import WRITE_TOOLS
from gwanjong_shared.contract.models import Frozen
from gwanjong_shared.contract.untrusted import has_hidden

WriteMode = Literal["dry-run", "confirm", "live"]
#: where a bundled platform runs: in the gateway's interpreter, or its own subprocess
Isolation = Literal["in-process", "process"]
#: a platform name, as [platforms.NAME] may give it
PLATFORM_NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")


class ConfigError(Exception):
    """A config problem, worded for the person editing the file."""


class DailyCaps(Frozen):
    comment: int = Field(default=10, ge=0)
    post: int = Field(default=2, ge=0)
    upvote: int = Field(default=20, ge=0)


class PlatformConfig(Frozen):
    enabled: bool = True
    command: list[str] | None = None
    url: str | None = None
    #: bundled platforms only; `command`/`url` platforms always run out of process
    isolation: Isolation = "in-process"
    env: dict[str, str] = Field(default_factory=dict)
    #: appended to every automated write here ("" turns it off); None = the platform default
    disclosure: str | None = None
    daily: DailyCaps = Field(default_factory=DailyCaps)
    min_interval_s: float = Field(default=60.0, ge=0)

    @model_validator(mode="after")
    def _one_way_to_start(self) -> PlatformConfig:
        if self.command is not None and self.url is not None:
            raise ValueError("give either command or url, not both")
        if self.command is not None and not self.command:
            raise ValueError("command is empty; give the program and its arguments")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError("url must start with http:// or https://")
        return self


class SafetyConfig(Frozen):
    author_cooldown_days: float = Field(default=7, ge=0)
    opt_out: list[str] = Field(default_factory=list)
    pause_after_failures: int = Field(default=3, ge=1)
    #: how long an unsure write is read back before its absence counts as proof
    settle_window_s: float = Field(default=120, ge=0)


class GatewaySection(Frozen):
    writes: WriteMode = "dry-run"
    #: "" = `~/.gwanjong` if it exists, else the OS user data dir (`paths`)
    state_dir: str = ""
    call_timeout_s: Annotated[float, Field(gt=0, le=600)] = 20.0
    start_timeout_s: Annotated[float, Field(gt=0, le=600)] = 30.0
    expose: list[str] = Field(default_factory=list)
    #: "" = stderr only; else also a rotating log file (relative paths: in state_dir)
    log_file: str = ""
    #: let setup(save) store credentials the model passes in (off: the human types them)
    model_may_save_credentials: bool = False
    #: how long scout's handles stay usable by draft and strike (seconds; default a day)
    handle_ttl_s: Annotated[float, Field(gt=0, le=30 * 86400)] = 86400.0
    #: scout answers with what arrived by then and names the slower platforms as still
    #: coming (under the 5 s many agent frameworks give a tool call)
    answer_within_s: Annotated[float, Field(gt=0, le=600)] = 4.0

    @field_validator("expose")
    @classmethod
    def _namespaced(cls, names: list[str]) -> list[str]:
        for name in names:
            if "__" not in name:
                raise ValueError(
                    f"{name!r} is not a namespaced tool name like '<platform>__get_post'"
                )
            if name.partition("__")[2] in WRITE_TOOLS:
                # A forwarded call skips the strike chain: no approval, record, caps, footer.
                raise ValueError(
                    f"{name!r} writes to the platform, and an exposed tool is called without "
                    "approval, record or caps; drop it from expose: the model writes through "
                    "strike (docs/operate/gateway-toml.md, 'Exposed tools only read')"
                )
        return names


def _one_form(names: list[str]) -> list[str]:
    for name in names:
        if not name.strip() or name != name.strip():
            raise ValueError(f"{name!r}: give the name without surrounding spaces")
        if len(name) > 200 or any(ord(c) < 32 or ord(c) == 127 for c in name):
            raise ValueError(f"{name[:40]!r}: at most 200 characters, no control characters")
        if has_hidden(name) or unicodedata.normalize("NFKC", name) != name:
            # a signed-in name is taken in this one form only (team/auth.principal_of)
            raise ValueError(
                f"{name[:40]!r}: write the name in its one form (NFKC, no hidden "
                "characters), as sign-in takes it; no one could match this spelling"
            )
    return list(dict.fromkeys(names))


#: signed-in names (`[auth] auditors`, `[review] approvers`), each as sign-in takes it
Principals = Annotated[list[str], Field(max_length=100), AfterValidator(_one_form)]

#: signature algorithms a JWKS public key can verify; never "none", never an HMAC
JWT_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)


class AuthSection(Frozen):
    """Who may call the HTTP gateway (stdio trusts the local user)."""

    mode: Literal["none", "tokens", "jwt"] = "none"
    issuer: str | None = None
    audience: str | None = None
    jwks_uri: str | None = None
    jwks_file: str | None = None
    algorithm: str | None = None  # shorthand for algorithms = [algorithm]
    algorithms: list[str] = Field(default_factory=lambda: ["RS256"])
    required_claims: list[str] = Field(default_factory=lambda: ["exp", "sub", "iat"])
    leeway_s: float = Field(default=30, ge=0, le=300)
    required_scopes: list[str] = Field(default_factory=list)
    #: principals (token names, JWT `sub`s) who read everyone's record; the others read
    #: only their own strikes and usage (docs/operate/team-privacy.md)
    auditors: Principals = Field(default_factory=list)
    #: JWT `sub`s refused though their tokens are good: cuts a member off at the next start
    #: without rotating the key for everyone (mode = "tokens" has `gwanjong token revoke`)
    revoked: Principals = Field(default_factory=list)

    @model_validator(mode="after")
    def _jwt_settings(self) -> AuthSection:
        if self.mode == "none" and self.auditors:
            raise ValueError(
                'auditors only apply with mode = "tokens" or "jwt" (without sign-in, the one '
                "local user reads the whole record)"
            )
        if self.mode != "jwt" and self.revoked:
            raise ValueError(
                'revoked only applies with mode = "jwt" (with mode = "tokens", run '
                "`gwanjong token revoke NAME`)"
            )
        jwt_keys = ("issuer", "audience", "jwks_uri", "jwks_file")
        if self.mode != "jwt":
            given = [k for k in jwt_keys if getattr(self, k) is not None]
            if given:
                raise ValueError(f'{", ".join(given)} only apply with mode = "jwt"')
            return self
        if not self.issuer or not self.audience:
            raise ValueError('mode = "jwt" needs issuer and audience')
        if (self.jwks_uri is None) == (self.jwks_file is None):
            raise ValueError('mode = "jwt" needs exactly one of jwks_uri or jwks_file')
        bad = [a for a in self.pinned_algorithms if a not in JWT_ALGORITHMS]
        if bad or not self.pinned_algorithms:
            raise ValueError(
                f"algorithms: {bad or '[]'} not accepted; pick from {sorted(JWT_ALGORITHMS)}"
                " (keys come from a JWKS, so never none or an HMAC HS*)"
            )
        for claim in ("exp", "sub"):
            if claim not in self.required_claims:
                raise ValueError(f"required_claims must include {claim!r}")
        return self

    @property
    def pinned_algorithms(self) -> list[str]:
        """The JWT `alg` values accepted: `algorithm` if given, else `algorithms`."""
        return [self.algorithm] if self.algorithm is not None else list(self.algorithms)


class ReviewSection(Frozen):
    """How a write that waits for a person (`writes = "confirm"`) reaches them."""

    #: how long a pending approval waits before it expires
    expire_after_s: Annotated[float, Field(ge=60, le=30 * 86400)] = 86400.0
    #: how long a hand-off waits in its person's queue (not posted, not dismissed) before
    #: it expires: it leaves the queue, kept in history as `expired`
    handoff_expire_after_s: Annotated[float, Field(ge=60, le=365 * 86400)] = 7 * 86400.0
    #: "elicitation": ask in the client's dialog where it has one; "queue": never (for a
    #: client known to decline every dialog); either way `gwanjong review` decides
    ask: Literal["elicitation", "queue"] = "elicitation"
    #: a dialog declined faster than this was declined by the client, not read by a person
    min_read_s: Annotated[float, Field(ge=0, le=60)] = 2.0
    #: principals who may decide anyone's approvals (team mode); others decide their own
    approvers: Principals = Field(default_factory=list)


class ConsoleSection(Frozen):
    """The local web console (`gwanjong console`; the gateway serves it too when enabled)."""

    #: the gateway process serves the console beside MCP (its own listener)
    enabled: bool = False
    #: where it listens; a non-loopback host needs [auth] (as for the MCP endpoint)
    host: str = "127.0.0.1"
    #: 0 = a random free port
    port: Annotated[int, Field(ge=0, le=65535)] = 0
    #: how long a signed-in session lasts
    session_s: Annotated[float, Field(ge=60, le=30 * 86400)] = 12 * 3600.0
    #: the address people open when a TLS-terminating proxy serves it, e.g.
    #: "https://gwanjong.example.com" (its origin is accepted, links use it, an https
    #: one makes the cookie Secure); "" = only its own http address
    public_url: str = ""

    @field_validator("public_url")
    @classmethod
    def _origin_only(cls, url: str) -> str:
        if not url:
            return url
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018  (a bad port raises here)
        except ValueError:
            parts = None
        if (
            parts is None
            or parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.path not in ("", "/")
            or parts.query
            or parts.fragment
            or "@" in parts.netloc  # a user or a password: never part of an origin
        ):
            shown = url.split("@")[-1] if parts and "@" in parts.netloc else url  # no password
            raise ValueError(
                f"{shown[:80]!r} is not an origin: give the scheme and host the proxy serves "
                'it at, e.g. "https://gwanjong.example.com" (no path: the console is served '
                "at the root of its own host name)"
            )
        return url.rstrip("/").lower()

    @model_validator(mode="after")
    def _an_address_to_open(self) -> ConsoleSection:
        # every address, but none a link can name: http://0.0.0.0:port opens from nowhere
        if self.host in ("0.0.0.0", "::", "[::]") and not self.public_url:
            raise ValueError(
                f"host {self.host!r} names no address for the sign-in and notification links: "
                'set public_url to the address people open, e.g. "http://192.168.1.5:8790", '
                "or host to that address"
            )
        return self


class StoreSection(Frozen):
    """Where the strike record lives: "" = the SQLite file in state_dir; a PostgreSQL URL
    shares one record between gateway processes (`${VAR}` is expanded when it opens)."""

    url: str = ""
    #: the longest any one record call may take before it answers `unavailable`
    call_deadline_s: Annotated[float, Field(gt=0, le=600)] = 8.0
    #: PostgreSQL: connecting, one statement, waiting for another process's lock
    connect_timeout_s: Annotated[int, Field(ge=1, le=600)] = 3
    statement_timeout_s: Annotated[float, Field(gt=0, le=600)] = 5.0
    lock_timeout_s: Annotated[float, Field(gt=0, le=600)] = 2.0
    #: PostgreSQL connections (and threads) record calls run on at once; SQLite uses one
    pool_size: Annotated[int, Field(ge=1, le=64)] = 8

    @field_validator("url")
    @classmethod
    def _postgres(cls, url: str) -> str:
        if url and not url.startswith(("postgresql://", "postgres://")):
            raise ValueError('url must be "" (SQLite in state_dir) or start with postgresql://')
        return url


class GatewayConfig(Frozen):
    gateway: GatewaySection = Field(default_factory=GatewaySection)
    safety: SafetyConfig = Field(default_factory=SafetyConfig)
    auth: AuthSection = Field(default_factory=AuthSection)
    store: StoreSection = Field(default_factory=StoreSection)
    review: ReviewSection = Field(default_factory=ReviewSection)
    console: ConsoleSection = Field(default_factory=ConsoleSection)
    notify: NotifySection = Field(default_factory=NotifySection)
    watch: WatchSection = Field(default_factory=WatchSection)
    telemetry: TelemetrySection = Field(default_factory=TelemetrySection)
    metrics: MetricsSection = Field(default_factory=MetricsSection)
    logging: LoggingSection = Field(default_factory=LoggingSection)
    platforms: dict[str, PlatformConfig] = Field(default_factory=dict)
    prices: dict[str, PriceSection] = Field(default_factory=dict)
    limits: dict[str, LimitSection] = Field(default_factory=dict)

    @field_validator("prices", "limits")
    @classmethod
    def _spend_of_known_platforms(
        cls, tables: dict[str, Any], info: ValidationInfo
    ) -> dict[str, Any]:
        platforms: dict[str, PlatformConfig] = info.data.get("platforms") or {}
        for name in tables:
            if name not in platforms:
                known = ", ".join(platforms) or "none"
                raise ValueError(
                    f"{info.field_name}.{name}: no such platform in [platforms] (known: "
                    f"{known}); check the spelling"
                )
        return tables

    @model_validator(mode="after")
    def _approvers_sign_in(self) -> GatewayConfig:
        if self.review.approvers and self.auth.mode == "none":
            raise ValueError(
                '[review] approvers only apply with [auth] mode = "tokens" or "jwt" (without '
                "sign-in, the one local user decides every approval)"
            )
        return self

    @field_validator("platforms")
    @classmethod
    def _names(cls, platforms: dict[str, PlatformConfig]) -> dict[str, PlatformConfig]:
        # bundled: declared by an installed package (a `gwanjong.platforms` entry point);
        # it reads package metadata, so only when a config is checked
        from gwanjong_gateway.bundled import entry_point

        for name, platform in platforms.items():
            if not PLATFORM_NAME.match(name):
                raise ValueError(f"platform name {name!r} must be lowercase letters, digits or _")
            if platform.command is None and platform.url is None and entry_point(name) is None:
                raise ValueError(
                    f'platform {name!r} is not bundled: give it command = [...] or url = "..."'
                )
        return platforms

    @property
    def state_dir(self) -> Path:
        if not self.gateway.state_dir:
            from gwanjong_gateway.paths import default_state_dir

            return default_state_dir()
        return Path(os.path.expanduser(self.gateway.state_dir))

    def enabled(self) -> dict[str, PlatformConfig]:
        return {name: p for name, p in self.platforms.items() if p.enabled}


def command_for(name: str, platform: PlatformConfig) -> list[str]:
    """The platform's own command, else its bundled server run by this same Python."""
    command = list(platform.command or [sys.executable, "-m", f"gwanjong_{name}"])
    if not platform.command and importlib.util.find_spec(f"gwanjong_{name}") is None:
        raise ConfigError(
            f"platforms.{name}: its bundled server (package gwanjong-{name}) is not installed "
            "here; reinstall gwanjong with its dependencies, or give command = [...]"
        )
    if platform.command and shutil.which(command[0]) is None and not Path(command[0]).exists():
        raise ConfigError(f"platforms.{name}.command: program {command[0]!r} was not found on PATH")
    return command


def line_of(text: str, loc: tuple[Any, ...]) -> int | None:
    """Best effort: the line where the offending key (or its table) is written."""
    keys = [str(part) for part in loc if not isinstance(part, int)]
    lines = text.splitlines()
    table_line = 0
    for depth in range(len(keys), 0, -1):
        # A table's own header, else the first of its sub-tables ([platforms.x] for platforms).
        header = re.compile(
            r"^\s*\[+\s*" + r"\s*\.\s*".join(map(re.escape, keys[:depth])) + r"\s*(?:\]|\.)"
        )
        for i, line in enumerate(lines):
            if header.match(line):
                table_line = i
                break
        if table_line:
            break
    for start in (r"^\s*", r"\b") if keys else ():  # the key's own line, else inline
        key = re.compile(start + re.escape(keys[-1]) + r"\s*=")
        for i in range(table_line, len(lines)):
            if key.search(lines[i]):
                return i + 1
    return table_line + 1 if table_line else None


def parse(text: str, source: str = "gateway.toml") -> GatewayConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # "C:\Users\me" in double quotes: TOML reads \U as an escape
        hint = "; a Windows path goes in single quotes ('C:\\Users\\me')" if "\\" in text else ""
        raise ConfigError(f"{source}: not valid TOML: {exc}{hint}") from None
    try:
        config = GatewayConfig.model_validate(data)
    except ValidationError as exc:
        problems: list[str] = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            where = ".".join(str(p) for p in loc)
            named = re.search(r"platform (?:name )?'([^']+)'", str(err["msg"]))
            if loc == ("platforms",) and named:  # a table-level check names its table
                loc = ("platforms", named.group(1))
            line = line_of(text, loc)
            at = f"{source}:{line}" if line else source
            msg = (
                "unknown key (check the spelling)"
                if err["type"] == "extra_forbidden"
                else str(err["msg"]).removeprefix("Value error, ")  # our own wording
            )
            problems.append(f"{at}: {where}: {msg}")
        raise ConfigError("\n".join(problems)) from None
    # Checked here, once every table is read ([watch] comes before [platforms]): a name
    # that is no platform would be watched by nobody, silently.
    unknown = [name for name in config.watch.platforms if name not in config.platforms]
    if unknown:
        line = line_of(text, ("watch", "platforms"))
        raise ConfigError(
            f"{f'{source}:{line}' if line else source}: watch.platforms: {unknown[0][:40]!r} is no platform in "
            f"[platforms] (known: {', '.join(config.platforms) or 'none'}); check the spelling"
        )
    # a wait no longer than a period could begin and end between two messages, untold
    told, every_s = set(config.notify.events or EventKind), config.notify.every_s
    for key, kind in (("expire_after_s", "approval"), ("handoff_expire_after_s", "handoff")):
        wait = getattr(config.review, key)
        if config.notify.urls and every_s >= wait and any(k.startswith(kind) for k in told):
            line = line_of(text, ("notify", "every_s"))
            raise ConfigError(
                f"{f'{source}:{line}' if line else source}: notify.every_s: {every_s:g} s is not "
                f"shorter than [review] {key} ({wait:g} s): what waits could expire between "
                f"two messages, untold; lower every_s or raise {key}"
            )
    return config
