"""Bot seats: a bot receives exactly the view a human in its seat gets and answers one of its legal actions.

Levels (seed 001): ``easy`` and ``normal`` (``simple.py``) follow fixed rules of thumb; ``hard``
(``hard.py``) remembers every card, infers voids and samples the hidden hands the view allows, and plays
each candidate out with the engine (``knowledge.py``, ``rollout.py``); ``expert`` (``expert.py``, issue 51)
weighs the sampled deals by how likely each is to have produced the cards seen, solves each exactly with the
project's solver, and bids by a model fitted on solved deals (``contract_model.py``). ``match.py`` measures
one level against another in duplicate, and against the all-seeing ceiling. A level plugs in by adding a class with ``choose(view) -> command`` to
``BOTS``.
"""

from __future__ import annotations

from typing import Literal, get_args

from domain.baloot.bots.expert import ExpertBot
from domain.baloot.bots.hard import HardBot
from domain.baloot.bots.simple import Bot, EasyBot, NormalBot, lowest_legal_card

__all__ = ["BOTS", "LEVELS", "BotLevel", "Bot", "EasyBot", "ExpertBot", "HardBot", "NormalBot", "bot", "lowest_legal_card"]

BotLevel = Literal["easy", "normal", "hard", "expert"]          # what the API and the tables accept
BOTS: dict[str, type] = {"easy": EasyBot, "normal": NormalBot, "hard": HardBot, "expert": ExpertBot}
LEVELS: tuple[str, ...] = get_args(BotLevel)
assert LEVELS == tuple(BOTS), "every level has a bot and every bot a level"


def bot(level: str) -> Bot:
    if level not in BOTS:
        raise ValueError(f"unknown bot level {level!r} (known: {', '.join(BOTS)})")
    return BOTS[level]()
