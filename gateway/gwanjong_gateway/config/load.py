"""Finding gateway.toml and loading it with the environment it names: --config, else
GWANJONG_CONFIG, else ./gateway.toml, else the user config dir. `${VAR}` in a platform's
`env` table is expanded from the environment and `<state_dir>/.env` (what `setup save`
wrote); an unset one is a ConfigError naming its line, `${VAR:-default}` gives a fallback.
The schema and its checks are `config.py`'s."""

from __future__ import annotations

import os
import re
from pathlib import Path

from gwanjong_gateway.config import ConfigError, GatewayConfig, PlatformConfig, line_of, parse

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand(value: str, environ: dict[str, str]) -> str:
    """`${VAR}` from the environment, `${VAR:-default}` when it may be unset. An unset
    `${VAR}` is a ConfigError: silently sending "" hides a typo or a missing secret."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise ConfigError(f"${{{name}}} is not set; set it, or write ${{{name}:-default}}")

    return _VAR.sub(one, value)


def check_vars(config: GatewayConfig, text: str, source: str, environ: dict[str, str]) -> None:
    """Every `${VAR}` of every enabled platform's env table and of `[notify] urls`, at load
    time, with its line (an unset one would leave the notifier unstarted, untold)."""
    problems: list[str] = []
    values = [
        (("platforms", name, "env", key), value)
        for name, platform in config.enabled().items()
        for key, value in platform.env.items()
    ] + [(("notify", "urls"), url) for url in config.notify.urls]
    for loc, value in values:
        try:
            if "://" not in expand(value, environ) and loc[0] == "notify":  # never its value
                raise ConfigError(f"{value[:60]} holds no Apprise URL (scheme://…)")
        except ConfigError as exc:
            line = _var_line(text, value) or line_of(text, loc)
            at = f"{source}:{line}" if line else source
            problems.append(f"{at}: {'.'.join(loc)}: {exc}")
    if problems:
        raise ConfigError("\n".join(problems))


def _var_line(text: str, value: str) -> int | None:
    match = _VAR.search(value)
    if match is None:
        return None
    for i, line in enumerate(text.splitlines()):
        if match.group(0) in line:
            return i + 1
    return None


def read_dotenv(path: Path) -> dict[str, str]:
    """What `setup save` wrote, parsed by python-dotenv (the library that writes it).

    Values holding a control character or a line/paragraph separator are dropped: they
    can only come from a hand edit, and some readers would split them into variables."""
    from dotenv import dotenv_values

    from gwanjong_shared.contract.untrusted import has_hidden

    if not path.is_file():
        return {}
    values: dict[str, str] = {}
    for key, value in dotenv_values(path, interpolate=False, encoding="utf-8").items():
        if value is None or has_hidden(key + value) or "\t" in value or "\n" in value:
            continue
        values[key] = value
    return values


def locate(explicit: str | None = None, environ: dict[str, str] | None = None) -> Path | None:
    """--config PATH, else GWANJONG_CONFIG, else ./gateway.toml, else the user config dir
    (`~/.config/gwanjong/gateway.toml` if it is there, else the OS convention's)."""
    env = os.environ if environ is None else environ
    for given, named in ((explicit, "--config "), (env.get("GWANJONG_CONFIG"), "GWANJONG_CONFIG=")):
        if given:
            path = Path(given).expanduser()
            if not path.exists():
                raise ConfigError(f"{named}{given}: no such file")
            return path
    local = Path("gateway.toml")
    if local.exists():
        return local
    from gwanjong_gateway.paths import user_config_file

    user = user_config_file(env)
    return user if user.exists() else None


def load(
    explicit: str | None = None, environ: dict[str, str] | None = None, check_env: bool = True
) -> tuple[GatewayConfig, Path | None]:
    path = locate(explicit)
    if path is None:  # no file anywhere: every installed (bundled) platform, dry-run
        from gwanjong_gateway.bundled import installed  # reads package metadata: only here

        return GatewayConfig(platforms={name: PlatformConfig() for name in installed()}), None
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:  # a directory, no permission, not UTF-8
        why = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise ConfigError(f"{path}: cannot be read ({why}); give a UTF-8 gateway.toml") from None
    config = parse(text, str(path))
    if not check_env:
        return config, path
    env = dict(os.environ if environ is None else environ)
    check_vars(config, text, str(path), {**read_dotenv(config.state_dir / ".env"), **env})
    return config, path
