"""The anchored log, published: the signing key, the signed checkpoints, consistency and inclusion proofs.

All of it is public: a checkpoint is only worth something if people outside the server keep copies,
so these routes need no token.  Proofs are computed from the stored subtrees of the log's Merkle tree
(services/anchor/tree.py): one query for at most ~2 log2(n) rows and one for at most 512 events, so they
stay on the event loop (about a millisecond of CPU each; see bench/anchor.py), and each answer is kept in a
bounded per-process cache, since the tree of a checkpoint's size never changes.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Annotated, Any

from litestar import Router, get
from litestar.datastructures import State
from litestar.params import QueryParameter

from services.anchor.checkpoints import (
    MAX_PAGE_LIMIT,
    PAGE_LIMIT,
    checkpoints_page,
)
from services.anchor.keys import ALGORITHM
from services.anchor.leaves import leaf_data
from services.anchor.merkle import leaf_hash
from services.anchor.sizes import check_sizes
from services.anchor.tree import TreeNotReady, consistency, inclusion, leaf_index
from services.api.deps import Pool, ServerSigner
from services.api.problems import Problem
from services.api.schemas_log import SigningKey, Checkpoints, ConsistencyProof, InclusionProof

PROOF_CACHE_SIZE = 4096      # answers kept per process (each well under 3 kB)
NOT_READY_RETRY_SECONDS = 60
# The largest numbers the database takes (bigint: checkpoints' seq and tree sizes; integer: an event's version):
# a number beyond is a 400 naming the parameter, never a 500 from the driver.
BIGINT, INTEGER = 2**63 - 1, 2**31 - 1


class _Lru:
    """A bounded cache of proofs, least recently used first out."""

    def __init__(self, size: int) -> None:
        self.size, self.items = size, OrderedDict()

    def get(self, key: Any) -> Any:
        value = self.items.get(key)
        if value is not None:
            self.items.move_to_end(key)
        return value

    def put(self, key: Any, value: Any) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


def _cache(state: State) -> _Lru:
    cache = state.get("log_proofs")
    if cache is None:
        cache = state["log_proofs"] = _Lru(PROOF_CACHE_SIZE)
    return cache


def _not_ready(exc: TreeNotReady) -> Problem:
    problem = Problem(503, "proofs_unavailable", f"{exc}; retry in a minute", title="proofs not available yet")
    problem.headers = {"Retry-After": str(NOT_READY_RETRY_SECONDS)}
    return problem


@get("/key", operation_id="logKey", summary="The public key that signs receipts and checkpoints",
     exclude_from_auth=True)
async def log_key(signer: ServerSigner) -> SigningKey:
    return SigningKey(algorithm=ALGORITHM, public_key=signer.public_key_hex, key_id=signer.key_id)


@get("/checkpoints", operation_id="logCheckpoints",
     summary="The signed checkpoints of the log, oldest first, a page after checkpoint `after`",
     exclude_from_auth=True)
async def log_checkpoints(pool: Pool, signer: ServerSigner,
                          after: Annotated[int, QueryParameter(ge=0, le=BIGINT)] = 0,
                          limit: Annotated[int, QueryParameter(ge=1, le=MAX_PAGE_LIMIT)] = PAGE_LIMIT
                          ) -> Checkpoints:
    found, cursor = await checkpoints_page(pool, after, limit)
    return Checkpoints(key_id=signer.key_id, checkpoints=found, next=cursor)


@get("/checkpoints/consistency", operation_id="logConsistency", refuses=(404,),
     summary="A consistency proof between two checkpoint sizes", exclude_from_auth=True)
async def log_consistency(pool: Pool, state: State,
                          from_size: Annotated[int, QueryParameter(name="from", ge=0, le=BIGINT)],
                          to_size: Annotated[int, QueryParameter(name="to", ge=1, le=BIGINT)]) -> ConsistencyProof:
    if from_size > to_size:
        raise Problem(400, "invalid_field", f"from ({from_size}) must not exceed to ({to_size})", field="from")
    cache = _cache(state)
    key = ("consistency", from_size, to_size)
    if (answer := cache.get(key)) is not None:
        return answer
    # Only sizes a checkpoint has covered are final (beyond, the order of events is not settled yet), and
    # a proof is of use only against two signed roots.
    await check_sizes(pool, to=to_size, **{"from": from_size})
    try:
        proof = await consistency(pool, from_size, to_size)
    except TreeNotReady as exc:
        raise _not_ready(exc) from None
    answer = ConsistencyProof(from_size=from_size, to_size=to_size, proof=[h.hex() for h in proof])
    cache.put(key, answer)
    return answer


@get("/checkpoints/inclusion", operation_id="logInclusion", refuses=(404,),
     summary="An inclusion proof of one event in the tree of a checkpoint's size", exclude_from_auth=True)
async def log_inclusion(pool: Pool, state: State,
                        size: Annotated[int, QueryParameter(ge=1, le=BIGINT)],
                        index: Annotated[int | None, QueryParameter(ge=0, le=BIGINT)] = None,
                        stream: Annotated[str | None, QueryParameter()] = None,
                        version: Annotated[int | None, QueryParameter(ge=1, le=INTEGER)] = None,
                        hash: Annotated[str | None, QueryParameter(pattern="^[0-9a-f]{64}$")] = None,
                        ) -> InclusionProof:
    """By `index` (0-based, read order), or by the event: `stream`, `version` and its chain `hash` (as in a
    receipt), which it must hold — otherwise the answer is 404, saying nothing about the stream."""
    by_event = (stream, version, hash)
    if (index is None) == all(v is None for v in by_event) or (index is None and None in by_event):
        raise Problem(400, "invalid_field", "give either index, or stream, version and hash", field="index")
    if index is not None and index >= size:
        raise Problem(400, "invalid_field", f"index ({index}) must be below size ({size})", field="index")
    cache = _cache(state)
    key = ("inclusion", size, index, stream, version, hash)
    if (answer := cache.get(key)) is not None:
        return answer
    await check_sizes(pool, size=size)
    unknown = Problem(404, "unknown_event", f"the tree of {size} events holds no event {stream} version "
                      f"{version} with chain hash {(hash or '')[:16]}…", field="stream")
    try:
        found = index if index is not None else await leaf_index(pool, stream, version, bytes.fromhex(hash), size)
        if found is None:
            raise unknown
        leaf, path = await inclusion(pool, found, size)
    except TreeNotReady as exc:
        raise _not_ready(exc) from None
    if index is None and leaf != leaf_hash(leaf_data(stream, version, bytes.fromhex(hash))):
        raise unknown  # never expected: the index found must hold that very event
    answer = InclusionProof(index=found, size=size, leaf_hash=leaf.hex(), proof=[h.hex() for h in path])
    cache.put(key, answer)
    return answer


log_router = Router(path="/log", route_handlers=[log_key, log_checkpoints, log_consistency, log_inclusion],
                    tags=["log"])
