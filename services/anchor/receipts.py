"""Receipts: the server's signature over a stream's head at the end of a deal or a game, and after a
referee's ruling.

Signed bytes: ``b"baloot-receipt/1\\n"`` followed by the compact JSON array
``[stream, version, hash, kind, ref]`` (hash in lower-case hex, as msgspec writes JSON: no spaces,
UTF-8).  A receipt given to the four players and put in the hand record lets anyone later show that the
stream had exactly this head, even if the database and every hash in it were rewritten since.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import asyncpg
import msgspec

from services.anchor.keys import Signer, verify_signature

Db = asyncpg.Pool | asyncpg.Connection
Kind = Literal["deal", "game", "ruling"]

RECEIPT_DOMAIN = b"baloot-receipt/1\n"


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """A signed stream head: `hash` is the hex chain hash of the event at `version`."""

    stream: str
    version: int
    hash: str
    kind: Kind
    ref: str          # what ended: the deal number for a deal, the table id (or game number) for a game;
                      # a ruling: its deal number and call, "<deal>/<call>" ("-" for no call)
    key_id: str
    signature: str


def receipt_message(stream: str, version: int, hash_hex: str, kind: str, ref: str) -> bytes:
    """The bytes a receipt's signature covers."""
    return RECEIPT_DOMAIN + msgspec.json.encode([stream, version, hash_hex, kind, ref])


def sign_receipt(signer: Signer, stream: str, version: int, hash: bytes | str, kind: Kind,
                 ref: int | str) -> Receipt:
    """A receipt for `stream` at `version` whose chain hash is `hash` (bytes or hex)."""
    hash_hex = hash.hex() if isinstance(hash, bytes) else hash.lower()
    ref = str(ref)
    signature = signer.sign(receipt_message(stream, version, hash_hex, kind, ref))
    return Receipt(stream=stream, version=version, hash=hash_hex, kind=kind, ref=ref,
                   key_id=signer.key_id, signature=signature.hex())


def ruling_ref(part_no: int, call: int | None) -> str:
    """What a ruling's receipt names: the deal (turn) it was made in, and the call it answered."""
    return f"{part_no}/{call if call is not None else '-'}"


def receipt_of_ruling(receipts: list[Receipt], version: int, part_no: int, call: int | None) -> Receipt | None:
    """The receipt of the ruling stored at ``version``: its append's, signed at the append's last version (the
    ruling may be followed in it by what it caused, a deal dealt again)."""
    ref = ruling_ref(part_no, call)
    return min((r for r in receipts if r.kind == "ruling" and r.ref == ref and r.version >= version),
               key=lambda r: r.version, default=None)


def verify_receipt(public_key_hex: str, receipt: Receipt) -> bool:
    """Whether the receipt's signature is valid under this public key."""
    try:
        signature = bytes.fromhex(receipt.signature)
    except ValueError:
        return False
    message = receipt_message(receipt.stream, receipt.version, receipt.hash, receipt.kind, receipt.ref)
    return verify_signature(public_key_hex, message, signature)


async def store_receipt(db: Db, receipt: Receipt) -> bool:
    """Keep a copy of the receipt; False when one for this (stream, version, kind) is already stored. Through
    a pool the copy commits on its own without waiting for the disk (``migrations/0018``: it can be made
    again from the log); on a connection, which may be in a transaction, with it."""
    args = (receipt.stream, receipt.version, receipt.kind, receipt.ref, bytes.fromhex(receipt.hash),
            receipt.key_id, bytes.fromhex(receipt.signature))
    if isinstance(db, asyncpg.Pool):
        return await db.fetchval("SELECT store_receipt_copy($1, $2, $3, $4, $5, $6, $7)", *args)
    status = await db.execute(
        """INSERT INTO receipts (stream_id, version, kind, ref, hash, key_id, signature)
           VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING""", *args)
    return status.endswith(" 1")


async def receipts_of(db: Db, stream: str | None = None) -> list[Receipt]:
    """The stored receipts of `stream` (None: of every stream), by stream and version."""
    rows = await db.fetch(
        """SELECT stream_id, version, kind, ref, hash, key_id, signature FROM receipts
            WHERE $1::text IS NULL OR stream_id = $1 ORDER BY stream_id, version, kind""", stream)
    return [Receipt(stream=r[0], version=r[1], kind=r[2], ref=r[3], hash=r[4].hex(), key_id=r[5],
                    signature=r[6].hex()) for r in rows]


def load_receipts(path: str | Path) -> list[Receipt]:
    """Receipts saved in a file: a JSON array of receipts, or one receipt. Raises ValueError if malformed."""
    try:
        return decode_list(Path(path).read_bytes(), Receipt)
    except (OSError, msgspec.DecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def decode_list(data: bytes, item: type) -> list:
    """A JSON array of `item`s, or a single one, as a list (what an exported file holds)."""
    value = msgspec.json.decode(data)
    return msgspec.convert(value if isinstance(value, list) else [value], list[item])
