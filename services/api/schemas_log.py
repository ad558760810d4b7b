"""The public log on the wire: the signing key, checkpoints and proofs of ``routes_log``."""

from __future__ import annotations

import msgspec

from services.anchor.checkpoints import SignedCheckpoint


class SigningKey(msgspec.Struct):
    """The server's public key: receipts and checkpoints verify against it."""

    algorithm: str
    public_key: str      # raw 32 bytes, hex
    key_id: str          # first 16 hex digits of sha256(public key)


class Checkpoints(msgspec.Struct, omit_defaults=True):
    """A page of the signed checkpoints, oldest first; `next` (absent on the last page) is the `after` of the next."""

    key_id: str
    checkpoints: list[SignedCheckpoint]    # `last_*`: the last event each one covers, in read order
    next: int | None = None


class ConsistencyProof(msgspec.Struct):
    """RFC 9162 proof that the tree of `from_size` events is a prefix of the tree of `to_size`."""

    from_size: int
    to_size: int
    proof: list[str]


class InclusionProof(msgspec.Struct):
    """RFC 9162 audit path (bottom up) of leaf `index` (0-based, read order) in the tree of `size` events.

    `leaf_hash` is sha256(0x00 || leaf data), the leaf data being the compact JSON array
    [stream_id, version, hash hex] of the event; verify with `merkle.verify_inclusion`.
    """

    index: int
    size: int
    leaf_hash: str
    proof: list[str]
