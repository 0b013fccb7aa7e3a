"""The console in team mode (`[auth] mode = "tokens"`): a bearer token typed on the
sign-in page becomes a session; each person sees and decides their own approvals and
reads their own history, `[review] approvers` decide anyone's, `[auth] auditors` read
everyone's history. Fast tier: the fake forum, plain HTTP against the app in-process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gwanjong_gateway.gateway import Gateway
from gwanjong_gateway.rules.approvals import ApprovalStatus
from gwanjong_gateway.team.access_tokens import store_for
from tests.fakes.platform import FakePlatform
from tests.gateway.console.helpers import ORIGIN, Served, approval, csrf_of, post, serving, strike
from tests.gateway.helpers import gateway_of

pytestmark = pytest.mark.anyio
TEAM = {
    "auth": {"mode": "tokens", "auditors": ["audrey"]},
    "review": {"approvers": ["carol"]},
}


def team_gateway(tmp_path: Path, forum: FakePlatform) -> tuple[Gateway, Any, dict[str, str]]:
    state = tmp_path / "state"
    tokens = {name: store_for(state).add(name) for name in ("alice", "carol", "audrey")}
    # The model's side over the in-memory transport: no sign-in, so the approval's
    # principal is "" (nobody on the team): only approvers may see it.
    return *gateway_of(state, forum, writes="confirm", tables=TEAM), tokens


async def sign_in_as(s: Served, token: str) -> str:
    s.http.cookies.clear()
    answer = await s.http.post("/signin", data={"token": token}, headers=ORIGIN)
    assert answer.status_code == 303, answer.text
    return csrf_of((await s.http.get("/approvals")).text)


async def test_a_token_signs_in_and_each_person_sees_their_own_approvals_approvers_all(
    forum: FakePlatform, tmp_path: Path
) -> None:
    gw, mcp, tokens = team_gateway(tmp_path, forum)
    async with serving(gw, mcp) as s:
        form = await s.http.get("/signin")
        assert form.status_code == 200 and 'name="token"' in form.text
        wrong = await s.http.post("/signin", data={"token": "gwj_nope"}, headers=ORIGIN)
        assert wrong.status_code == 403 and "set-cookie" not in wrong.headers
        assert (await s.http.get("/approvals")).status_code == 401
        answer = await strike(
            s.client, "devto", "Rust async", "post", "Guards.", "rust async cancellation"
        )
        approval_id = int(answer["approval"]["id"])
        csrf = await sign_in_as(s, tokens["alice"])
        page = await s.http.get("/approvals")
        assert page.status_code == 200 and "alice" in page.text
        assert f"/approvals/a{approval_id}" not in page.text
        assert (await s.http.get(f"/approvals/{approval_id}")).status_code == 404
        tried = await post(s, f"/approvals/{approval_id}", csrf, decision="approve")
        assert tried.status_code == 404
        assert (await approval(gw, approval_id)).status is ApprovalStatus.PENDING
        assert forum.writes == []
        csrf = await sign_in_as(s, tokens["carol"])
        assert f"/approvals/a{approval_id}" in (await s.http.get("/approvals")).text
        done = await post(s, f"/approvals/{approval_id}", csrf, decision="approve")
        assert done.status_code == 200 and "posted" in done.text
        decided = await approval(gw, approval_id)
        assert decided.decided_by == "carol" and decided.channel == "console"
        record = decided.record
        # history: alice reads none of it, the auditor reads it
        await sign_in_as(s, tokens["alice"])
        assert (await s.http.get(f"/history/{record}")).status_code == 404
        assert "No record matches." in (await s.http.get("/history")).text
        await sign_in_as(s, tokens["audrey"])
        assert (await s.http.get(f"/history/{record}")).status_code == 200
    assert len(forum.writes) == 1


async def test_a_jwt_signs_in_as_the_http_gateway_would_accept_it(
    forum: FakePlatform, tmp_path: Path
) -> None:
    from joserfc.jwk import RSAKey

    from tests.gateway.team.test_auth_jwt_http import Issuer, auth_table

    issuer = Issuer(tmp_path)
    tables = auth_table(issuer.jwks)
    async with serving(
        *gateway_of(tmp_path / "state", forum, writes="confirm", tables=tables)
    ) as s:
        stranger = RSAKey.generate_key(2048, parameters={"kid": "k1"})
        for bad in (
            issuer.token("mallory", exp=1),  # expired
            issuer.token("mallory", key=stranger),  # not the identity provider's key
            issuer.token("mallory", aud="https://elsewhere.example/"),
        ):
            refused = await s.http.post("/signin", data={"token": bad}, headers=ORIGIN)
            assert refused.status_code == 403 and "set-cookie" not in refused.headers
        await sign_in_as(s, issuer.token("dana"))
        page = await s.http.get("/approvals")
        assert page.status_code == 200 and "dana" in page.text


async def test_only_the_operator_or_an_approver_resumes_paused_writes(
    forum: FakePlatform, tmp_path: Path
) -> None:
    from gwanjong_gateway.record.store import StrikeStore

    gw, mcp, tokens = team_gateway(tmp_path, forum)
    async with serving(gw, mcp) as s:
        for _ in range(3):
            await gw.records.run(StrikeStore.record_failure, "devto", "HTTP 500", 3)
        csrf = await sign_in_as(s, tokens["alice"])
        assert "Resume devto" not in (await s.http.get("/usage")).text
        tried = await post(s, "/usage/resume", csrf, platform="devto")
        assert tried.status_code == 403 and await gw.records.run(StrikeStore.paused, "devto")
        csrf = await sign_in_as(s, tokens["carol"])  # the approver
        done = await post(s, "/usage/resume", csrf, platform="devto")
        assert done.status_code == 303
        assert await gw.records.run(StrikeStore.paused, "devto") == ""


async def test_a_revoked_token_ends_its_console_session_at_once(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """Revoking a token cuts its holder off everywhere on the next request, the console
    included: the session it was exchanged for must not outlive it (12 h by default)."""
    gw, mcp, tokens = team_gateway(tmp_path, forum)
    async with serving(gw, mcp) as s:
        await sign_in_as(s, tokens["carol"])
        assert (await s.http.get("/approvals")).status_code == 200
        assert store_for(tmp_path / "state").revoke("carol")
        assert (await s.http.get("/approvals")).status_code == 401
        assert (await s.http.get("/history")).status_code == 401


async def test_a_jwt_session_ends_when_the_jwt_expires(forum: FakePlatform, tmp_path: Path) -> None:
    """A session a JWT was exchanged for lasts no longer than the JWT would be accepted
    over MCP, never the whole `session_s` past its `exp`."""
    import time

    from tests.gateway.team.test_auth_jwt_http import Issuer, auth_table

    issuer = Issuer(tmp_path)
    now = [time.time()]
    gw, mcp = gateway_of(tmp_path / "state", forum, tables=auth_table(issuer.jwks))
    async with serving(gw, mcp, clock=lambda: now[0]) as s:
        await sign_in_as(s, issuer.token("dana", iat=int(now[0]), exp=int(now[0]) + 600))
        assert (await s.http.get("/approvals")).status_code == 200
        now[0] += 3600  # the JWT expired long ago; the session's 12 h have not passed
        assert (await s.http.get("/approvals")).status_code == 401


async def test_sign_in_attempts_do_not_each_fetch_the_identity_providers_keys(
    forum: FakePlatform, tmp_path: Path
) -> None:
    """Anyone who reaches the sign-in form may post to it: the console checks JWTs with one
    verifier, which keeps the JWKS it fetched (and refreshes it at most once a while, as the
    MCP endpoint does), never one fetch from the identity provider per attempt."""
    from joserfc.jwk import RSAKey

    from tests.gateway.team.test_auth_jwt_http import AUDIENCE, ISSUER, Issuer, serve_file

    issuer, asked = Issuer(tmp_path), list[str]()
    with serve_file(issuer.jwks, asked) as jwks_uri:
        auth = {"mode": "jwt", "issuer": ISSUER, "audience": AUDIENCE, "jwks_uri": jwks_uri}
        async with serving(*gateway_of(tmp_path / "state", forum, tables={"auth": auth})) as s:
            stranger = RSAKey.generate_key(2048, parameters={"kid": "not-the-idps"})
            for _ in range(10):
                forged = issuer.token("mallory", key=stranger)
                refused = await s.http.post("/signin", data={"token": forged}, headers=ORIGIN)
                assert refused.status_code == 403
            await sign_in_as(s, issuer.token("dana"))
            assert (await s.http.get("/approvals")).status_code == 200
    assert len(asked) <= 2, asked
