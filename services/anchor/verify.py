"""`verify_log`: check the log against its own hash chains, the signed receipts and the signed checkpoints.

The hash chains alone prove nothing against someone who can write to the database: they can delete a
stream's tail or rewrite an event and recompute every later hash with event_hash().  Receipts and
checkpoints are signed with a key the database never holds, so a change behind them shows as a stored
hash (or a Merkle root) that no longer matches what was signed.  Rows of `receipts` and `checkpoints`
can be deleted too, which is why copies kept outside (players' receipts, exported checkpoints) can be
passed in; each one missing from the database is itself a finding.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import asyncpg
import msgspec

from services.anchor.checkpoints import SignedCheckpoint, verify_checkpoint
from services.anchor.checkpoints import checkpoints as stored_checkpoints
from services.anchor.keys import key_id_of
from services.anchor.leaves import leaf_data, log_entries, log_leaves
from services.anchor.merkle import Frontier, consistency_proof, leaf_hash, verify_consistency
from services.anchor.receipts import Receipt, receipts_of, verify_receipt
from services.anchor.tree import RUN_LEVEL

Db = asyncpg.Pool | asyncpg.Connection

# Finding kinds, one word each: what went wrong, as a referee would say it.
CHAIN_BROKEN = "chain_broken"            # a stream's links do not hold (changed without recomputing)
TRUNCATED = "truncated"                  # a stream ends before a version that was signed
REWRITTEN = "rewritten"                  # a signed version now has another hash
MISSING_EVENT = "missing_event"          # a signed version is absent inside the stream
BAD_SIGNATURE = "bad_signature"          # a receipt or checkpoint not signed by this key
CHECKPOINT_MISMATCH = "checkpoint_mismatch"   # the log's first N events no longer give the signed root
INCONSISTENT = "inconsistent_checkpoints"     # two signed trees where one is not a prefix of the other
MISSING_RECEIPT = "missing_receipt"      # a receipt kept outside is not in the database
MISSING_CHECKPOINT = "missing_checkpoint"  # a checkpoint kept outside is not in the database
TREE_MISMATCH = "tree_mismatch"          # a stored subtree hash (log_tree) the log does not give, or missing


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    """One thing wrong: its kind, a sentence, and where (stream and versions, or events in read order)."""

    kind: str
    message: str
    stream: str | None = None
    versions: tuple[int, int] | None = None   # first and last version concerned, inclusive
    events: tuple[int, int] | None = None     # first and last event concerned, 1-based in read order


class VerifyReport(msgspec.Struct, kw_only=True):
    """What was checked and what was found; `ok` when nothing was."""

    public_key: str
    key_id: str
    stream: str | None
    streams: int
    events: int               # final events in the log (below the read horizon)
    receipts: int
    checkpoints: int
    unanchored_events: int    # events after the last checkpoint: only their hash chains protect them
    findings: list[Finding]

    @property
    def ok(self) -> bool:
        return not self.findings


def _short(hex_text: str) -> str:
    return hex_text[:16]


def _what(receipt: Receipt) -> str:
    return f"the {receipt.kind} {receipt.ref} receipt"


async def verify_log(db: Db, public_key_hex: str, *, stream: str | None = None,
                     receipts: Sequence[Receipt] | None = None,
                     checkpoints: Sequence[SignedCheckpoint] | None = None,
                     use_stored: bool = True) -> VerifyReport:
    """Check the whole log (or one stream) against hash chains, receipts and checkpoints.

    `receipts` and `checkpoints` are copies kept outside the database; `use_stored` False ignores the
    database's own copies.  Checkpoints cover the whole log, so they are checked for one stream too.
    """
    key_id = key_id_of(public_key_hex)
    findings: list[Finding] = []

    stored_receipts = await receipts_of(db, stream) if use_stored else []
    outside = [r for r in receipts or () if stream is None or r.stream == stream]
    all_receipts = _unique(stored_receipts + outside, lambda r: (r.stream, r.version, r.kind, r.hash, r.signature))
    stored_sigs = {r.signature for r in stored_receipts}

    # (a) every stream's hash chain, and where each stream ends now.
    if stream is None:
        names = [r[0] for r in await db.fetch("SELECT DISTINCT stream_id FROM events")]
    else:
        names = [stream]
    names = sorted(set(names) | {r.stream for r in all_receipts})
    rows = await db.fetch(
        """SELECT s, verify_stream(s), (SELECT coalesce(max(version), 0) FROM events WHERE stream_id = s)
             FROM unnest($1::text[]) AS s""", names)
    heads = {r[0]: r[2] for r in rows}
    for name, broken, _head in rows:
        if broken is not None:
            findings.append(Finding(
                kind=CHAIN_BROKEN, stream=name, versions=(broken, broken),
                message=f"stream {name}: the hash chain breaks at version {broken} (an event was changed, "
                        "removed or inserted there without recomputing the hashes)"))

    # (b) receipts: signed by this key, and the signed version still holds the signed hash.
    valid: list[Receipt] = []
    for r in all_receipts:
        if r.key_id != key_id:
            findings.append(Finding(kind=BAD_SIGNATURE, stream=r.stream, versions=(r.version, r.version),
                                    message=f"{_what(r)} of stream {r.stream} at version {r.version} is signed "
                                            f"by key {r.key_id}, not by this server's key {key_id}"))
        elif not verify_receipt(public_key_hex, r):
            findings.append(Finding(kind=BAD_SIGNATURE, stream=r.stream, versions=(r.version, r.version),
                                    message=f"{_what(r)} of stream {r.stream} at version {r.version} does not "
                                            f"carry a valid signature of key {key_id}: it is forged or altered"))
        else:
            valid.append(r)
            if use_stored and r.signature not in stored_sigs:
                findings.append(Finding(
                    kind=MISSING_RECEIPT, stream=r.stream, versions=(r.version, r.version),
                    message=f"{_what(r)} of stream {r.stream} at version {r.version} is validly signed but "
                            "not in the database's receipts table: it was deleted there"))
    receipt_findings = _check_receipts(await _hashes_at(db, valid), heads)
    findings.extend(receipt_findings)

    # (c) checkpoints: signed by this key, and the log's first N events still give the signed root.
    stored_cps = await stored_checkpoints(db) if use_stored else []
    all_cps = _unique(stored_cps + list(checkpoints or ()), lambda c: (c.size, c.root, c.signature))
    stored_cp_sigs = {c.signature for c in stored_cps}
    good_cps: list[SignedCheckpoint] = []
    for c in all_cps:
        if c.key_id != key_id or not verify_checkpoint(public_key_hex, c):
            signer = f"signed by key {c.key_id}, not by this server's key {key_id}" if c.key_id != key_id \
                else f"does not carry a valid signature of key {key_id}: it is forged or altered"
            findings.append(Finding(kind=BAD_SIGNATURE, events=(1, c.size),
                                    message=f"checkpoint #{c.seq} (size {c.size}) {signer}"))
            continue
        good_cps.append(c)
        if use_stored and c.signature not in stored_cp_sigs:
            findings.append(Finding(kind=MISSING_CHECKPOINT, events=(1, c.size),
                                    message=f"checkpoint #{c.seq} (size {c.size}) is validly signed but not in "
                                            "the database's checkpoints table: it was deleted there"))
    stored_nodes = await _stored_nodes(db) if use_stored else None
    cp_findings, total = await _check_checkpoints(db, good_cps, receipt_findings, stored_nodes)
    findings.extend(cp_findings)

    largest = max((c.size for c in good_cps), default=0)
    return VerifyReport(public_key=public_key_hex, key_id=key_id, stream=stream, streams=len(names),
                        events=total, receipts=len(all_receipts), checkpoints=len(all_cps),
                        unanchored_events=max(total - largest, 0), findings=findings)


def _unique(items: list, key) -> list:
    seen: dict = {}
    for item in items:
        seen.setdefault(key(item), item)
    return list(seen.values())


async def _hashes_at(db: Db, receipts: list[Receipt]) -> list[tuple[Receipt, bytes | None]]:
    rows = await db.fetch(
        """SELECT e.hash FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS r(s, v, k)
             LEFT JOIN events e ON e.stream_id = r.s AND e.version = r.v ORDER BY r.k""",
        [r.stream for r in receipts], [r.version for r in receipts])
    return [(r, row[0]) for r, row in zip(receipts, rows)]


def _check_receipts(pairs: list[tuple[Receipt, bytes | None]], heads: dict[str, int]) -> list[Finding]:
    """Findings for receipts whose signed version is gone or holds another hash."""
    findings: list[Finding] = []
    by_stream: dict[str, list[tuple[Receipt, bytes | None]]] = defaultdict(list)
    for pair in pairs:
        by_stream[pair[0].stream].append(pair)
    for name, items in sorted(by_stream.items()):
        head = heads.get(name, 0)
        # A receipt that still matches vouches for every version up to its own (the chain links them),
        # so a change lies after the last matching receipt below the failing one.
        last_good = 0
        for r, stored in sorted(items, key=lambda p: p[0].version):
            if stored is not None and stored.hex() == r.hash:
                last_good = max(last_good, r.version)
                continue
            if stored is None and r.version > head:
                ends = f"ends at version {head}" if head else "has no events"
                findings.append(Finding(
                    kind=TRUNCATED, stream=name, versions=(head + 1, r.version),
                    message=f"stream {name} {ends} but {_what(r)} signed version {r.version} "
                            f"(hash {_short(r.hash)}): versions {head + 1}..{r.version} were deleted"))
            elif stored is None:
                findings.append(Finding(
                    kind=MISSING_EVENT, stream=name, versions=(r.version, r.version),
                    message=f"stream {name} has no event at version {r.version}, which {_what(r)} signed "
                            f"(hash {_short(r.hash)}): it was deleted"))
            else:
                findings.append(Finding(
                    kind=REWRITTEN, stream=name, versions=(last_good + 1, r.version),
                    message=f"stream {name} at version {r.version} has hash {_short(stored.hex())} but "
                            f"{_what(r)} signed {_short(r.hash)}: versions {last_good + 1}..{r.version} were "
                            "rewritten (or one removed and the rest renumbered)"))
    return findings


async def _stored_nodes(db: Db) -> dict[tuple[int, int], tuple[bytes, int, int | None]] | None:
    """The stored subtrees (services/anchor/tree.py): (level, index) -> (hash, last tx_id, last position);
    None on a database not migrated that far (verify reads, it does not migrate)."""
    try:
        rows = await db.fetch("SELECT level, index, hash, last_tx_id, last_position FROM log_tree")
    except asyncpg.UndefinedTableError:
        return None
    return {(r[0], r[1]): (r[2], int(r[3] or 0), r[4]) for r in rows}


def _check_nodes(bad: set[tuple[int, int]], missing: set[tuple[int, int]]) -> list[Finding]:
    """Findings for stored subtrees that differ from the log (or are missing), by contiguous events.

    A changed event changes its run of 256 and every subtree above it; a changed row changes only itself.
    So only the lowest ones are named: those with no wrong subtree inside them.
    """
    above = set()
    for level, index in bad | missing:
        while level < 62:
            level, index = level + 1, index >> 1
            if (level, index) in above:
                break
            above.add((level, index))
    spans: list[list[int]] = []
    for level, index in sorted(((bad | missing) - above), key=lambda n: n[1] << n[0]):
        first, last = (index << level) + 1, (index + 1) << level
        if spans and first <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], last)
        else:
            spans.append([first, last])
    what = "missing or do not match the log" if missing and bad else "are missing" if missing else \
        "do not match the log"
    return [Finding(kind=TREE_MISMATCH, events=(first, last),
                    message=f"the stored subtree hashes (log_tree) over events {first}..{last} {what}: the log or "
                            "those rows were changed, and proofs served from them will not verify")
            for first, last in spans]


async def _check_checkpoints(db: Db, cps: list[SignedCheckpoint], receipt_findings: list[Finding],
                             stored_nodes: dict | None = None) -> tuple[list[Finding], int]:
    """Findings for signed roots the log no longer gives (and stored subtrees it does not give); also returns
    the number of final events."""
    findings: list[Finding] = []
    cps = sorted(cps, key=lambda c: (c.size, c.seq))
    for a, b in zip(cps, cps[1:]):
        if a.size == b.size and a.root != b.root:
            findings.append(Finding(kind=INCONSISTENT, events=(1, a.size),
                                    message=f"checkpoints #{a.seq} and #{b.seq} both sign {a.size} events "
                                            "with different roots: two versions of the log were signed"))
    # One pass over the log, keeping nothing but the frontier: it gives the root at every checkpoint's
    # size on the way, and every subtree of 256 leaves or more to compare with the stored ones.  Only a
    # failure reads the log again (streams of a range, a consistency proof).
    roots: dict[int, bytes] = {}
    wanted = {c.size for c in cps}
    frontier = Frontier()
    nodes = dict(stored_nodes or {})
    runs = 1 + max((i for (level, i) in nodes if level == RUN_LEVEL), default=-1)
    bad: set[tuple[int, int]] = set()
    missing: set[tuple[int, int]] = set()
    run_mask = (1 << RUN_LEVEL) - 1
    async for rows in log_entries(db):
        for r in rows:
            leaf = leaf_hash(leaf_data(r[0], r[1], r[2]))
            if stored_nodes is None or (frontier.size + 1) & run_mask:
                frontier.append(leaf)
            else:
                for level, index, node in frontier.append_subtrees(leaf, RUN_LEVEL):
                    stored = nodes.pop((level, index), None)
                    if stored is None:
                        if (index + 1) << level <= runs << RUN_LEVEL:  # inside what the rows claim to cover
                            missing.add((level, index))
                    elif stored[0] != node or (level == RUN_LEVEL and (stored[1], stored[2]) != (int(r[3]), r[4])):
                        bad.add((level, index))
            if frontier.size in wanted:
                roots[frontier.size] = frontier.root()
    total = frontier.size
    bad.update(nodes)  # stored over events the log no longer has
    findings.extend(_check_nodes(bad, missing))

    matched: dict[int, bool] = {}
    last_good: SignedCheckpoint | None = None
    for c in cps:
        root_now = roots.get(c.size)
        if root_now is not None and root_now.hex() == c.root:
            matched[c.seq] = True
            last_good = c
            if c.frontier and Frontier(c.size, [bytes.fromhex(h) for h in c.frontier]).root().hex() != c.root:
                findings.append(Finding(kind=CHECKPOINT_MISMATCH, events=(1, c.size),
                                        message=f"checkpoint #{c.seq}: its stored frontier does not give its "
                                                "signed root, so the next checkpoint would extend a wrong tree"))
            continue
        matched[c.seq] = False
        start = (last_good.size if last_good else 0) + 1
        after = f"after checkpoint #{last_good.seq}, which matches" if last_good else "no earlier checkpoint matches"
        if root_now is None:
            what = (f"the log now holds only {total} final events but checkpoint #{c.seq} signed {c.size}: "
                    "events were deleted")
        else:
            what = (f"the first {c.size} events now hash to {_short(root_now.hex())} but checkpoint #{c.seq} "
                    f"signed {_short(c.root)}")
        streams = await _streams_between(db, start, c.size)
        place = f"; the change lies among events {start}..{c.size} in read order ({after})"
        if streams:
            place += f", now in stream{'s' if len(streams) > 1 else ''} {', '.join(streams[:5])}" + (
                f" and {len(streams) - 5} more" if len(streams) > 5 else "")
        # Per stream, the narrowest range a receipt gives (the earliest failing receipt).
        pinned = {}
        for f in receipt_findings:
            if (f.stream in streams or root_now is None) and f.stream not in pinned:
                pinned[f.stream] = f
        pinned = list(pinned.values())
        if pinned:
            place += "; receipts pin it to " + "; ".join(
                f"stream {f.stream} versions {f.versions[0]}..{f.versions[1]}" for f in pinned[:5])
        findings.append(Finding(kind=CHECKPOINT_MISMATCH, events=(start, c.size), message=what + place))

    # Consecutive signed trees must extend each other.  Where both match the log they do by construction
    # (the log's own proof links them), so a proof is only needed where the older one no longer matches
    # but the newer does: then the newer was signed over a log already changed (a forked history).
    for a, b in zip(cps, cps[1:]):
        if a.size < b.size and matched[b.seq] and not matched[a.seq]:
            proof = consistency_proof(a.size, await log_leaves(db, b.size))
            if not verify_consistency(a.size, b.size, bytes.fromhex(a.root), bytes.fromhex(b.root), proof):
                findings.append(Finding(
                    kind=INCONSISTENT, events=(1, a.size),
                    message=f"checkpoint #{b.seq} (size {b.size}) does not extend checkpoint #{a.seq} "
                            f"(size {a.size}): the first {a.size} events were changed before #{b.seq} "
                            "was signed"))
    return findings, total


async def _streams_between(db: Db, first: int, last: int) -> list[str]:
    """The streams of the log's events `first`..`last` (1-based, read order) as they are now."""
    rows = await db.fetch(
        """SELECT DISTINCT stream_id FROM (
               SELECT stream_id FROM events WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
                ORDER BY tx_id, position OFFSET $1 LIMIT $2) AS changed ORDER BY 1""",
        first - 1, last - first + 1)
    return [r[0] for r in rows]
