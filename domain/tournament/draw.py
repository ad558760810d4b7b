"""The verifiable draw (القرعة): commit to sha256(seed), reveal the seed, shuffle with it.

Anyone holding the events can check `commitment(seed) == published commitment` and repeat the shuffle.
"""

from __future__ import annotations

import hashlib
import random


def commitment(seed: str) -> str:
    """The sha256 hex digest published before the draw."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def seeded_order(team_ids: list[str], seed: str) -> list[str]:
    """The field shuffled by `random.Random(seed)`, starting from registration order."""
    order = list(team_ids)
    random.Random(seed).shuffle(order)
    return order


def rating_order(team_ids: list[str], ratings: dict[str, float]) -> list[str]:
    """Best rating first; equal ratings keep registration order."""
    position = {t: i for i, t in enumerate(team_ids)}
    return sorted(team_ids, key=lambda t: (-ratings[t], position[t]))
