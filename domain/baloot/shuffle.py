"""From a seed to a deck order: ``baloot-shuffle/1``, documented so anyone can check a deal.

Algorithm (version 1, never changed; a new one gets a new version string):

1. ``stream(i) = SHA-256(b"baloot-shuffle/1:" + seed_utf8 + b":" + i as 8-byte big-endian)`` for i = 0, 1, ...
   concatenated give a byte stream; it is read 4 bytes at a time as big-endian unsigned integers ``u``.
2. Start from the deck in card order 0..31 (7S 8S ... AS 7H ... AC) and run Fisher-Yates from the top:
   for ``i`` from 31 down to 1, draw ``j`` uniformly in ``[0, i]`` by rejection sampling (reject ``u`` when
   ``u >= 2**32 - (2**32 % (i + 1))``, else ``j = u % (i + 1)``) and swap positions ``i`` and ``j``.
3. The result is dealt as the rules file §2 says (3 cards each from ``dealer + 1``, then 2, then the
   face-up card, then the rest after the contract).

The commitment published when a deal starts is ``SHA-256(b"baloot-seed/1:" + seed_utf8)`` in hex; the seed
itself is revealed when the deal ends.
"""

from __future__ import annotations

import hashlib

SHUFFLE_VERSION = "baloot-shuffle/1"
_LIMIT = 1 << 32


def _words(seed: str):
    prefix = SHUFFLE_VERSION.encode() + b":" + seed.encode() + b":"
    block = 0
    while True:
        digest = hashlib.sha256(prefix + block.to_bytes(8, "big")).digest()
        for k in range(0, 32, 4):
            yield int.from_bytes(digest[k:k + 4], "big")
        block += 1


def deck_from_seed(seed: str) -> tuple[int, ...]:
    """The 32-card deck order for ``seed`` (see the module docstring for the exact algorithm)."""
    deck = list(range(32))
    words = _words(seed)
    for i in range(31, 0, -1):
        n = i + 1
        bound = _LIMIT - (_LIMIT % n)
        u = next(words)
        while u >= bound:
            u = next(words)
        j = u % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def seed_commitment(seed: str) -> str:
    """The commitment to ``seed`` published before the deal: hex SHA-256 of ``baloot-seed/1:<seed>``."""
    return hashlib.sha256(b"baloot-seed/1:" + seed.encode()).hexdigest()
