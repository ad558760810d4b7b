"""The anchored log against a superuser who rewrites the database behind the triggers.

Each test builds three streams through the event store, signs receipts at the "deal ends" and publishes
checkpoints, then changes rows with `session_replication_role = replica` (which silences the
append-only triggers), recomputing the hash chains with event_hash() where the attack would.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from services.anchor import (
    Receipt,
    SignedCheckpoint,
    checkpoints,
    consistency,
    load_or_create_key,
    publish_checkpoint,
    receipts_of,
    sign_receipt,
    store_receipt,
    verify_checkpoint,
    verify_log,
    verify_receipt,
)
from services.anchor.keys import Signer
from services.anchor.merkle import verify_consistency
from services.eventstore import NewEvent, append_reporting, verify_stream

STREAMS = ("table-a", "table-b", "table-c")
DEAL = 4  # events per "deal": a receipt is signed after every 4th event of a stream


@pytest.fixture
def signer(tmp_path) -> Signer:
    return Signer.of(load_or_create_key(tmp_path / "signing-key.pem"))


async def settled(pool) -> None:
    """Wait until every stored event is below the read horizon, which any open transaction on the server (a
    test's, or another schema's) holds back: a checkpoint covers only events whose order is final."""
    for _ in range(2000):
        if await pool.fetchval("SELECT coalesce(max(tx_id) < pg_snapshot_xmin(pg_current_snapshot()), true) "
                               "FROM events"):
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the read horizon did not pass the log's last events within 10 s")


async def build_log(pool, signer: Signer, deals: int = 3) -> list[Receipt]:
    """Three streams of `deals` deals each, interleaved, with a receipt per deal and a checkpoint per round."""
    receipts = []
    for deal in range(1, deals + 1):
        for stream in STREAMS:
            result = await append_reporting(pool, stream, (deal - 1) * DEAL, [
                NewEvent(event_type="card_played", data={"deal": deal, "trick": t, "card": "KH"})
                for t in range(DEAL)])
            receipt = sign_receipt(signer, stream, result.version, result.head_hash, "deal", deal)
            assert await store_receipt(pool, receipt)
            receipts.append(receipt)
        await settled(pool)
        assert await publish_checkpoint(pool, signer) is not None
    return receipts


async def superuser(connect):
    conn = await connect()
    await conn.execute("SET session_replication_role = replica")
    return conn


async def rehash(conn, stream: str, from_version: int) -> None:
    """Recompute the chain from `from_version` on, as someone covering their tracks would."""
    head = await conn.fetchval("SELECT max(version) FROM events WHERE stream_id = $1", stream)
    for v in range(from_version, head + 1):
        await conn.execute(
            """UPDATE events SET prev_hash = coalesce(
                   (SELECT hash FROM events WHERE stream_id = $1 AND version = $2 - 1), decode(repeat('00', 32), 'hex'))
                WHERE stream_id = $1 AND version = $2""", stream, v)
        await conn.execute(
            """UPDATE events SET hash = event_hash(prev_hash, stream_id, version, event_type, schema_version, data)
                WHERE stream_id = $1 AND version = $2""", stream, v)


def kinds(report) -> set[str]:
    return {f.kind for f in report.findings}


async def test_an_untouched_log_has_no_findings(pool, signer):
    receipts = await build_log(pool, signer)
    report = await verify_log(pool, signer.public_key_hex, receipts=receipts)
    assert report.findings == []
    assert (report.streams, report.events, report.receipts, report.checkpoints) == (3, 36, 9, 3)
    assert report.unanchored_events == 0
    assert (await verify_log(pool, signer.public_key_hex, stream="table-b")).findings == []


async def test_receipts_and_checkpoints_verify_and_are_stored_once(pool, signer):
    receipts = await build_log(pool, signer, deals=2)
    assert all(verify_receipt(signer.public_key_hex, r) for r in receipts)
    assert not await store_receipt(pool, receipts[0])  # idempotent on (stream, version, kind)
    assert await receipts_of(pool, "table-a") == [r for r in receipts if r.stream == "table-a"]
    assert await publish_checkpoint(pool, signer) is None  # nothing new
    first, second = await checkpoints(pool)
    assert (first.seq, first.size, second.seq, second.size) == (1, 12, 2, 24)
    assert verify_checkpoint(signer.public_key_hex, second)
    proof = await consistency(pool, first.size, second.size)
    assert verify_consistency(12, 24, bytes.fromhex(first.root), bytes.fromhex(second.root), proof)


async def test_two_publishers_never_race(pool, signer):
    await build_log(pool, signer, deals=1)
    for stream in STREAMS:
        await append_reporting(pool, stream, None, [NewEvent(event_type="x", data={})])
    await settled(pool)
    published = await asyncio.gather(*(publish_checkpoint(pool, signer) for _ in range(4)))
    assert sum(p is not None for p in published) == 1
    assert [c.size for c in await checkpoints(pool)] == [12, 15]


async def test_deleting_a_streams_last_events_is_named_a_truncation(pool, connect, signer):
    receipts = await build_log(pool, signer)
    conn = await superuser(connect)
    await conn.execute("DELETE FROM events WHERE stream_id = 'table-b' AND version > 5")
    assert await verify_stream(pool, "table-b") is None  # the chain alone sees nothing

    report = await verify_log(pool, signer.public_key_hex, receipts=receipts)
    truncations = [f for f in report.findings if f.kind == "truncated"]
    assert {(f.stream, f.versions) for f in truncations} == {("table-b", (6, 8)), ("table-b", (6, 12))}
    assert "stream table-b ends at version 5 but the deal 3 receipt signed version 12" in truncations[1].message
    assert "checkpoint_mismatch" in kinds(report)


async def test_a_rewrite_with_recomputed_hashes_is_named_by_receipt_and_checkpoint(pool, connect, signer):
    receipts = await build_log(pool, signer)
    conn = await superuser(connect)
    # Six cards of deal 2 of table-a (versions 5-8) replaced, the chain recomputed from there.
    await conn.execute("""UPDATE events SET data = jsonb_set(data, '{card}', '"7S"')
                           WHERE stream_id = 'table-a' AND version BETWEEN 5 AND 8""")
    await rehash(conn, "table-a", 5)
    assert await verify_stream(pool, "table-a") is None  # intact: every hash was recomputed

    report = await verify_log(pool, signer.public_key_hex, receipts=receipts)
    rewrites = {(f.stream, f.versions) for f in report.findings if f.kind == "rewritten"}
    # The deal 1 receipt (version 4) still matches, so the change lies in versions 5..8.
    assert rewrites == {("table-a", (5, 8)), ("table-a", (5, 12))}
    mismatch = [f for f in report.findings if f.kind == "checkpoint_mismatch"]
    # Checkpoint 1 (events 1..12) still matches; checkpoint 2 covers deal 2 of every stream.
    assert [f.events for f in mismatch] == [(13, 24), (13, 36)]
    assert "after checkpoint #1, which matches" in mismatch[0].message
    assert "stream table-a versions 5..8" in mismatch[0].message
    assert "chain_broken" not in kinds(report)


async def test_a_rewrite_without_recomputing_breaks_the_chain(pool, connect, signer):
    await build_log(pool, signer, deals=1)
    conn = await superuser(connect)
    await conn.execute("UPDATE events SET data = '{}' WHERE stream_id = 'table-c' AND version = 2")
    report = await verify_log(pool, signer.public_key_hex, stream="table-c")
    assert [(f.kind, f.stream, f.versions) for f in report.findings] == [("chain_broken", "table-c", (2, 2))]


async def test_a_deleted_middle_event_renumbered_is_named(pool, connect, signer):
    receipts = await build_log(pool, signer)
    conn = await superuser(connect)
    await conn.execute("DELETE FROM events WHERE stream_id = 'table-c' AND version = 7")
    for v in range(8, 13):
        await conn.execute("UPDATE events SET version = version - 1 WHERE stream_id = 'table-c' AND version = $1", v)
    await rehash(conn, "table-c", 7)
    assert await verify_stream(pool, "table-c") is None

    report = await verify_log(pool, signer.public_key_hex, receipts=receipts)
    assert {(f.kind, f.stream, f.versions) for f in report.findings if f.stream} == {
        ("rewritten", "table-c", (5, 8)),     # version 8 now holds what was version 9
        ("truncated", "table-c", (12, 12)),   # and the stream is one short
    }
    assert "checkpoint_mismatch" in kinds(report)


async def test_a_deleted_middle_event_left_as_a_gap_is_named(pool, connect, signer):
    receipts = await build_log(pool, signer)
    conn = await superuser(connect)
    await conn.execute("DELETE FROM events WHERE stream_id = 'table-a' AND version = 8")
    report = await verify_log(pool, signer.public_key_hex, receipts=receipts)
    assert ("missing_event", "table-a", (8, 8)) in {(f.kind, f.stream, f.versions) for f in report.findings}
    assert ("chain_broken", "table-a", (9, 9)) in {(f.kind, f.stream, f.versions) for f in report.findings}


async def test_a_forged_receipt_is_named(pool, signer, tmp_path):
    receipts = await build_log(pool, signer, deals=1)
    honest = receipts[0]
    forged = Receipt(stream=honest.stream, version=honest.version, hash="00" * 32, kind="game", ref="t1",
                     key_id=honest.key_id, signature=honest.signature)
    other = Signer.of(load_or_create_key(tmp_path / "other.pem"))
    foreign = sign_receipt(other, honest.stream, honest.version, honest.hash, "game", "t1")
    report = await verify_log(pool, signer.public_key_hex, receipts=[forged, foreign])
    assert [f.kind for f in report.findings] == ["bad_signature", "bad_signature"]
    assert "forged or altered" in report.findings[0].message
    assert f"signed by key {other.key_id}" in report.findings[1].message


async def test_deleted_anchor_rows_are_named_from_copies_kept_outside(pool, connect, signer):
    receipts = await build_log(pool, signer)
    kept = await checkpoints(pool)
    conn = await superuser(connect)
    await conn.execute("DELETE FROM events WHERE stream_id = 'table-a' AND version > 8")
    await conn.execute("DELETE FROM receipts WHERE stream_id = 'table-a'")
    await conn.execute("DELETE FROM checkpoints WHERE seq = 3")
    assert await verify_stream(pool, "table-a") is None
    # Without the outside copies the database alone looks clean: receipt and checkpoint are gone.
    assert (await verify_log(pool, signer.public_key_hex)).findings == []
    report = await verify_log(pool, signer.public_key_hex, receipts=receipts, checkpoints=kept)
    assert {"truncated", "missing_receipt", "missing_checkpoint", "checkpoint_mismatch"} <= kinds(report)


async def test_a_forged_checkpoint_is_named(pool, signer):
    await build_log(pool, signer, deals=1)
    (real,) = await checkpoints(pool)
    forged = SignedCheckpoint(seq=9, size=real.size, root="11" * 32, created_at=real.created_at,
                              key_id=real.key_id, signature=real.signature)
    report = await verify_log(pool, signer.public_key_hex, checkpoints=[forged])
    assert [f.kind for f in report.findings] == ["bad_signature"]


async def test_anchor_rows_refuse_update_and_delete(pool, signer):
    await build_log(pool, signer, deals=1)
    import asyncpg
    for sql in ("DELETE FROM receipts", "UPDATE checkpoints SET seq = 5", "TRUNCATE checkpoints"):
        with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
            await pool.execute(sql)


def test_the_key_file_is_private_and_reused(tmp_path):
    path = tmp_path / "keys" / "signing-key.pem"
    first = Signer.of(load_or_create_key(path))
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert Signer.of(load_or_create_key(path)).public_key_hex == first.public_key_hex
    assert len(first.key_id) == 16 and len(first.public_key_hex) == 64
    assert "PRIVATE" not in repr(first)


async def test_the_periodic_publisher_keeps_its_interval(pool, signer):
    from services.anchor import CheckpointPublisher

    publisher = CheckpointPublisher(every=3600, signer=signer)
    await append_reporting(pool, "table-a", 0, [NewEvent(event_type="x", data={})])
    assert (await publisher.tick(pool)).size == 1
    await append_reporting(pool, "table-a", 1, [NewEvent(event_type="x", data={})])
    assert await publisher.tick(pool) is None  # within the hour: the workers' next rounds wait
    due = CheckpointPublisher(every=0, signer=signer)   # one whose interval has passed: the held event goes out
    assert (await due.tick(pool)).size == 2


async def test_a_log_re_signed_after_a_rewrite_is_named_inconsistent(pool, connect, signer):
    receipts = await build_log(pool, signer)
    kept = await checkpoints(pool)
    conn = await superuser(connect)
    await conn.execute("UPDATE events SET data = '{}' WHERE stream_id = 'table-a' AND version = 2")
    await rehash(conn, "table-a", 2)
    await conn.execute("DELETE FROM checkpoints")
    await conn.execute("DELETE FROM receipts")
    await settled(pool)
    resigned = await publish_checkpoint(pool, signer)  # the key's holder signs the rewritten log afresh
    report = await verify_log(pool, signer.public_key_hex, checkpoints=kept[:2], receipts=receipts[:1])
    assert resigned.size == 36
    messages = [f.message for f in report.findings if f.kind == "inconsistent_checkpoints"]
    assert messages == ["checkpoint #1 (size 36) does not extend checkpoint #2 (size 24): the first 24 events "
                        "were changed before #1 was signed"]
    assert {"rewritten", "checkpoint_mismatch", "missing_receipt", "missing_checkpoint"} <= kinds(report)


async def test_a_receipts_copy_is_kept_once_and_its_quick_commit_stays_its_own(database_url, db_schema, signer):
    # The copy commits without waiting for the disk (it can be signed again from the log): that setting
    # must end with the copy's own transaction, not stay on the pooled connection for the next append.
    import asyncpg

    async with asyncpg.create_pool(database_url, min_size=1, max_size=1,
                                   server_settings={"search_path": db_schema}) as one:
        result = await append_reporting(one, "table-a", 0, [NewEvent(event_type="noted", data={"v": 1})])
        receipt = sign_receipt(signer, "table-a", result.version, result.head_hash, "deal", 1)
        assert await store_receipt(one, receipt)
        assert not await store_receipt(one, receipt)            # the same (stream, version, kind): kept once
        assert await one.fetchval("SHOW synchronous_commit") == "on"
        assert await receipts_of(one, "table-a") == [receipt]
        async with one.acquire() as conn, conn.transaction():   # inside a caller's transaction: a plain insert
            again = sign_receipt(signer, "table-a", result.version, result.head_hash, "game", "a")
            assert await store_receipt(conn, again)
            assert await conn.fetchval("SHOW synchronous_commit") == "on"
        assert [r.kind for r in await receipts_of(one, "table-a")] == ["deal", "game"]
