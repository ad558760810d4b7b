"""From a seed to the dice of one turn: ``balut-dice/1``, documented so anyone can check a roll.

Algorithm (version 1, never changed; a new one gets a new version string):

1. ``stream(i) = SHA-256(b"balut-dice/1:" + seed_utf8 + b":" + i as 8-byte big-endian)`` for i = 0, 1, ...
   concatenated give a byte stream, read one byte ``b`` at a time.
2. A byte ``b >= 252`` is skipped (252 = 6 * 42, so what is kept is uniform); otherwise it gives the face
   ``b % 6 + 1``.
3. The first 15 faces are the turn's table of faces: ``faces[5 * t + p]`` is what die ``p`` (0-4) shows when
   it is thrown in throw ``t`` (0-2). A die kept before a throw keeps its face; a die thrown takes its entry.
   So the sequence does not depend on what the player keeps, and nobody learns an unthrown entry early.

The commitment published when a turn starts is ``SHA-256(b"balut-seed/1:" + seed_utf8)`` in hex; the seed
itself is revealed when the turn has been scored.

Dice are written as five digits in position order (``"31562"``); a turn's faces as three such groups joined
by ``/`` (``"31562/44123/61655"``).
"""

from __future__ import annotations

import hashlib
import re

DICE_VERSION = "balut-dice/1"
DICE = 5
THROWS = 3
FACES = DICE * THROWS
_REJECT = 252

Dice = tuple[int, ...]        # five faces 1-6, by position


def faces_from_seed(seed: str) -> tuple[int, ...]:
    """The 15 faces of a turn thrown from ``seed`` (see the module docstring)."""
    prefix = DICE_VERSION.encode() + b":" + seed.encode() + b":"
    out: list[int] = []
    block = 0
    while len(out) < FACES:
        for b in hashlib.sha256(prefix + block.to_bytes(8, "big")).digest():
            if b < _REJECT:
                out.append(b % 6 + 1)
                if len(out) == FACES:
                    break
        block += 1
    return tuple(out)


def seed_commitment(seed: str) -> str:
    """The commitment to ``seed`` published before the turn: hex SHA-256 of ``balut-seed/1:<seed>``."""
    return hashlib.sha256(b"balut-seed/1:" + seed.encode()).hexdigest()


def thrown(faces: tuple[int, ...], throw: int, dice: Dice, keep: tuple[int, ...]) -> Dice:
    """The dice after throw ``throw`` (0-2): positions in ``keep`` stay, the others take their face."""
    row = faces[DICE * throw:DICE * throw + DICE]
    return tuple(dice[p] if p in keep else row[p] for p in range(DICE))


_DICE_RE = re.compile(r"[1-6]{5}")
_FACES_RE = re.compile(r"[1-6]{5}/[1-6]{5}/[1-6]{5}")


def dice_text(dice: Dice) -> str:
    """``(3, 1, 5, 6, 2)`` -> ``"31562"``."""
    return "".join(map(str, dice))


def parse_dice(text: str) -> Dice:
    """``"31562"`` -> ``(3, 1, 5, 6, 2)``; ValueError for anything but five faces 1-6."""
    if not _DICE_RE.fullmatch(text):
        raise ValueError(f"{text!r} is not five dice (five digits 1-6)")
    return tuple(int(ch) for ch in text)


def faces_text(faces: tuple[int, ...]) -> str:
    s = dice_text(faces)
    return f"{s[0:5]}/{s[5:10]}/{s[10:15]}"


def parse_faces(text: str) -> tuple[int, ...]:
    """``"31562/44123/61655"`` -> the 15 faces of a turn."""
    if not _FACES_RE.fullmatch(text):
        raise ValueError(f"{text!r} is not a turn's faces (three groups of five digits 1-6 joined by /)")
    return tuple(int(ch) for ch in text if ch != "/")
