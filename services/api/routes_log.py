"""The anchored log, published: the signing key, the signed checkpoints and consistency proofs.

All of it is public: a checkpoint is only worth something if people outside the server keep copies,
so these routes need no token.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Router, get
from litestar.params import QueryParameter

from services.anchor.checkpoints import SignedCheckpoint, checkpoints, consistency
from services.anchor.keys import ALGORITHM
from services.api.deps import Pool, ServerSigner
from services.api.problems import Problem


class SigningKey(msgspec.Struct):
    """The server's public key: receipts and checkpoints verify against it."""

    algorithm: str
    public_key: str      # raw 32 bytes, hex
    key_id: str          # first 16 hex digits of sha256(public key)


class Checkpoints(msgspec.Struct):
    key_id: str
    checkpoints: list[SignedCheckpoint]    # `last_*`: the last event each one covers, in read order


class ConsistencyProof(msgspec.Struct):
    """RFC 9162 proof that the tree of `from_size` events is a prefix of the tree of `to_size`."""

    from_size: int
    to_size: int
    proof: list[str]


@get("/key", operation_id="logKey", summary="The public key that signs receipts and checkpoints",
     exclude_from_auth=True)
async def log_key(signer: ServerSigner) -> SigningKey:
    return SigningKey(algorithm=ALGORITHM, public_key=signer.public_key_hex, key_id=signer.key_id)


@get("/checkpoints", operation_id="logCheckpoints", summary="The signed checkpoints of the log, oldest first",
     exclude_from_auth=True)
async def log_checkpoints(pool: Pool, signer: ServerSigner) -> Checkpoints:
    found = await checkpoints(pool)
    return Checkpoints(key_id=signer.key_id, checkpoints=found)


@get("/checkpoints/consistency", operation_id="logConsistency",
     summary="A consistency proof between two checkpoint sizes", exclude_from_auth=True)
async def log_consistency(pool: Pool,
                          from_size: Annotated[int, QueryParameter(name="from", ge=0)],
                          to_size: Annotated[int, QueryParameter(name="to", ge=1)]) -> ConsistencyProof:
    if from_size > to_size:
        raise Problem(400, "invalid_field", f"from ({from_size}) must not exceed to ({to_size})", field="from")
    # Only sizes a checkpoint has covered are final: beyond, the order of events is not settled yet.
    largest = await pool.fetchval("SELECT coalesce(max(tree_size), 0) FROM checkpoints")
    if to_size > largest:
        raise Problem(400, "invalid_field", f"to ({to_size}) is beyond the latest checkpoint ({largest} events)",
                      field="to")
    proof = await consistency(pool, from_size, to_size)
    return ConsistencyProof(from_size=from_size, to_size=to_size, proof=[h.hex() for h in proof])


log_router = Router(path="/log", route_handlers=[log_key, log_checkpoints, log_consistency], tags=["log"])
