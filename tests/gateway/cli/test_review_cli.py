"""`gwanjong review`: a person decides at the terminal what a confirm-mode gateway holds.

The model's client declares no elicitation, so every write waits as a pending approval;
`review` runs in-process against the same record with the same fake platforms (injected
transports, clock and terminal). One stdio-tier test runs the real console script under
a real pty and through a pipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gwanjong_gateway.rules.approvals import ApprovalStatus, Channel, iso
from gwanjong_gateway.rules.ledger import StrikeStatus
from tests.gateway.review_cli import LOGIN, Bench
from tests.mcp import call

pytestmark = pytest.mark.anyio
FOOTER = "\n\n^(an automated reply, fake links)"
TOPIC = "rust async"


@pytest.fixture
def bench(tmp_path: Path) -> Bench:
    return Bench(tmp_path)


async def pending_comments(client: Client[Any], n: int, prefix: str = "Reply") -> list[int]:
    """``n`` comments on ``n`` different reddit posts: each waits for a person."""
    scouted = await call(client, "scout", topic=TOPIC, limit=10)
    ids: list[int] = []
    targets = [o["id"] for o in scouted["opportunities"] if o["platform"] == "reddit"][:n]
    assert len(targets) == n
    for i, oid in enumerate(targets):
        await client.call_tool("draft", {"opportunity_id": oid})
        content = f"{prefix} number {i}."
        answer = await call(client, "strike", opportunity_id=oid, action="comment", content=content)
        assert answer["status"] == "pending_approval", answer
        ids.append(int(answer["approval"]["id"]))
    return ids


async def devto_comment(client: Client[Any]) -> dict[str, Any]:
    """A drafted Dev.to opportunity's comment (the forum hands comments off): its args."""
    scouted = await call(client, "scout", topic=TOPIC, platforms=["devto"], limit=5)
    oid = scouted["opportunities"][0]["id"]
    await client.call_tool("draft", {"opportunity_id": oid})
    return {"opportunity_id": oid, "action": "comment", "content": "By hand, please."}


async def one_pending(bench: Bench) -> int:
    """One Reddit comment waiting for a person: its approval's id."""
    async with bench.client() as client:
        [approval_id] = await pending_comments(client, 1)
    return approval_id


def bodies(bench: Bench) -> list[str]:
    return [str(w.data["body"]) for w in bench.links.written("write_comment")]


async def test_four_pending_approved_one_by_one_from_the_terminal(
    tmp_path: Path, store_url: str
) -> None:
    bench = Bench(tmp_path, store_url=store_url)  # on each record engine
    async with bench.client() as client:
        ids = await pending_comments(client, 4)
        status = (await client.call_tool("status", {})).structured_content
    assert len(set(ids)) == 4 and bench.links.writes == [] and bench.rows() == []
    # the record is where `[store]` says: no SQLite file beside a PostgreSQL one
    assert (bench.tmp / "gwanjong.db").exists() == (not bench.store_url)
    assert status is not None
    assert [a["id"] for a in status["approvals"]] == ids  # the model sees them
    assert {a["platform"] for a in status["approvals"]} == {"reddit"} and status["decisions"] == []
    listed = await bench.review("list", "--json")
    assert listed.code == 0, listed
    rows = json.loads(listed.out)
    assert [(r["kind"], r["id"], r["status"]) for r in rows] == [
        ("approval", i, "pending") for i in ids
    ]
    assert all(r["platform"] == "reddit" and r["action"] == "comment" for r in rows)
    assert rows[0]["excerpt"] == "Reply number 0."
    for n, approval_id in enumerate(ids):
        ran = await bench.review("approve", str(approval_id), typed="approve\n")
        assert ran.code == 0, ran
        assert "Posted: https://" in ran.out
        assert f"Reply number {n}." in ran.out  # the text was shown before the question
        assert len(bench.links.writes) == n + 1
    assert bodies(bench) == [f"Reply number {i}.{FOOTER}" for i in range(4)]
    again = await bench.review("approve", str(ids[0]), typed="approve\n")  # writes nothing
    assert again.code == 1 and again.out == ""
    assert f"Approval {ids[0]} was already approved by {LOGIN}" in again.err
    assert len(again.err.strip().splitlines()) == 1 and len(bench.links.writes) == 4
    rows = {r.id: r for r in bench.rows()}
    for approval_id in ids:
        a = bench.approval(approval_id)
        assert a.status is ApprovalStatus.APPROVED
        assert (a.channel, a.decided_by, a.edited) == (Channel.TERMINAL, LOGIN, False)
        assert a.record is not None and rows[a.record].status is StrikeStatus.POSTED
        assert rows[a.record].content == a.text  # exactly the approved text was sent
    assert json.loads((await bench.review("list", "--json")).out) == []
    decided = json.loads((await bench.review("list", "--json", "--all")).out)
    assert [r["id"] for r in decided] == list(reversed(ids))  # newest first
    assert {r["channel"] for r in decided} == {"terminal"}
    async with bench.client() as client:
        after = (await client.call_tool("status", {})).structured_content
    assert after is not None and after["approvals"] == []
    assert sorted(d["id"] for d in after["decisions"]) == sorted(ids[-5:])
    assert {(d["status"], d["channel"]) for d in after["decisions"]} == {("approved", "terminal")}


async def test_two_approvers_at_once_write_once(tmp_path: Path, store_url: str) -> None:
    """Two terminals approve one approval together: one write, one refusal."""
    bench = Bench(tmp_path, store_url=store_url)  # on each record engine
    approval_id = await one_pending(bench)
    runs: list[Any] = []

    async def approve() -> None:
        runs.append(await bench.review("approve", str(approval_id), typed="approve\n"))

    async with anyio.create_task_group() as tg:
        tg.start_soon(approve)
        tg.start_soon(approve)
    assert sorted(r.code for r in runs) == [0, 1], runs
    [lost] = [r for r in runs if r.code == 1]
    assert lost.err.startswith("gwanjong review: ") and len(lost.err.strip().splitlines()) == 1
    assert len(bench.links.writes) == 1
    assert bench.approval(approval_id).status is ApprovalStatus.APPROVED


async def test_decline_writes_nothing_and_records_a_declined_row(
    tmp_path: Path, store_url: str
) -> None:
    bench = Bench(tmp_path, store_url=store_url)  # on each record engine
    approval_id = await one_pending(bench)
    ran = await bench.review("decline", f"a{approval_id}", "--reason", "not our tone", tty=False)
    assert ran.code == 0, ran
    assert f"Declined: nothing was sent (approval a{approval_id}" in ran.out
    a = bench.approval(approval_id)
    assert (a.status, a.channel, a.decided_by) == (ApprovalStatus.DECLINED, "terminal", LOGIN)
    [row] = bench.rows()
    assert row.status is StrikeStatus.DECLINED and "not our tone" in row.reason
    assert a.record == row.id
    late = await bench.review("approve", str(approval_id), typed="approve\n")
    assert late.code == 1 and "already declined" in late.err
    assert (await bench.review("decline", str(approval_id))).code == 1  # by the bare number
    assert bench.links.writes == []


async def test_a_refused_approve_sends_nothing_then_an_edit_is_sent_as_edited(
    tmp_path: Path,
) -> None:
    bench = Bench(tmp_path)
    approval_id = await one_pending(bench)
    a = str(approval_id)
    edit = tmp_path / "edit.txt"
    edit.write_text("No disclosure at all.", encoding="utf-8")
    ran = await bench.review("approve", a, "--text-file", str(edit), typed="approve\n")
    assert ran.code == 1 and "Keep the disclosure footer" in ran.err
    assert "Type approve" not in ran.out  # refused before the person is asked
    for tty, out_tty, which in [(False, True, "stdin"), (True, False, "stdout")]:
        ran = await bench.review("approve", a, typed="approve\n", tty=tty, out_tty=out_tty)
        assert ran.code == 1
        assert ran.err.startswith("gwanjong review: needs a person at a terminal")
        assert f"{which} is not a terminal" in ran.err
    for typed in ("yes\n", "", "APPROVE please\n"):  # anything but approve
        ran = await bench.review("approve", a, typed=typed)
        assert ran.code == 1 and "Not approved. Nothing was sent" in ran.err
    assert bench.links.writes == []
    before = bench.approval(approval_id)
    assert before.status is ApprovalStatus.PENDING
    # then an edit that keeps the footer is sent, and recorded as edited
    edited = f"A better reply, rewritten by a person.{FOOTER}"
    edit.write_text(edited + "\n", encoding="utf-8")
    ran = await bench.review("approve", a, "--text-file", str(edit), typed="approve\n")
    assert ran.code == 0, ran
    want = before.write.edited(text=edited).digest()  # the edited write's own digest
    assert "Your edit will be sent instead" in ran.out and want in ran.out
    assert bodies(bench) == [edited]
    after = bench.approval(approval_id)
    assert after.edited and after.text == edited and after.digest == want != before.digest
    [row] = bench.rows()
    assert row.content == edited
    assert any("edited by them" in str(line) for line in row.policy), row.policy


async def test_an_approval_that_expires_while_the_person_reads_is_said_expired(
    bench: Bench,
) -> None:
    approval_id = await one_pending(bench)
    ends = bench.approval(approval_id).expires_at

    def expire() -> None:  # the person reads past the approval's time, then types "no"
        bench.clock.advance(ends - bench.clock.time() + 1)

    ran = await bench.review("approve", str(approval_id), typed="no\n", reading=expire)
    assert ran.code == 1 and f"Approval a{approval_id} expired" in ran.err, ran
    assert "still waits" not in ran.err and bench.links.writes == []


async def test_done_closes_exactly_the_named_handoff(tmp_path: Path, store_url: str) -> None:
    bench = Bench(tmp_path, store_url=store_url)  # on each record engine
    async with bench.client() as client:
        args = await devto_comment(client)
        comment = await call(client, "strike", **args)
        upvote = await call(client, "strike", **{**args, "action": "upvote", "content": ""})
    assert comment["status"] == upvote["status"] == "handoff"
    listed = json.loads((await bench.review("list", "--json")).out)
    assert [(r["kind"], r["id"]) for r in listed] == [
        ("handoff", comment["record"]),
        ("handoff", upvote["record"]),
    ]
    assert listed[0]["excerpt"] == "By hand, please."
    assert [r["ref"] for r in listed] == [f"h{comment['record']}", f"h{upvote['record']}"]
    table = (await bench.review("list")).out
    assert "hand-off" in table and "review done hID --url URL" in table
    assert f"   h{comment['record']}  hand-off" in table
    h = f"h{comment['record']}"
    full = await bench.review("show", h)
    assert full.code == 0, full
    assert "  | By hand, please." in full.out and "Drafted with an AI assistant" in full.out
    assert f"gwanjong review done {h} --url" in full.out
    assert f"gwanjong review dismiss {h}" in full.out
    bad = await bench.review("done", f"h{upvote['record']}", "--url", "javascript:alert(1)")
    assert bad.code == 1 and "http(s) link" in bad.err
    url = "https://dev.to/gwanjong_bot/comment/42"
    ran = await bench.review("done", h, "--url", url, tty=False)
    assert ran.code == 0 and url in ran.out and f"Hand-off {h}" in ran.out, ran
    rows = {r.id: r for r in bench.rows()}
    closed, untouched = rows[comment["record"]], rows[upvote["record"]]
    assert closed.status is StrikeStatus.POSTED and closed.result_url == url
    assert closed.confirmed_by == LOGIN and closed.approver == "human"
    assert "posted by a person, closed from the terminal" in str(closed.policy[-1])
    assert untouched.status is StrikeStatus.HANDOFF
    again = await bench.review("done", h, "--url", url)
    assert again.code == 1 and "already recorded" in again.err
    gone = await bench.review("show", "--handoff", str(comment["record"]))
    assert gone.code == 1 and "is posted, not waiting for a person" in gone.err
    missing = await bench.review("done", "h9999", "--url", url)
    assert missing.code == 1 and "no hand-off h9999" in missing.err
    assert [r["id"] for r in json.loads((await bench.review("list", "--json")).out)] == [
        upvote["record"]
    ]
    # the person will not post the upvote: dismissed, it leaves the queue, kept in history
    dropped = await bench.review("dismiss", f"h{upvote['record']}")
    assert dropped.code == 0 and "dismissed" in dropped.out, dropped
    assert json.loads((await bench.review("list", "--json")).out) == []
    kept = {r.id: r for r in bench.rows()}[upvote["record"]]
    assert kept.status is StrikeStatus.DISMISSED and kept.confirmed_by == LOGIN
    assert bench.forum.writes == []


async def handoff_and_approval(bench: Bench) -> int:
    """Hand-off 1 (a Dev.to comment) and approval 1 (a Reddit comment), both waiting."""
    async with bench.client() as client:
        args = await devto_comment(client)
        handed = await call(client, "strike", **args)
        [approval_id] = await pending_comments(client, 1)
    assert handed["status"] == "handoff", handed
    assert handed["record"] == approval_id == 1  # two kinds, one number
    assert "hand-off h1" in handed["next"]
    return approval_id


async def test_a_bare_number_that_could_be_either_is_refused(bench: Bench) -> None:
    await handoff_and_approval(bench)
    for command in (["decline"], ["show"], ["dismiss"], ["done", "--url", "https://x.test/1"]):
        ran = await bench.review(command[0], "1", *command[1:], tty=False)
        assert ran.code == 1 and "did you mean a1 or h1?" in ran.err, (command, ran)
    wrong = await bench.review("decline", "h1")
    assert wrong.code == 1 and "`review decline` takes an approval" in wrong.err
    assert "gwanjong review dismiss h1" in wrong.err
    wrong = await bench.review("dismiss", "a1")
    assert wrong.code == 1 and "takes a hand-off" in wrong.err and "decline a1" in wrong.err
    junk = await bench.review("show", "x1")
    assert junk.code == 1 and "hand-offs h<number>" in junk.err
    assert bench.approval(1).status is ApprovalStatus.PENDING
    assert {r.id: r.status for r in bench.rows()}[1] is StrikeStatus.HANDOFF
    shown = await bench.review("show", "a1")
    assert shown.code == 0 and shown.out.startswith("Approval a1: pending"), shown
    declined = await bench.review("decline", "a1", tty=False)
    assert declined.code == 0, declined
    # approval 1 is decided now: a bare 1 can only be the waiting hand-off
    assert (await bench.review("dismiss", "1")).code == 0
    assert {r.status for r in bench.rows()} >= {StrikeStatus.DISMISSED}


async def test_the_list_shows_an_unverified_claim_and_hides_an_expired_handoff(
    bench: Bench,
) -> None:
    async with bench.client() as client:
        args = await devto_comment(client)
        handed = await call(client, "strike", **args)
        claim = {**args, "action": "confirm_handoff", "content": "https://dev.to/gwanjong_bot/9"}
        said = await call(client, "strike", **claim)
    assert said["status"] == "handoff", said  # no proof: still theirs
    table = (await bench.review("list")).out
    assert "! claimed posted by the model at https://dev.to/gwanjong_bot/9, unverified" in table
    listed = json.loads((await bench.review("list", "--json")).out)
    assert listed[0]["claimed_url"] == "https://dev.to/gwanjong_bot/9" and listed[0]["claimed_at"]
    assert "claimed:  claimed posted by the model" in (await bench.review("show", "h1")).out
    bench.clock.advance(7 * 86400 + 1)  # the default: a week
    assert json.loads((await bench.review("list", "--json")).out) == []
    assert {r.id: r.status for r in bench.rows()}[handed["record"]] is StrikeStatus.EXPIRED


async def test_show_prints_hostile_text_inert(bench: Bench) -> None:
    hostile = "Rust async cancellation \x1b]0;pwned\x07\x1b[2J \u202eevil\u202c tail"
    bench.links.add_post("hostile", "Rust async cancellation, again", hostile, author="mallory")
    async with bench.client() as client:
        scouted = await call(client, "scout", topic=TOPIC, limit=12)
        oid = next(o["id"] for o in scouted["opportunities"] if "again" in o["title"])
        await client.call_tool("draft", {"opportunity_id": oid})
        content = "Fine \u200btxt.exe"
        answer = await call(client, "strike", opportunity_id=oid, action="comment", content=content)
    approval_id = answer["approval"]["id"]
    ran = await bench.review("show", str(approval_id))
    assert ran.code == 0, ran
    shown = ran.out
    assert not any(c in shown for c in "\x1b\x07\u202e\u202c")
    assert "Fine ⟦U+200B⟧txt.exe" in shown and "1 invisible character, marked" in shown
    # the post's controls are marks: its words and every character are there to read
    assert "⟦U+001B⟧]0;pwned⟦U+0007⟧⟦U+001B⟧[2J ⟦U+202E⟧evil⟦U+202C⟧ tail" in shown
    assert bench.approval(approval_id).digest in shown
    assert "mallory" in shown and "Policy decisions so far:" in shown
    # each quoted line is behind the bar: quoted text cannot pose as gwanjong's own line
    assert any(line.startswith("  | ") and "pwned" in line for line in shown.splitlines())


async def test_show_and_list_without_a_record(tmp_path: Path) -> None:
    bench = Bench(tmp_path)
    listed = await bench.review("list")
    assert listed.code == 0 and "Nothing waits for a person." in listed.out
    shown = await bench.review("show", "1")
    assert shown.code == 1 and "no approval a1" in shown.err
    shown = await bench.review("show", "h2")
    assert shown.code == 1 and "no hand-off h2 (nothing is recorded yet)" in shown.err
    assert not (tmp_path / "gwanjong.db").exists()  # reading made no record


# -- the real console script ---------------------------------------------------------------

GWANJONG = str(Path(sys.executable).with_name("gwanjong"))


@pytest.mark.stdio
@pytest.mark.skipif(sys.platform == "win32", reason="a pty is a POSIX terminal")
async def test_the_console_script_refuses_a_pipe_and_asks_at_a_pty(tmp_path: Path) -> None:
    from tests.terminal import PtyCommand

    bench = Bench(tmp_path)
    approval_id = await one_pending(bench)
    config = tmp_path / "gateway.toml"
    config.write_text(bench.toml, encoding="utf-8")
    argv = [GWANJONG, "review", "approve", str(approval_id), "--config", str(config)]
    piped = await anyio.to_thread.run_sync(
        lambda: subprocess.run(argv, input="approve\n", capture_output=True, text=True, timeout=120)
    )
    assert piped.returncode == 1 and piped.stdout == ""
    assert piped.stderr.startswith("gwanjong review: needs a person at a terminal: stdin")
    with PtyCommand(argv, env={**os.environ, "NO_COLOR": "1"}) as cmd:
        await cmd.wait_for("Type approve")
        assert "Reply number 0." in cmd.screen()
        cmd.type("no\n")
        code = await cmd.exit_code()
    assert code == 1 and "Not approved. Nothing was sent" in cmd.errors()
    assert bench.links.writes == []
    assert bench.approval(approval_id).status is ApprovalStatus.PENDING


async def test_team_mode_the_terminal_sees_and_decides_every_members(tmp_path: Path) -> None:
    from tests.gateway.team_gateway import team_gateway

    bench = Bench(tmp_path, login="operator")
    async with team_gateway(tmp_path, bench.links, writes="confirm", wall=bench.clock.time) as team:
        bench.config = team.config
        asked: dict[str, int] = {}
        async with team.client("alice") as alice, team.client("bob") as bob:
            scouted = await call(alice, "scout", topic=TOPIC, limit=10)
            by_author: dict[str, str] = {}
            for o in scouted["opportunities"]:  # two authors: no cool-down between them
                by_author.setdefault(o["url"].split("/")[-2], o["id"])
            targets = list(by_author.values())[:2]
            for user, client, oid in (("alice", alice, targets[0]), ("bob", bob, targets[1])):
                if user == "bob":  # handles are per user: bob scouts the same post himself
                    own = await call(client, "scout", topic=TOPIC, limit=10)
                    url = next(o["url"] for o in scouted["opportunities"] if o["id"] == oid)
                    oid = next(o["id"] for o in own["opportunities"] if o["url"] == url)
                await client.call_tool("draft", {"opportunity_id": oid})
                answer = await call(
                    client, "strike", opportunity_id=oid, action="comment", content=f"From {user}."
                )
                assert answer["status"] == "pending_approval", answer
                asked[user] = answer["approval"]["id"]
        listed = await bench.review("list", "--json")
        assert listed.code == 0
        assert {(r["by"], r["id"]) for r in json.loads(listed.out)} == {
            ("alice", asked["alice"]),
            ("bob", asked["bob"]),
        }
        listed = await bench.review("list", "--json", "--principal", "alice")
        assert [r["id"] for r in json.loads(listed.out)] == [asked["alice"]]
        ran = await bench.review("approve", str(asked["bob"]), typed="approve\n")
        assert ran.code == 0, ran.err
    [written] = bench.links.written("write_comment")
    assert str(written.data["body"]).startswith("From bob.")
    decided = bench.approval(asked["bob"])
    assert decided.decided_by == "operator"
    assert decided.principal == "bob" and decided.channel == "terminal"


async def test_a_blocked_approval_is_listed_and_shown_as_such_and_approve_asks_nothing(
    tmp_path: Path, store_url: str
) -> None:
    """The minimum interval blocks the second approval: `list` and `show` say why and from
    when, offer only declining, and `approve` is refused before asking, adding no row (on
    PostgreSQL the hold is read from its own claim checks, without claiming)."""
    bench = Bench(tmp_path, store_url=store_url, platform={"min_interval_s": 600})
    async with bench.client() as client:
        first, second = await pending_comments(client, 2)
    assert (await bench.review("approve", str(first), typed="approve\n")).code == 0
    sent_at = bench.clock.time()
    until = iso(sent_at + 600)
    listed = await bench.review("list")
    assert "! blocked: Too soon" in listed.out and f"(from {until})" in listed.out
    [row] = json.loads((await bench.review("list", "--json")).out)
    assert row["id"] == second and row["status"] == "pending"
    assert row["blocked"]["from"] == until and "Too soon" in row["blocked"]["why"]
    shown = await bench.review("show", str(second))
    assert shown.out.startswith(f"Approval a{second}: blocked, expires")
    assert f"it could be sent from {until}" in shown.out
    assert f"review approve {second}" not in shown.out
    assert f"gwanjong review decline a{second}" in shown.out
    before = len(bench.rows())
    for _ in range(2):
        refused = await bench.review("approve", str(second), typed="approve\n")
        assert refused.code == 1 and "Type approve" not in refused.out
        assert "Blocked: Too soon" in refused.err and until in refused.err
    assert len(bench.rows()) == before and len(bench.links.writes) == 1
    assert bench.approval(second).status is ApprovalStatus.PENDING
    bench.clock.advance(601)
    assert (await bench.review("approve", str(second), typed="approve\n")).code == 0
    assert len(bench.links.writes) == 2


async def test_decided_approvals_speak_in_the_past_tense(bench: Bench) -> None:
    async with bench.client() as client:
        approved, declined, expired = await pending_comments(client, 3)
    assert (await bench.review("approve", str(approved), typed="approve\n")).code == 0
    at = iso(bench.clock.time())
    assert (await bench.review("decline", str(declined), "--reason", "no")).code == 0
    shown = (await bench.review("show", str(approved))).out
    assert shown.startswith(f"Approval a{approved}: approved by {LOGIN} via terminal at {at}; sent")
    assert "This exact text was approved and sent" in shown and "will be sent" not in shown
    assert "Decide:" not in shown
    shown = (await bench.review("show", str(declined))).out
    assert f"declined by {LOGIN} via terminal at {at}; nothing was sent" in shown
    assert "This text was not sent:" in shown
    listed = (await bench.review("list", "--all")).out
    assert f"= approved by {LOGIN} via terminal at {at}; sent" in listed
    rows = json.loads((await bench.review("list", "--all", "--json")).out)
    said = {r["id"]: r["said"] for r in rows}
    assert said[declined] == f"declined by {LOGIN} via terminal at {at}; nothing was sent"
    ends = bench.approval(expired).expires_at
    bench.clock.advance(ends - bench.clock.time() + 3600)  # noticed an hour after its time
    ran = await bench.review("approve", str(expired), typed="approve\n")
    assert ran.code == 1 and f"Approval {expired} expired at" in ran.err
    assert "Type approve" not in ran.out  # refused before anything is asked
    assert (await bench.review("decline", str(expired))).code == 1  # expired: not decided
    assert len(bench.links.writes) == 1  # the approved one only
    assert json.loads((await bench.review("list", "--json")).out) == []
    shown = (await bench.review("show", str(expired))).out
    assert shown.startswith(
        f"Approval a{expired}: expired at {iso(ends)}: nobody decided in time; nothing was sent"
    )


async def test_an_approval_the_platform_hands_off_names_the_host_to_post_at(
    tmp_path: Path,
) -> None:
    """Approved, then the platform says a person must reply (a locked thread): the terminal
    sends the person to the post's link, with the host it really goes to."""
    bench = Bench(tmp_path)
    for pid, found in bench.links.posts.items():
        url = f"https://reddit.com@evil.example/{pid}"
        bench.links.posts[pid] = found.model_copy(update={"url": url})
    approval_id = await one_pending(bench)
    for pid in bench.links.posts:
        bench.links.judge(pid, "human", "the thread is locked")
    ran = await bench.review("approve", str(approval_id), typed="approve\n")
    assert ran.code == 0 and "Post it by hand at https://reddit.com@evil.example/" in ran.out
    assert " (host evil.example), then: gwanjong review done" in ran.out, ran.out
