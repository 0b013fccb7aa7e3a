"""A platform that lives in memory, served by the real server kit.

``FakePlatform`` holds the posts, comments and writes; ``server()`` wraps it in
``build_platform_server`` (the same factory every platform server uses), so the gateway
sees the contract's real tools, schemas, error wording and validate logic, with length
counted by ``gwanjong_shared.contract.text``. Nothing here touches the network or the clock:
a hang waits on an anyio event the test sets, and a post that lands late stays out of
reads until the test calls ``show_late()``. ``tools`` lists every MCP tool the gateway
called, ``calls`` every adapter operation (the write tools validate again inside), and
``judge`` gives one target the platform's own verdict (a locked thread, a community rule).

Seeded from the sandbox's corpus (plain data), so relevance ranking and mood in the
gateway have the same realistic text to work on as in the sandbox tier.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import anyio
from fastmcp import FastMCP
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext

from gwanjong_sandbox.corpus import Node, Thread, build_corpus, walk
from gwanjong_shared.contract import ActionRule, Capabilities, MentionList, Validation, errors
from gwanjong_shared.contract import Resolved as Verdict
from gwanjong_shared.contract.errors import ErrorKind, PlatformError
from gwanjong_shared.contract.models import Comment, Post, PostResult
from gwanjong_shared.kit.adapter import PlatformAdapter
from gwanjong_shared.kit.once import each_once, holding
from gwanjong_shared.kit.server import build_platform_server
from tests.fakes.clock import FakeClock
from tests.fakes.profiles import Profile

Op = Literal[
    "trending",
    "search",
    "get_post",
    "get_comments",
    "write_post",
    "write_comment",
    "upvote",
    "capabilities",
    "mentions",
]
WRITE_OPS = ("write_post", "write_comment", "upvote")


@dataclass
class Fault:
    """One scripted misbehaviour: ``op`` None matches every call.

    error: raise ``kind``. hang: wait until ``release()`` (the caller's time bound ends
    the call). land_then_hang: do the write, then hang (it lands; the caller gives up).
    land_then_error: do the write, then answer ``kind`` (``timeout``: the outcome the
    caller cannot know).
    """

    op: str | None
    what: Literal["error", "hang", "land_then_hang", "land_then_error"] = "error"
    kind: ErrorKind = ErrorKind.UNAVAILABLE
    retry_after: float | None = None
    count: int = 1


@dataclass
class Gate:
    """One write held at a moment the test chooses: before it lands (``after`` False) or
    after it landed and before the platform answers. ``reached`` is set when the write
    arrives there; it waits until the test sets ``go``."""

    op: str
    after: bool
    reached: anyio.Event = field(default_factory=anyio.Event)
    go: anyio.Event = field(default_factory=anyio.Event)

    async def hold(self) -> None:
        self.reached.set()
        await self.go.wait()


@dataclass
class Write:
    action: str
    target: str | None
    data: dict[str, Any]


@dataclass
class FakePlatform:
    profile: Profile
    configured: bool = True
    #: start from the sandbox's corpus (unless given posts); False: an empty platform
    seeded: bool = True
    posts: dict[str, Post] = field(default_factory=dict)
    comments: dict[str, list[Comment]] = field(default_factory=dict)
    #: logical corpus key ("rust-async") -> post id
    ids: dict[str, str] = field(default_factory=dict)
    writes: list[Write] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    #: the next write of an op waits at its gate (see `gate`)
    gates: list[Gate] = field(default_factory=list)
    #: every adapter call, by op name, in order
    calls: list[str] = field(default_factory=list)
    #: every MCP tool called on the server, by name, in order (what the gateway asked)
    tools: list[str] = field(default_factory=list)
    #: every MCP tool call as it arrived: (name, its arguments exactly as the gateway sent them)
    arguments: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: post id -> the platform's own rule for that target (see ``judge``)
    verdicts: dict[str, ActionRule] = field(default_factory=dict)
    #: post id -> problems the platform finds with any text there (see ``judge``)
    objections: dict[str, list[str]] = field(default_factory=dict)
    #: while set, new posts stay out of reads until show_late()
    lag: bool = False
    #: search finds only our account's own posts (a Forem without its search route, a
    #: Mastodon without Elasticsearch): what it finds depends on the key signed in
    own_search: bool = False
    #: what each inbox cursor (next_since) starts with: a platform's own cursors can be
    #: long (Bluesky's holds an at:// URI: a did:web and a record key of up to 512)
    cursor_prefix: str = ""
    #: why our account may not write at all (Mastodon's bot flag): every write is never
    account_problem: str | None = None
    #: a write's published time: its server's FakeClock's wall (none given: no time said)
    stamp: FakeClock | None = None
    _hidden: set[str] = field(default_factory=set)
    _summoning: set[str] = field(default_factory=set)
    _order: dict[str, int] = field(default_factory=dict)
    _seq: itertools.count[int] = field(default_factory=lambda: itertools.count(1001))
    _released: anyio.Event | None = None
    _is_released: bool = False

    def __post_init__(self) -> None:
        if self.seeded and not self.posts:
            self._from_seed(_seed_of(self.profile))

    def _from_seed(self, seed: _Seed) -> None:
        """The seeded corpus, as every fake of this profile starts (copied: our own lists)."""
        self.posts = dict(seed.posts)
        self.comments = {pid: list(found) for pid, found in seed.comments.items()}
        self.ids = dict(seed.ids)
        self._order = dict(seed.order)
        self._summoning = set(seed.summoning)
        self._seq = itertools.count(seed.next_id)

    # -- steering, for tests --------------------------------------------------------------

    def fail(
        self,
        op: str | None = None,
        kind: ErrorKind = ErrorKind.UNAVAILABLE,
        count: int = 1,
        retry_after: float | None = None,
    ) -> None:
        self.faults.append(Fault(op, "error", kind, retry_after, count))

    def hang(self, op: str | None = None, count: int = 1, *, land: bool = False) -> None:
        self.faults.append(Fault(op, "land_then_hang" if land else "hang", count=count))

    def land(self, op: str, kind: ErrorKind = ErrorKind.TIMEOUT, count: int = 1) -> None:
        """The next ``op`` writes, then fails with ``kind``: the write landed unseen."""
        self.faults.append(Fault(op, "land_then_error", kind, count=count))

    def gate(self, op: str, *, after: bool = False) -> Gate:
        """Hold the next ``op`` write at its gate (before it lands, or ``after``) until the
        test sets ``gate.go``: a fault can then be applied at exactly that moment."""
        held = Gate(op, after)
        self.gates.append(held)
        return held

    def take_gate(self, op: str) -> Gate | None:
        for held in self.gates:
            if held.op == op:
                self.gates.remove(held)
                return held
        return None

    def judge(self, post_id: str, allowed: Verdict, reason: str) -> None:
        """The platform's own verdict on ``post_id`` from now on: ``never`` or ``human``
        (a locked thread; a person must reply there) replaces the profile's rule;
        ``auto`` with a reason keeps the rule and objects to the text (a community's own
        rule, such as no links)."""
        if allowed == "auto":
            self.objections.setdefault(post_id, []).append(reason)
        else:
            self.verdicts[post_id] = ActionRule(allowed=allowed, reason=reason)

    def asked(self, *tools: str) -> list[str]:
        """The tools called, in order, among ``tools`` (default: validate and the writes)."""
        names = tools or ("validate", *WRITE_OPS)
        return [t for t in self.tools if t in names]

    def release(self) -> None:
        """End every hang (now and later)."""
        self._is_released = True
        if self._released is not None:
            self._released.set()

    def show_late(self) -> None:
        """Let the writes held back by ``lag`` show in reads."""
        self._hidden.clear()

    def add_post(
        self,
        key: str,
        title: str,
        body: str,
        *,
        author: str = "someone",
        summons: bool = False,
        hours_ago: float = 0.5,
    ) -> str:
        """A new post (after the seed; ``summons``: it mentions our account); its id."""
        thread = Thread(key, title, body, author, ["fake"], 1, hours_ago, mentions_me=summons)
        return self._seed(thread)

    def written(self, action: str | None = None) -> list[Write]:
        return [w for w in self.writes if action is None or w.action == action]

    def server(self, call_timeout_s: float = 30.0, clock: FakeClock | None = None) -> FastMCP[Any]:
        adapter, about = _adapter_for(self), self.profile.about
        self.stamp = self.stamp or clock
        mcp = build_platform_server(
            adapter,
            call_timeout_s=call_timeout_s,
            profile=about,
            wall=clock.time if clock else time.time,
        )
        mcp.add_middleware(_ToolLog(self.tools, self.arguments))
        return mcp

    # -- the platform -----------------------------------------------------------------------

    def _seed(self, thread: Thread) -> str:
        pid = str(next(self._seq))
        me = self.profile.me
        body = thread.body.replace("{me}", f"@{me}")
        self.ids[thread.key] = pid
        self._order[pid] = len(self._order)
        if thread.mentions_me or f"@{me}" in body:
            self._summoning.add(pid)
        if thread.deleted:
            return pid
        self.posts[pid] = Post(
            id=pid,
            platform=self.profile.name,
            title=thread.title,
            url=f"{self.profile.url}/{thread.author}/{thread.key}",
            body=body,
            author=thread.author,
            tags=list(thread.tags),
            likes=thread.likes,
            comments_count=thread.comment_count(),
            published_at=thread.created.isoformat().replace("+00:00", "Z"),
        )
        self.comments[pid] = [
            self._comment(pid, node, depth, parent) for node, depth, parent in walk(thread.comments)
        ]
        return pid

    def _comment(self, pid: str, node: Node, depth: int, parent: Node | None) -> Comment:
        return Comment(
            id=f"{pid}-{node.key}",
            platform=self.profile.name,
            post_id=pid,
            parent_id=f"{pid}-{parent.key}" if parent is not None else None,
            author="" if node.deleted else node.author,
            body="" if node.deleted else node.body.replace("{me}", f"@{self.profile.me}"),
            likes=node.likes,
            depth=depth,
        )

    def visible(self) -> list[Post]:
        return [p for pid, p in self.posts.items() if pid not in self._hidden]

    def post(self, post_id: str) -> Post:
        found = self.posts.get(post_id)
        if found is None or post_id in self._hidden:
            raise errors.not_found(
                f"No {self.profile.label} post has id {post_id}. Check the id from search."
            )
        return found

    async def enter(self, op: str) -> Fault | None:
        """Record the call and apply the first matching fault (a hang waits here)."""
        self.calls.append(op)
        for fault in self.faults:
            if fault.op is not None and fault.op != op:
                continue
            fault.count -= 1
            if fault.count <= 0:
                self.faults.remove(fault)
            if fault.what == "error":
                raise PlatformError(
                    fault.kind,
                    f"{self.profile.label} failed as scripted. Try again later.",
                    retry_after=fault.retry_after,
                )
            if fault.what == "hang":
                await self._wait_released()
            return fault
        return None

    async def _wait_released(self) -> None:
        if self._is_released:
            return
        if self._released is None:
            self._released = anyio.Event()
        await self._released.wait()

    def record(self, action: str, target: str | None, **data: Any) -> PostResult:
        wid = str(next(self._seq))
        self.writes.append(Write(action, target, {"id": wid, **data}))
        if action == "write_post":
            self.posts[wid] = Post(
                id=wid,
                platform=self.profile.name,
                title=str(data.get("title", "")),
                url=f"{self.profile.url}/{self.profile.me}/{wid}",
                body=str(data.get("body", "")),
                author=self.profile.me,
                tags=list(data.get("tags", [])),
                published_at=self._now(),
            )
            self._order[wid] = len(self._order)
            if self.lag:
                self._hidden.add(wid)
        elif action == "write_comment" and target is not None:
            parent = data.get("parent_id")
            self.comments.setdefault(target, []).append(
                Comment(
                    id=wid,
                    platform=self.profile.name,
                    post_id=target,
                    parent_id=str(parent) if parent else None,
                    author=self.profile.me,
                    body=str(data.get("body", "")),
                    url=f"{self.profile.url}/{self.profile.me}/{wid}",
                    published_at=self._now(),
                )
            )
        url = f"{self.profile.url}/{self.profile.me}/{wid}"
        return PostResult(ok=True, platform=self.profile.name, action=action, id=wid, url=url)  # type: ignore[arg-type]

    def _now(self) -> str | None:
        return self.stamp.utc().isoformat() if self.stamp else None

    def mentions_after(self, since: int) -> list[Post]:
        found = [
            p for p in self.visible() if p.id in self._summoning and self._order[p.id] > since
        ]  # ours too, if they mention us: the gateway leaves our own out
        return sorted(found, key=lambda p: self._order[p.id])  # oldest first, as servers list

    def mine(self) -> list[Post]:
        """The signed-in account's posts, newest first."""
        found = [p for p in self.visible() if p.author == self.profile.me]
        return sorted(found, key=lambda p: -self._order[p.id])

    def summoned(self, post_id: str) -> bool:
        return post_id in self._summoning


@dataclass(frozen=True)
class _Seed:
    """A profile's seeded corpus, built once per test run: seeding converts some five hundred
    comments (the huge thread too), which every test would otherwise pay for again. Posts
    and comments are shared between fakes and never changed in place."""

    posts: dict[str, Post]
    comments: dict[str, list[Comment]]
    ids: dict[str, str]
    order: dict[str, int]
    summoning: frozenset[str]
    next_id: int


_SEEDS: dict[tuple[str, str, str], _Seed] = {}


def _seed_of(profile: Profile) -> _Seed:
    key = (profile.name, profile.me, profile.url)
    if key not in _SEEDS:
        world = FakePlatform(profile, seeded=False)
        for thread in build_corpus(me=profile.me):
            world._seed(thread)
        _SEEDS[key] = _Seed(
            posts=world.posts,
            comments=world.comments,
            ids=world.ids,
            order=world._order,
            summoning=frozenset(world._summoning),
            next_id=next(world._seq),
        )
    return _SEEDS[key]


class FakeAdapter(PlatformAdapter):
    platform: ClassVar[str] = "fake"
    label: ClassVar[str] = "Fake"

    def __init__(self, world: FakePlatform) -> None:
        self.world = world

    def is_configured(self) -> bool:
        return self.world.configured

    async def get_trending(self, limit: int) -> list[Post]:
        await self.world.enter("trending")
        return sorted(self.world.visible(), key=lambda p: -p.likes)[:limit]

    async def search(self, query: str, limit: int) -> list[Post]:
        await self.world.enter("search")
        words = [w.lower() for w in query.split() if w]

        def hits(p: Post) -> int:
            text = f"{p.title} {p.body} {' '.join(p.tags)}".lower()
            return sum(text.count(w) for w in words)

        posts = self.world.visible()
        if self.world.own_search:
            posts = [p for p in posts if p.author == self.world.profile.me]
        scored = sorted(((hits(p), p) for p in posts), key=lambda s: -s[0])
        # Our own newest posts holding the words first, as the servers that read an unsure
        # post back by its words do (kit once.holding)
        ours = holding(query, self.world.mine())
        return each_once([*ours, *(p for n, p in scored if n > 0)], limit)

    async def get_post(self, post_id: str) -> Post:
        await self.world.enter("get_post")
        return self.world.post(post_id)

    async def get_comments(self, post_id: str, limit: int) -> list[Comment]:
        await self.world.enter("get_comments")
        self.world.post(post_id)
        return self.world.comments.get(post_id, [])[:limit]

    async def _write(self, action: str, target: str | None, **data: Any) -> PostResult:
        if not self.world.configured:
            raise errors.auth(f"{self.label} needs credentials to write. Run setup first.")
        fault = await self.world.enter(action)
        held = self.world.take_gate(action)
        if held is not None and not held.after:
            await held.hold()
        result = self.world.record(action, target, **data)
        if held is not None and held.after:
            await held.hold()
        if fault is not None and fault.what == "land_then_hang":
            await self.world._wait_released()  # pyright: ignore[reportPrivateUsage]
        if fault is not None and fault.what == "land_then_error":
            raise PlatformError(
                fault.kind, f"{self.label} did not answer in time. Try again later."
            )
        return result

    async def write_post(self, title: str, body: str, tags: list[str]) -> PostResult:
        return await self._write("write_post", None, title=title, body=body, tags=tags)

    async def write_comment(self, post_id: str, body: str, parent_id: str | None) -> PostResult:
        self.world.post(post_id)
        return await self._write("write_comment", post_id, body=body, parent_id=parent_id)

    async def upvote(self, post_id: str) -> PostResult:
        self.world.post(post_id)
        return await self._write("upvote", post_id)

    def static_capabilities(self) -> Capabilities:
        profile = self.world.profile
        return Capabilities(
            platform=profile.name,
            configured=self.is_configured(),
            destination=profile.destination,
            sent_with=profile.sent_with,
            actions=dict(profile.rules),
            limits=dict(profile.limits),
            tags=profile.tag_rules,
            credentials=list(profile.credentials),
        )

    async def account(self) -> str | None:
        await self.world.enter("capabilities")
        return self.world.profile.me if self.world.configured else None

    async def account_problem(self) -> str | None:
        return self.world.account_problem

    async def rule_for_target(self, action: str, post_id: str, rule: ActionRule) -> ActionRule:
        await self.world.enter("validate")  # the per-target check before a write
        held = self.world.take_gate("validate")  # the last platform call before the claim
        if held is not None:
            await held.hold()
        self.world.post(post_id)  # a missing target is not_found, not a policy answer
        if post_id in self.world.verdicts:
            return self.world.verdicts[post_id]
        if rule.allowed != "summoned":
            return rule
        if self.world.summoned(post_id):
            return ActionRule(allowed="auto", reason=f"{rule.reason} This post mentions us.")
        return ActionRule(
            allowed="human", reason=f"{rule.reason} This post does not mention our account."
        )

    async def validate(
        self,
        action: str,
        body: str,
        title: str = "",
        post_id: str | None = None,
        tags: list[str] | None = None,
    ) -> Validation:
        check = await super().validate(action, body, title, post_id, tags)
        objections = self.world.objections.get(post_id or "", [])
        if not objections or check.allowed != "auto":
            return check
        return check.with_problems(*objections)

    async def mentions(self, since: str | None, limit: int) -> MentionList:
        if not self.world.profile.has_mentions:
            return await super().mentions(since, limit)
        await self.world.enter("mentions")
        try:
            after = int(since.removeprefix(self.world.cursor_prefix)) if since else -1
        except ValueError:
            raise errors.invalid_input("since is not a next_since value. Omit it.") from None
        waiting = self.world.mentions_after(after)
        found = waiting[:limit]  # the oldest unseen; the cursor ends at the newest listed
        latest = max((self.world._order[p.id] for p in found), default=after)  # pyright: ignore[reportPrivateUsage]
        tagged = [p.model_copy(update={"tags": ["mention"]}) for p in found]
        next_since = f"{self.world.cursor_prefix}{latest}"
        return MentionList(posts=tagged, next_since=next_since, more=len(waiting) > limit)


class _ToolLog(Middleware):
    """Notes each tool call's name and arguments: what the gateway asked the platform
    server, in order."""

    def __init__(self, log: list[str], arguments: list[tuple[str, dict[str, Any]]]) -> None:
        self.log = log
        self.arguments = arguments

    async def on_call_tool(
        self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]
    ) -> Any:
        self.log.append(context.message.name)
        self.arguments.append((context.message.name, dict(context.message.arguments or {})))
        return await call_next(context)


def _adapter_for(world: FakePlatform) -> FakeAdapter:
    # platform and label are class facts in the kit; one small subclass per profile.
    cls = type(
        f"Fake_{world.profile.name}",
        (FakeAdapter,),
        {"platform": world.profile.name, "label": world.profile.label},
    )
    return cls(world)
