"""What an audit of one stored deal or game says of the anchored log: its signed receipt against the stored
head, and its last event against the latest signed checkpoint (an inclusion proof to the signed root), as
``baloot verify`` checks the whole log. Whoever rewrote the stored events and recomputed every hash still
fails both: the receipt signs the head hash of then, the checkpoint the root of then."""

from __future__ import annotations

from typing import Literal

import asyncpg
import msgspec

from services.anchor.checkpoints import latest, verify_checkpoint
from services.anchor.leaves import leaf_data
from services.anchor.merkle import leaf_hash, verify_inclusion
from services.anchor.receipts import Receipt, verify_receipt
from services.anchor.tree import TreeNotReady, inclusion, leaf_index
from services.eventstore import head_hash


ReceiptFinding = Literal["matches", "missing", "bad_signature", "rewritten"]
CheckpointFinding = Literal["included", "not_covered", "building", "bad_signature", "rewritten"]


class AnchorCheck(msgspec.Struct, frozen=True, kw_only=True):
    """What was checked and found, as a code (``receipt``, ``checkpoint``) and in words (``*_detail``);
    ``ok``: nothing found wrong (a deal no receipt or checkpoint covers yet is not wrong)."""

    ok: bool
    receipt: ReceiptFinding
    receipt_detail: str
    checkpoint: CheckpointFinding
    checkpoint_detail: str


async def check_anchor(db: asyncpg.Pool | asyncpg.Connection, public_key_hex: str, stream: str, version: int,
                       receipt: Receipt | None) -> AnchorCheck:
    """The anchor of ``stream`` at ``version`` (the last event of a deal or a game) and its ``receipt``."""
    stored = await head_hash(db, stream, version)
    found = _receipt_finding(public_key_hex, version, stored, receipt)
    checkpoint = await _checkpoint_finding(db, public_key_hex, stream, version, stored)
    return AnchorCheck(ok=found[0] in ("matches", "missing") and checkpoint[0] in ("included", "not_covered",
                                                                                  "building"),
                       receipt=found[0], receipt_detail=found[1], checkpoint=checkpoint[0],
                       checkpoint_detail=checkpoint[1])


def _receipt_finding(public_key_hex: str, version: int, stored: bytes | None, receipt: Receipt | None
                     ) -> tuple[ReceiptFinding, str]:
    if receipt is None:
        return "missing", "no signed receipt of it"
    if not verify_receipt(public_key_hex, receipt):
        return "bad_signature", "the receipt's signature does NOT verify under the server's key"
    if receipt.version != version or stored is None or stored.hex() != receipt.hash:
        return "rewritten", (f"the stored stream does NOT give the hash the receipt signed at version "
                             f"{receipt.version}: it was rewritten after it was signed")
    return "matches", f"the signed receipt matches the stored head at version {version}"


async def _checkpoint_finding(db, public_key_hex: str, stream: str, version: int, stored: bytes | None
                              ) -> tuple[CheckpointFinding, str]:
    checkpoint = await latest(db)
    size = checkpoint.size if checkpoint is not None else 0
    not_covered: tuple[CheckpointFinding, str] = ("not_covered", "no signed checkpoint covers it yet")
    if stored is None or size == 0:
        return not_covered
    try:
        index = await leaf_index(db, stream, version, stored, size)
        if index is None:
            return not_covered
        leaf, path = await inclusion(db, index, size)
    except TreeNotReady:
        return "building", "the checkpoints' proofs are being built; ask again in a minute"
    if not verify_checkpoint(public_key_hex, checkpoint):
        return "bad_signature", f"the checkpoint of {size} events does NOT verify under the server's key"
    if leaf != leaf_hash(leaf_data(stream, version, stored)) or not verify_inclusion(
            index, size, leaf, path, bytes.fromhex(checkpoint.root)):
        return "rewritten", f"the event is NOT in signed checkpoint #{checkpoint.seq} as stored: the log was rewritten"
    return "included", f"in signed checkpoint #{checkpoint.seq} ({size} events): its inclusion proof verifies"
