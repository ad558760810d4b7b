"""Proofs from the stored subtrees (services/anchor/tree.py) against the full recomputation from the events.

Logs of a few thousand events, checkpointed at random sizes (seeded), so that subtrees of levels 8 to 12 are
stored and proofs mix stored subtrees with the runs of 256 events hashed on the spot.
"""

from __future__ import annotations

import random

import asyncpg
import pytest

from services.anchor import (
    checkpoints,
    consistency,
    inclusion,
    publish_checkpoint,
    tree,
    verify_log,
)
from services.anchor.checkpoints import consistency_from_events
from services.anchor.keys import Signer, load_or_create_key, public_key_raw
from services.anchor.leaves import leaf_data, log_leaves
from services.anchor.merkle import (
    consistency_proof,
    consistency_ranges,
    inclusion_proof,
    leaf_hash,
    perfect_subtrees,
    root,
    verify_consistency,
    verify_inclusion,
)
from services.db import schema_url
from services.eventstore import NewEvent, append
from services.eventstore.migrations import migrate
from tests.anchor.test_tamper import settled, superuser
from tests.eventstore import test_previous_release as previous

STREAMS = [f"t-{i}" for i in range(5)]


@pytest.fixture
def signer(tmp_path) -> Signer:
    return Signer.of(load_or_create_key(tmp_path / "signing-key.pem"))


@pytest.fixture
async def previous_release(database_url, db_schema) -> str:
    """The test's schema holding the previous release's dump (tests/data/previous-release): checkpoints
    published before the subtrees were stored."""
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute(f'DROP SCHEMA "{db_schema}" CASCADE; CREATE SCHEMA "{db_schema}"')
        await previous.restore(conn, db_schema)
    finally:
        await conn.close()
    return schema_url(database_url, db_schema)


async def grow_log(pool, signer, sizes: list[int], rng: random.Random, versions: dict[str, int]) -> list:
    """Append events (to random streams, in random batches) until the log holds each of `sizes` events,
    publishing a checkpoint at exactly each; returns the checkpoints."""
    published = []
    total = sum(versions.values())
    for size in sizes:
        while total < size:
            stream = rng.choice(STREAMS)
            n = min(size - total, rng.randint(1, 300))
            versions[stream] = await append(pool, stream, versions.get(stream, 0),
                                            [NewEvent(event_type="card_played", data={"k": total + i})
                                             for i in range(n)])
            total += n
        await settled(pool)
        checkpoint = await publish_checkpoint(pool, signer)
        assert checkpoint is not None and checkpoint.size == size
        published.append(checkpoint)
    return published


def random_sizes(rng: random.Random, count: int, top: int) -> list[int]:
    edges = [255, 256, 257, 511, 512, 1024, 2047, 2048]   # at and around the stored levels' boundaries
    picks = {rng.choice(edges) for _ in range(2)} | {rng.randint(1, top) for _ in range(count)}
    return sorted(picks)


async def stored_rows(pool) -> list[tuple]:
    return [tuple(r) for r in await pool.fetch("SELECT * FROM log_tree ORDER BY level, index")]


@pytest.mark.parametrize("seed", range(8))
async def test_proofs_from_stored_subtrees_equal_the_full_recomputation(pool, signer, seed):
    rng = random.Random(seed)
    cps = await grow_log(pool, signer, random_sizes(rng, 5, 5000), rng, {})
    leaves = await log_leaves(pool)
    largest = cps[-1].size
    assert await tree.stored_runs(pool) == largest >> 8
    assert len(await stored_rows(pool)) == sum(largest >> level for level in range(8, 63))

    sizes = [c.size for c in cps]
    roots = {c.size: bytes.fromhex(c.root) for c in cps}
    pairs = [(m, n) for n in sizes for m in [0, *sizes] if m <= n]
    pairs += [(rng.randint(0, n), n) for n in sizes for _ in range(15)]       # any m below a checkpoint
    pairs += [(rng.randint(0, largest), largest) for _ in range(15)]
    for m, n in pairs:
        proof = await consistency(pool, m, n)
        assert proof == consistency_proof(m, leaves[:n]), (seed, m, n)
        assert verify_consistency(m, n, root(leaves[:m]), roots.get(n, root(leaves[:n])), proof)
    for n in sizes:
        for index in {0, n - 1, *(rng.randrange(n) for _ in range(12))}:
            leaf, path = await inclusion(pool, index, n)
            assert (leaf, path) == (leaves[index], inclusion_proof(index, leaves[:n])), (seed, index, n)
            assert verify_inclusion(index, n, leaf, path, roots[n])


async def test_a_larger_log_and_the_rows_a_proof_reads(pool, signer):
    rng = random.Random(99)
    cps = await grow_log(pool, signer, [9_000, 20_000, 33_333], rng, {})
    leaves = await log_leaves(pool)
    for m, n in [(9_000, 20_000), (9_000, 33_333), (20_000, 33_333), (1, 33_333), (32_768, 33_333)]:
        assert await consistency(pool, m, n) == consistency_proof(m, leaves[:n])
    assert await consistency(pool, 9_000, 33_333) == await consistency_from_events(pool, 9_000, 33_333)
    # Every proof needs at most two runs of 256 events and about 2 log2(n) stored rows.
    for m, n in [(rng.randint(0, 33_333), 33_333) for _ in range(200)]:
        pieces = {p for lo, hi in consistency_ranges(m, n) for p in perfect_subtrees(lo, hi)}
        assert len({(i << level) >> 8 for level, i in pieces if level < 8}) <= 2
        assert len([p for p in pieces if p[0] >= 8]) <= 2 * n.bit_length()
    index = 31_000
    leaf, path = await inclusion(pool, index, cps[-1].size)
    assert verify_inclusion(index, cps[-1].size, leaf, path, bytes.fromhex(cps[-1].root))


async def test_an_event_is_found_by_stream_version_and_hash(pool, signer):
    rng = random.Random(7)
    versions: dict[str, int] = {}
    cps = await grow_log(pool, signer, [700, 1300], rng, versions)
    rows = await pool.fetch("SELECT stream_id, version, hash FROM events ORDER BY tx_id, position")
    for index in [0, 255, 256, 699, 700, 1299, *(rng.randrange(1300) for _ in range(10))]:
        stream, version, hash = rows[index]
        assert await tree.leaf_index(pool, stream, version, hash, 1300) == index
        assert leaf_hash(leaf_data(stream, version, hash)) == (await inclusion(pool, index, 1300))[0]
        expected = index if index < 700 else None
        assert await tree.leaf_index(pool, stream, version, hash, 700) == expected
    stream, version, hash = rows[5]
    assert await tree.leaf_index(pool, stream, version, b"\0" * 32, 1300) is None
    assert await tree.leaf_index(pool, stream, 10_000, hash, 1300) is None
    assert [c.size for c in cps] == [700, 1300]


async def test_a_database_without_stored_subtrees_is_backfilled_to_the_same_proofs(pool, connect, signer):
    rng = random.Random(3)
    versions: dict[str, int] = {}
    cps = await grow_log(pool, signer, [600, 1800, 4100], rng, versions)
    before = await stored_rows(pool)
    proofs = {(m, n): await consistency(pool, m, n) for m in (0, 600, 1800, 333) for n in (1800, 4100)}
    paths = {(i, n): await inclusion(pool, i, n) for i in (0, 599, 1000, 1799) for n in (1800, 4100)}

    conn = await superuser(connect)  # as a database of the release before the subtrees were stored
    await conn.execute("DELETE FROM log_tree")
    with pytest.raises(tree.TreeNotReady):
        await consistency(pool, 600, 1800)
    # A tree within the first run of 256 events needs no stored row: it is answered before the backfill too.
    assert await consistency(pool, 10, 200) == consistency_proof(10, await log_leaves(pool, 200))
    # In segments (of two runs here), as `publish_checkpoint` does at its first run: resumable, same rows.
    assert await tree.backfill(pool, segment=512) == (4100 >> 8) << 8
    assert await stored_rows(pool) == before
    assert await tree.backfill(pool) == 0                   # once: afterwards nothing is read
    assert {k: await consistency(pool, *k) for k in proofs} == proofs
    assert {k: await inclusion(pool, *k) for k in paths} == paths

    # And by the publisher itself, with checkpoints published by an older release (no subtrees) on top.
    await conn.execute("DELETE FROM log_tree WHERE (index + 1) << level > 3 * 256")
    assert await publish_checkpoint(pool, signer) is None   # nothing new, but the subtrees are stored
    assert await stored_rows(pool) == before
    await grow_log(pool, signer, [4500], rng, versions)
    assert (await verify_log(pool, signer.public_key_hex)).findings == []
    assert [c.size for c in cps] == [600, 1800, 4100]


async def test_a_changed_subtree_row_fails_the_proof_and_verify_names_it(pool, connect, signer):
    rng = random.Random(5)
    cps = await grow_log(pool, signer, [1000, 2600], rng, {})
    first, second = (bytes.fromhex(c.root) for c in cps)
    assert verify_consistency(1000, 2600, first, second, await consistency(pool, 1000, 2600))
    conn = await superuser(connect)
    honest = await conn.fetchval("SELECT hash FROM log_tree WHERE level = 8 AND index = 2")
    # The subtree of leaves 512..767 (level 8, index 2) is in the proof from 1000 to 2600 and in the path of 900.
    await conn.execute("UPDATE log_tree SET hash = sha256(hash) WHERE level = 8 AND index = 2")
    assert not verify_consistency(1000, 2600, first, second, await consistency(pool, 1000, 2600))
    leaf, path = await inclusion(pool, 900, 2600)
    assert not verify_inclusion(900, 2600, leaf, path, second)
    report = await verify_log(pool, signer.public_key_hex)
    assert [(f.kind, f.events) for f in report.findings] == [("tree_mismatch", (513, 768))]
    assert "do not match the log" in report.findings[0].message

    # An upper row changed alone (level 10: leaves 0..1023) is named alone, not the runs below it.
    await conn.execute("UPDATE log_tree SET hash = $1 WHERE level = 8 AND index = 2", honest)
    await conn.execute("UPDATE log_tree SET hash = sha256(hash) WHERE level = 10 AND index = 0")
    leaf, path = await inclusion(pool, 2000, 2600)   # the subtree of leaves 0..1023 is its last node
    assert not verify_inclusion(2000, 2600, leaf, path, second)
    report = await verify_log(pool, signer.public_key_hex)
    assert [(f.kind, f.events) for f in report.findings] == [("tree_mismatch", (1, 1024))]

    # A run that names another last event (where the next run's events start) is named too.
    await conn.execute("UPDATE log_tree SET hash = sha256(hash) WHERE level = 10 AND index = 0")
    await conn.execute("UPDATE log_tree SET last_position = last_position + 1 WHERE level = 8 AND index = 5")
    report = await verify_log(pool, signer.public_key_hex)
    assert [(f.kind, f.events) for f in report.findings][-1] == ("tree_mismatch", (1281, 1536))


async def test_a_rewritten_event_is_named_in_its_run_and_checkpoint(pool, connect, signer):
    rng = random.Random(11)
    await grow_log(pool, signer, [1100], rng, {})
    conn = await superuser(connect)
    position = await conn.fetchval("SELECT position FROM events ORDER BY tx_id, position OFFSET 300 LIMIT 1")
    await conn.execute("UPDATE events SET hash = sha256(hash) WHERE position = $1", position)
    report = await verify_log(pool, signer.public_key_hex)
    spans = {f.kind: f.events for f in report.findings}
    assert spans["tree_mismatch"] == (257, 512)    # event 301 is in the run of events 257..512
    assert spans["checkpoint_mismatch"] == (1, 1100)


async def test_deleted_subtree_rows_answer_not_ready_and_are_named_missing(pool, connect, signer):
    rng = random.Random(13)
    await grow_log(pool, signer, [1500], rng, {})
    conn = await superuser(connect)
    await conn.execute("DELETE FROM log_tree WHERE level = 9 AND index = 1")
    with pytest.raises(tree.TreeNotReady):
        await consistency(pool, 512, 1500)   # [512, 1024) is a node of that proof
    report = await verify_log(pool, signer.public_key_hex)
    assert [(f.kind, f.events) for f in report.findings] == [("tree_mismatch", (513, 1024))]
    assert "are missing" in report.findings[0].message
    assert len(await checkpoints(pool)) == 1


async def test_the_previous_release_database_is_backfilled_and_its_proofs_verify(previous_release):
    async with asyncpg.create_pool(previous_release, min_size=1, max_size=2) as pool:
        await migrate(pool)
        cps = await checkpoints(pool)
        largest = cps[-1].size
        assert largest > 1024 and await tree.stored_runs(pool) == 0
        with pytest.raises(tree.TreeNotReady):
            await consistency(pool, cps[0].size, largest)
        assert await tree.backfill(pool) == (largest >> 8) << 8
        leaves = await log_leaves(pool)
        for a in cps:
            for b in cps:
                if a.size <= b.size:
                    proof = await consistency(pool, a.size, b.size)
                    assert proof == consistency_proof(a.size, leaves[:b.size])
                    assert verify_consistency(a.size, b.size, bytes.fromhex(a.root), bytes.fromhex(b.root), proof)
        for index in (0, 255, 256, 1023, 1024, largest - 1):
            leaf, path = await inclusion(pool, index, largest)
            assert verify_inclusion(index, largest, leaf, path, bytes.fromhex(cps[-1].root))
        key = public_key_raw(load_or_create_key(previous.DATA / "signing-key.pem")).hex()
        assert (await verify_log(pool, key)).findings == []
