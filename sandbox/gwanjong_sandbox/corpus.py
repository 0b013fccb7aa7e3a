"""The seeded discussions every emulator serves, written once for all platforms.

Each emulator renders these threads in its platform's wire format and maps the logical
keys (``rust-async``, ``deleted``, ``huge``) to its own ids, which tests read back from
``GET /_sandbox/ids/{platform}``. The text is realistic developer talk so that relevance
ranking and sentiment in the gateway have something real to work on.

``{me}`` in a text stands for our own test account; each emulator substitutes its handle.
As an author, ``{me}`` is our account itself (``build_corpus(me=...)`` fills it in): the
``my-post`` thread is ours, so its replies land in our inbox (the ``mentions`` tool).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

BASE_TIME = datetime(2026, 11, 27, 9, 0, tzinfo=UTC)


@dataclass
class Node:
    key: str
    author: str
    body: str
    likes: int = 0
    minutes: int = 0  # after the thread started
    deleted: bool = False
    children: list[Node] = field(default_factory=list)
    locked: bool = False  # by a moderator: no replies under it (where a platform has that)


@dataclass
class Thread:
    key: str
    title: str
    body: str
    author: str
    tags: list[str]
    likes: int
    hours_ago: float
    comments: list[Node] = field(default_factory=list)
    deleted: bool = False  # gone from the platform: every read answers 404
    mentions_me: bool = False  # the body mentions our account (a "summoning" post)
    draft: bool = False  # Dev.to: unpublished (listed only in its author's /me lists)

    @property
    def created(self) -> datetime:
        return BASE_TIME - timedelta(hours=self.hours_ago)

    def comment_count(self) -> int:
        return sum(1 for _ in walk(self.comments))


def walk(nodes: list[Node], depth: int = 0, parent: Node | None = None):  # type: ignore[no-untyped-def]
    """Depth-first (node, depth, parent) over a comment tree."""
    for node in nodes:
        yield node, depth, parent
        yield from walk(node.children, depth + 1, node)


def _n(
    key: str,
    author: str,
    body: str,
    likes: int = 0,
    minutes: int = 5,
    *children: Node,
    deleted: bool = False,
    locked: bool = False,
) -> Node:
    return Node(key, author, body, likes, minutes, deleted, list(children), locked)


def _huge_tree(count: int) -> list[Node]:
    """A deterministic thread of ``count`` comments, up to six levels deep."""
    rng = random.Random(20261129)
    phrases = [
        "We hit the same wall with connection pooling under load.",
        "Have you tried pinning the resolver version? That fixed it for us.",
        "This is the clearest explanation of backpressure I have read.",
        "Disagree: the benchmark ignores cold starts entirely.",
        "Our team moved to structured logging and never looked back.",
        "Could you share the flamegraph? Curious where the time goes.",
        "The retry-with-jitter trick saved our on-call rotation.",
        "Same here, the docs are out of date on this point.",
    ]
    roots: list[Node] = []
    flat: list[tuple[Node, int]] = []
    for i in range(count):
        node = Node(
            f"huge-{i}", f"dev{rng.randint(1, 80)}", rng.choice(phrases), rng.randint(0, 40), i
        )
        candidates = [(n, d) for n, d in flat[-30:] if d < 5]
        if flat and candidates and rng.random() < 0.7:
            parent, depth = rng.choice(candidates)
            parent.children.append(node)
            flat.append((node, depth + 1))
        else:
            roots.append(node)
            flat.append((node, 0))
    return roots


ME = "{me}"

# Threads added through the control API (`POST /_sandbox/posts`, tests only): every
# emulator renders them after the seed until the next reset.
_EXTRA: list[Thread] = []


def add_thread(thread: Thread) -> None:
    _EXTRA.append(thread)


def clear_extra() -> bool:
    """Forget the added threads; True if there were any."""
    had = bool(_EXTRA)
    _EXTRA.clear()
    return had


def build_corpus(me: str = ME) -> list[Thread]:
    """The seed and any added threads, with our account's handle as the author wherever
    we wrote."""
    # Copies of the added threads: each emulator writes its own handle into them.
    threads = [*_threads(), *copy.deepcopy(_EXTRA)]
    for thread in threads:
        if thread.author == ME:
            thread.author = me
        for node, _depth, _parent in walk(thread.comments):
            if node.author == ME:
                node.author = me
    return threads


def _threads() -> list[Thread]:
    return [
        Thread(
            "mcp-servers",
            "Building an MCP server in Python: what I wish I knew",
            "I shipped my first Model Context Protocol server last week. The hardest part was not "
            "the tools but the error messages: the model retries blindly when a tool says only "
            "'failed'. Returning one sentence that says what to do next cut retries in half. "
            "Also: never print to stdout in a stdio server, it corrupts the JSON-RPC stream.",
            "mara_codes",
            ["mcp", "python", "ai"],
            184,
            5,
            [
                _n(
                    "mcp-1",
                    "devon",
                    "The stdout thing bit me too. Logging to stderr fixed a day of confusion.",
                    21,
                    12,
                    _n(
                        "mcp-1-1",
                        "mara_codes",
                        "Exactly. I now lint for print() in server code.",
                        9,
                        30,
                    ),
                ),
                _n(
                    "mcp-2",
                    "kimchi_dev",
                    "How do you test it? In-memory client or a real subprocess?",
                    14,
                    40,
                    _n(
                        "mcp-2-1",
                        "mara_codes",
                        "Both: in-memory for speed, one stdio test for the real wire.",
                        11,
                        55,
                        _n("mcp-2-1-1", "kimchi_dev", "Nice, stealing that setup.", 3, 70),
                    ),
                ),
                _n(
                    "mcp-3",
                    "priya",
                    "Tool descriptions matter more than I expected. Ours read like prompts now.",
                    30,
                    90,
                ),
            ],
        ),
        Thread(
            "rust-async",
            "Rust async cancellation is harder than it looks",
            "Dropping a future in Rust cancels it at the next await point, which means any state "
            "you mutated before that await is left half-done. We lost writes in production because "
            "a select! branch dropped a future mid-transaction. Here is how we made our handlers "
            "cancellation-safe with tokio and explicit guards.",
            "ferris_fan",
            ["rust", "async", "tokio"],
            321,
            9,
            [
                _n(
                    "rust-1",
                    "oxidized",
                    "select! in a loop is the classic footgun. Great write-up.",
                    44,
                    10,
                    _n(
                        "rust-1-1",
                        "ferris_fan",
                        "Thanks! The tokio docs have a cancellation-safety section now.",
                        12,
                        20,
                    ),
                ),
                _n(
                    "rust-2",
                    "async_andy",
                    "Would structured concurrency solve this? Something like trio nurseries for Rust.",
                    18,
                    35,
                ),
                _n(
                    "rust-3",
                    "grumpy_dev",
                    "Honestly this is why I still use threads for anything transactional.",
                    7,
                    60,
                ),
            ],
        ),
        Thread(
            "python-packaging",
            "uv workspaces made our Python monorepo sane",
            "We had six Python packages, three requirements files and a Makefile nobody understood. "
            "Moving to a uv workspace with one lock file gave us reproducible installs in seconds "
            "and editable members. The trick was giving each member a unique import prefix.",
            "snake_charmer",
            ["python", "packaging", "uv"],
            256,
            20,
            [
                _n(
                    "py-1",
                    "pipenv_refugee",
                    "How does it compare to poetry for libraries you publish?",
                    8,
                    15,
                    _n(
                        "py-1-1",
                        "snake_charmer",
                        "For publishing we build each member with uv build; it just works.",
                        6,
                        40,
                    ),
                ),
                _n(
                    "py-2",
                    "lockfile_lover",
                    "The single lock file is the killer feature. CI got 4x faster.",
                    25,
                    50,
                ),
            ],
        ),
        Thread(
            "llm-agents",
            "Our LLM agent made 40 tool calls to post one reply",
            "We watched an agent take forty tool calls (search, read, read comments, draft, check "
            "limits, post) to leave one comment. Collapsing that into three coarse tools with "
            "server-side state cut tokens by 80% and latency by half. Fewer, better tools win.",
            "agent_smith",
            ["ai", "llm", "agents", "mcp"],
            140,
            30,
            [
                _n(
                    "llm-1",
                    "tokenomics",
                    "Tool definitions alone were 6k tokens for us before consolidating.",
                    19,
                    10,
                ),
                _n(
                    "llm-2",
                    "skeptic",
                    "Coarse tools hide failures though. How do you debug?",
                    9,
                    25,
                    _n(
                        "llm-2-1",
                        "agent_smith",
                        "A status tool that shows the pipeline state and what is blocked.",
                        13,
                        50,
                    ),
                ),
                # A mention in a comment: the inbox's "username mention" on Reddit.
                _n(
                    "llm-3",
                    "tokenomics",
                    "{me} measured this for their gateway, maybe they can share numbers?",
                    4,
                    70,
                ),
            ],
        ),
        Thread(
            "korean-dev",
            "파이썬 비동기 프로그래밍, 실무에서 배운 점",
            "asyncio로 크롤러를 만들면서 배운 점을 정리했습니다. 동시 요청 수를 세마포어로 제한하지 "
            "않으면 서버가 429를 돌려줍니다. 재시도에는 지수 백오프를 쓰세요. 🚀",
            "hangul_hacker",
            ["python", "async", "korean"],
            77,
            14,
            [
                _n("ko-1", "seoul_coder", "세마포어 팁 정말 유용하네요! 감사합니다 🙏", 8, 20),
                _n(
                    "ko-2",
                    "busan_dev",
                    "anyio도 한번 써보세요. 취소 처리가 더 깔끔합니다.",
                    5,
                    45,
                    _n(
                        "ko-2-1", "hangul_hacker", "좋은 제안이네요. 다음 글에서 다뤄볼게요.", 3, 80
                    ),
                ),
            ],
        ),
        Thread(
            "emoji-post",
            "🔥 Shipping on Fridays: a 🧵 of lessons 👩‍💻",
            "We deploy on Fridays 🚢 and nothing burns 🔥 because every change is behind a flag 🏳️‍🌈 "
            "and rollbacks take 30 seconds ⏱️. The fear is about slow rollbacks, not the day.",
            "deploy_daisy",
            ["devops", "deployment"],
            98,
            40,
            [
                _n(
                    "emoji-1",
                    "ops_oscar",
                    "Feature flags + fast rollback = calm weekends 😌",
                    12,
                    30,
                )
            ],
        ),
        Thread(
            "summons-me",
            "Looking for feedback on my MCP gateway design",
            "Hey {me}, you wrote about MCP gateways before: would you split tools per platform or "
            "keep one gateway with scout/draft/strike? I am worried about token cost.",
            "curious_carl",
            ["mcp", "architecture"],
            12,
            3,
            [_n("summon-1", "lurker", "Following, same question here.", 2, 15)],
            mentions_me=True,
        ),
        Thread(
            "empty-thread",
            "Is anyone else using SQLite WAL mode for job queues?",
            "We replaced Redis with SQLite in WAL mode for a small job queue. Throughput is fine "
            "for our load. Curious whether anyone hit locking issues at scale.",
            "sqlite_sam",
            ["sqlite", "databases"],
            5,
            2,
            [],
        ),
        Thread(
            "deleted-post",
            "This post was removed by its author",
            "Gone.",
            "ghost_writer",
            ["misc"],
            0,
            50,
            [],
            deleted=True,
        ),
        Thread(
            "deleted-comments",
            "Code review etiquette: what actually helps",
            "Review the change, not the person. Ask questions instead of giving orders. Approve "
            "with nits instead of blocking on style.",
            "reviewer_rae",
            ["career", "codereview"],
            61,
            26,
            [
                _n(
                    "del-1",
                    "troll_tom",
                    "removed",
                    0,
                    5,
                    _n("del-1-1", "reviewer_rae", "Please keep it civil.", 4, 10, locked=True),
                    deleted=True,
                ),
                _n(
                    "del-2",
                    "kind_kai",
                    "Approve-with-nits changed our team culture for the better.",
                    10,
                    30,
                ),
            ],
        ),
        Thread(
            "huge",
            "Postgres connection pooling: share your production setup",
            "PgBouncer in transaction mode, pool size 20 per service, and statement timeouts "
            "everywhere. What does your setup look like, and what broke?",
            "pg_pat",
            ["postgres", "databases", "performance"],
            512,
            48,
            _huge_tree(500),
        ),
        Thread(
            "typescript-types",
            "TypeScript's satisfies operator changed how I type configs",
            "satisfies lets you check a config object against a type without widening it, so you "
            "keep literal types for autocompletion. It replaced half of our as-const hacks.",
            "ts_tina",
            ["typescript", "javascript"],
            203,
            12,
            [_n("ts-1", "js_jay", "satisfies + as const is the combo.", 15, 10)],
        ),
        Thread(
            "rust-followup",
            "Follow-up: testing cancellation in tokio with loom",
            "After my post on cancellation safety, several of you asked how we test it. We "
            "run handlers under loom and drop futures at every await point on purpose.",
            "ferris_fan",
            ["rust", "testing", "tokio"],
            88,
            30,
            [_n("rf-1", "oxidized", "Dropping at every await is a neat fuzzing trick.", 9, 20)],
        ),
        Thread(
            "my-post",
            "A month of running one MCP gateway for four platforms",
            "Notes from a month of scout, draft and strike through one gateway: the tool list "
            "stayed small, hand-offs were the most used path on Dev.to, and the inbox of "
            "replies turned out to matter more than topic search.",
            ME,
            ["mcp", "gateway"],
            9,
            6,
            [
                _n(
                    "my-1",
                    "curious_carl",
                    "Did you measure what the tool list costs in tokens? I would love numbers.",
                    3,
                    25,
                ),
                _n(
                    "my-2",
                    "devon",
                    "Which transports does it support?",
                    2,
                    40,
                    _n("my-2-1", ME, "stdio and streamable HTTP, both.", 1, 60),
                ),
            ],
        ),
    ]
