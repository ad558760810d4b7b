"""The one command loop (``services.commands.CommandLoop``) every stream's service runs, on a real event log: two
writers that decided on the same version both land, the second after reading again; a retried command is
replayed and stores nothing; a reused id with another command is refused; a stream that keeps changing is
refused as busy; and what the append's transaction writes beside the events is stored with them or not at all."""

from __future__ import annotations

import asyncio
import collections
import uuid

import msgspec
import pytest

from services.commands import NONE_APPLIED, Applied, CommandLoop, Decision, applied_by, event_id
from services.errors import Conflict
from services.eventstore import NewEvent, append, read_stream

STREAM = "loop-test"
NAMESPACE = uuid.UUID("8d6f2a1e-5b7c-4e0f-9a3d-1c2b3a4d5e6f")


class Fold(msgspec.Struct, frozen=True):
    version: int = 0
    commands: Applied = NONE_APPLIED


async def read_fold(pool) -> Fold:
    rows = await read_stream(pool, STREAM)
    return Fold(rows[-1].version if rows else 0, NONE_APPLIED.plus(applied_by(rows))) if rows else Fold()


def added(actor: str, command_id: str, digest: str, seen: int) -> NewEvent:
    return NewEvent(event_type="added", data={"by": actor, "seen": seen},
                    event_id=event_id(NAMESPACE, STREAM, actor, command_id, 0),
                    metadata={"command_id": command_id, "actor": actor, "digest": digest})


def adding(actor: str, command_id: str, digest: str):
    def decide(fold: Fold) -> Decision:
        return Decision(["added"], [added(actor, command_id, digest, fold.version)], fold.version)
    return decide


async def test_two_writers_that_decided_on_the_same_version_both_land_the_second_after_reading_again(pool):
    loop = CommandLoop(pool, attempts=5, rule="test_busy")
    both_read = asyncio.Barrier(2)
    loads: collections.Counter[str] = collections.Counter()

    async def command(actor: str):
        async def load(attempt: int) -> Fold:
            fold = await read_fold(pool)
            loads[actor] += 1
            if attempt == 0:
                await both_read.wait()          # each decides on the version the other also read
            return fold
        return await loop.run(STREAM, load, adding(actor, "c1", "d"), command=(actor, "c1", "d"), busy="busy")

    steps = await asyncio.gather(command("a"), command("b"))
    rows = await read_stream(pool, STREAM)
    assert sorted((r.data["seen"], r.version) for r in rows) == [(0, 1), (1, 2)]   # the second saw the first
    assert sorted(loads.values()) == [1, 2]                                          # one read again, once
    assert sorted(s.appended.version for s in steps) == [1, 2] and all(s.appended.stored for s in steps)


async def test_a_retried_command_is_replayed_and_a_reused_id_with_another_command_refused(pool):
    loop = CommandLoop(pool, attempts=5, rule="test_busy")

    async def load(_attempt: int) -> Fold:
        return await read_fold(pool)

    first = await loop.run(STREAM, load, adding("u", "c1", "one"), command=("u", "c1", "one"), busy="busy")
    assert first.appended.version == 1 and first.replayed is None
    again = await loop.run(STREAM, load, adding("u", "c1", "one"), command=("u", "c1", "one"), busy="busy")
    assert again.replayed is not None and again.replayed.version == 1 and again.replayed.replayed
    assert again.appended is None and len(await read_stream(pool, STREAM)) == 1       # nothing stored twice
    with pytest.raises(Conflict) as refused:
        await loop.run(STREAM, load, adding("u", "c1", "two"), command=("u", "c1", "two"), busy="busy")
    assert refused.value.rule == "command_id_reused"
    other = await loop.run(STREAM, load, adding("v", "c1", "two"), command=("v", "c1", "two"), busy="busy")
    assert other.appended.version == 2                     # another sender's id is another command


async def test_a_stream_that_keeps_changing_is_refused_as_busy_and_nothing_of_the_command_is_stored(pool):
    loop = CommandLoop(pool, attempts=3, rule="test_busy")

    async def load(attempt: int) -> Fold:
        fold = await read_fold(pool)
        # Another writer appends after every read, before the command's append.
        await append(pool, STREAM, fold.version, [added("other", f"o{attempt}", "", fold.version)])
        return fold

    with pytest.raises(Conflict) as busy:
        await loop.run(STREAM, load, adding("u", "c1", "d"), command=("u", "c1", "d"), busy="the stream kept changing")
    assert (busy.value.rule, str(busy.value)) == ("test_busy", "the stream kept changing")
    assert [r.metadata["actor"] for r in await read_stream(pool, STREAM)] == ["other"] * 3


async def test_the_appends_transaction_stores_the_writes_beside_the_events_with_them_or_not_at_all(pool):
    loop = CommandLoop(pool, attempts=2, rule="test_busy")
    member = "INSERT INTO championship_members (championship_id, user_id) VALUES ($1, $2)"

    async def load(_attempt: int) -> Fold:
        return await read_fold(pool)

    def with_member(user: str, fail: bool):
        def decide(fold: Fold) -> Decision:
            async def also(conn) -> None:
                await conn.execute(member, "cup", user)
                if fail:
                    raise RuntimeError("the write beside the events failed")
            return Decision(["added"], [added(user, "c1", "", fold.version)], fold.version, also=also)
        return decide

    await loop.run(STREAM, load, with_member("kept", False), busy="busy")
    with pytest.raises(RuntimeError):
        await loop.run(STREAM, load, with_member("lost", True), busy="busy")
    assert [r.metadata["actor"] for r in await read_stream(pool, STREAM)] == ["kept"]
    assert [r["user_id"] for r in await pool.fetch("SELECT user_id FROM championship_members")] == ["kept"]
