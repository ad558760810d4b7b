"""The anchored log: signed receipts of stream heads and signed Merkle checkpoints over the whole log.

The events' hash chains live in the database, so whoever can write there can rewrite them.  This
package signs, with an Ed25519 key kept outside the database (`keys`), what the log looked like:

* at the end of every deal and game, a stream's head (version and chain hash): a `Receipt`, given to the
  four players and put in the hand record.  The integrator's call, after an append that ends a deal::

      result = await append_reporting(pool, stream, version, events)   # result.head_hash: bytes
      receipt = sign_receipt(signer, stream, result.version, result.head_hash, "deal", deal_number)
      await store_receipt(pool, receipt)          # idempotent on (stream, version, kind)

  and the same with kind "game" (ref: the table id) when the game ends.  Sign only when
  `result.stored`: an exact retry stores nothing and reports the stream's current head, not this append's.
* at a fixed interval, a `SignedCheckpoint`: the RFC 9162 Merkle root over the first N events in read
  order (`publish_checkpoint(pool, signer)`; the workers do it every $BALOOT_CHECKPOINT_SECONDS), with the
  hashes of the subtrees it completes (`tree`), from which `consistency(db, m, n)` and
  `inclusion(db, index, size)` give proofs in O(log n) reads.

`verify_log(db, public_key_hex, ...)` then names every truncation, rewrite or missing event, even when the
hashes were recomputed; `baloot verify` runs it, and `GET /log/key`, `GET /log/checkpoints` (paged),
`GET /log/checkpoints/consistency` and `/inclusion` publish the key, the checkpoints and the proofs.
Encodings (all compact JSON arrays, hashes in lower-case hex):

* receipt:    b"baloot-receipt/1\\n" + [stream, version, hash, kind, ref]
* checkpoint: b"baloot-checkpoint/1\\n" + [size, root, created_at "YYYY-MM-DDTHH:MM:SS.mmmZ"]
* leaf data:  [stream_id, version, hash], hashed as sha256(0x00 || data); nodes sha256(0x01 || l || r)
"""

from services.anchor.checkpoints import (
    CheckpointPublisher,
    SignedCheckpoint,
    checkpoints,
    checkpoints_page,
    consistency,
    inclusion,
    leaf_data,
    load_checkpoints,
    log_leaves,
    publish_checkpoint,
    verify_checkpoint,
)
from services.anchor.keys import ALGORITHM, Signer, default_signer, key_id_of, load_or_create_key, signing_key_path
from services.anchor.receipts import (
    Receipt, load_receipts, receipt_of_ruling, receipts_of, ruling_ref, sign_receipt, store_receipt, verify_receipt,
)
from services.anchor.verify import Finding, VerifyReport, verify_log

__all__ = [
    "ALGORITHM", "CheckpointPublisher", "Finding", "Receipt", "SignedCheckpoint", "Signer", "VerifyReport",
    "checkpoints", "checkpoints_page", "consistency", "default_signer", "inclusion", "key_id_of", "leaf_data",
    "load_checkpoints", "load_or_create_key", "load_receipts", "log_leaves", "publish_checkpoint", "receipt_of_ruling",
    "receipts_of", "ruling_ref",
    "sign_receipt", "signing_key_path", "store_receipt", "verify_checkpoint", "verify_log", "verify_receipt",
]
