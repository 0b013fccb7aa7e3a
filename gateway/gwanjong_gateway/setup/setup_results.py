"""What setup answers, one model per action: check, guide, save (`SetupResult`)."""

from __future__ import annotations

from typing import Literal

from gwanjong_gateway.wire import Result, optional
from gwanjong_shared.contract import Allowed


class Checked(Result):
    """One platform that answered `capabilities`; ok false: its keys were refused."""

    ok: bool
    configured: bool
    credentials: str
    account: str | None
    actions: dict[str, Allowed]
    next: str | None = optional()
    writes_resumed: bool | None = optional()


class Unchecked(Result):
    """One platform that could not be asked."""

    ok: Literal[False] = False
    error: str


class Guide(Result):
    """How to get one platform's keys, in its own server's words."""

    vars: list[str]
    steps: list[str]
    where: str | None = optional()
    price: str | None = optional()
    access: str | None = optional()


class SetupCheck(Result):
    check: dict[str, Checked | Unchecked]


class SetupGuide(Result):
    guides: dict[str, Guide]
    next: str


class SetupSaved(Result):
    saved: list[str]
    file: str
    check: dict[str, Checked | Unchecked]
    warning: str | None = optional()


class SetupWaiting(Result):
    """Nothing saved (yet): the person declined, or is still typing on the page."""

    saved: list[str]
    status: Literal["declined", "pending"]
    next: str


SetupResult = SetupCheck | SetupGuide | SetupSaved | SetupWaiting
