"""Users cannot crowd each other out (issue 27): the workflow state store caps buckets
per signed-in principal, so one user's flood of fresh sessions evicts only their own."""

from __future__ import annotations

from pydantic import Field

from gwanjong_shared.pipeline import PipelineState, StateStore

ALICE, BOB = "user:" + "a" * 64, "user:" + "b" * 64


class Flow(PipelineState):
    opportunities: dict[str, str] = Field(default_factory=dict)


def session(user: str, n: int) -> str:
    return f"{user}:client:{n:064x}"


def test_one_principals_fresh_sessions_evict_only_their_own() -> None:
    store = StateStore(Flow)  # the defaults: 1,000 buckets, 100 per principal
    store.bucket(BOB).state.opportunities["o1"] = "scouted"
    store.bucket(session(BOB, 1)).state.opportunities["o2"] = "scouted"
    for n in range(1100):
        store.bucket(session(ALICE, n)).state.opportunities["x"] = "flood"
    bob = store.peek(BOB)
    assert bob is not None and bob.opportunities == {"o1": "scouted"}
    assert session(BOB, 1) in store
    alice = [k for k in store if store.owner(k) == ALICE]
    assert len(alice) == store.max_per_principal == 100
    assert session(ALICE, 1099) in alice and session(ALICE, 0) not in alice  # LRU went


def test_a_full_store_takes_from_the_principal_holding_the_most() -> None:
    store = StateStore(Flow, max_clients=10, max_per_principal=8)
    store.bucket(BOB)
    for n in range(8):
        store.bucket(session(ALICE, n))
    store.bucket("session:anon-1")
    carol = "user:" + "c" * 64
    store.bucket(carol)  # the 11th bucket: one of Alice's 8 goes, not Bob's older one
    assert BOB in store and "session:anon-1" in store and carol in store
    assert sum(store.owner(k) == ALICE for k in store) == 7
    assert session(ALICE, 0) not in store


def test_without_sign_in_each_key_is_its_own_owner() -> None:
    store = StateStore(Flow, max_clients=3, max_per_principal=1)
    for key in ("session:1", "session:2", "client:3", "session:4"):
        store.bucket(key)
    assert store.keys() == ["session:2", "client:3", "session:4"]  # plain LRU
    assert store.owner(session(ALICE, 5)) == ALICE and store.owner("process") == "process"
