"""Playing deals and games with simple legal policies (for ``baloot simulate``, tests and benchmarks).

Policies see only what the seat's view holds (its hand, the public table, its legal actions) — the same
as a human in that seat. Every random choice comes from a ``random.Random`` built from an explicit seed.
"""

from __future__ import annotations

import random
from typing import Callable

from domain.baloot import deal as deal_mod
from domain.baloot import game as game_mod
from domain.baloot.bots import LEVELS, EasyBot, bot
from domain.baloot.events import (
    ClaimSawa, DealNext, DealStarted, Declare, GameEnded, GameStarted, RecordResult, StartDeal, StartGame,
)
from domain.events import RevealSeed, TableMode
from domain.baloot.profiles import RuleProfile, profile_named
from domain.baloot.views import view

Policy = Callable[[deal_mod.DealState, int, list], object]


def random_policy(rng: random.Random) -> Policy:
    """Any legal action at random; a project is always declared when the seat has one."""
    choice = rng.choice

    def act(state, seat, actions):
        last = actions[-1]
        if type(last) is Declare:
            return last
        return choice(actions)

    return act


def lowest_policy(rng: random.Random | None = None) -> Policy:
    """The easy bot on the seat's view: simple bids, never doubles, plays its lowest legal card."""
    easy = EasyBot()

    def act(state, seat, actions):
        return easy.choose(view(state, seat))

    return act


def bot_policy(level: str) -> Callable[[random.Random | None], Policy]:
    """A bot level on the seat's view (its own decisions are seeded from the view, not from ``rng``)."""

    def make(rng: random.Random | None = None) -> Policy:
        player = bot(level)

        def act(state, seat, actions):
            return player.choose(view(state, seat))

        return act

    return make


POLICIES = {"random": random_policy, "lowest": lowest_policy} | {level: bot_policy(level) for level in LEVELS}


def next_action(state: deal_mod.DealState, policies, sawa: bool = False):
    """The action the seat to act chooses, or RecordResult at a recorded table's review."""
    if state.phase == "review":
        return RecordResult()
    seat = state.turn
    actions = deal_mod.legal_actions(state, seat, sawa=sawa)
    if sawa:
        for a in actions:
            if type(a) is ClaimSawa:
                return a
    return policies[seat](state, seat, actions)


def play_deal(start: StartDeal, policies, sawa: bool = False) -> tuple[deal_mod.DealState, list]:
    """Play one deal from ``start`` to its end; returns the final state and all events."""
    step = deal_mod.step
    state, events = step(deal_mod.INITIAL, start)
    while state.phase not in ("scored", "void"):
        state, new = step(state, next_action(state, policies, sawa))
        events.extend(new)
    return state, events


def play_game(seed: int, profile: str | RuleProfile = "saudi", policy: str = "random",
              table_mode: TableMode = "strict", max_deals: int = 1000) -> tuple[int, int]:
    """Play one whole game to the target; returns the final scores [team A, team B]."""
    state, _ = play_game_events(seed, profile, policy, table_mode, max_deals)
    return state.scores


def play_game_events(seed: int, profile: str | RuleProfile = "saudi", policy: str = "random",
                     table_mode: TableMode = "strict", max_deals: int = 1000):
    """Play one game; returns the final GameState and its event stream."""
    prof = profile_named(profile) if isinstance(profile, str) else profile
    rng = random.Random(seed)
    policies = [POLICIES[policy](rng) for _ in range(4)]
    state = game_mod.INITIAL
    events = []

    def apply(cmd):
        nonlocal state
        state, new = game_mod.step(state, cmd)
        events.extend(new)
        return new

    apply(StartGame(first_dealer=rng.randrange(4), profile=prof, table_mode=table_mode))
    for n in range(max_deals):
        deal_seed = f"{seed}:{n}"
        apply(DealNext(seed=deal_seed))
        while state.deal.phase not in ("scored", "void"):
            apply(next_action(state.deal, policies))
        apply(RevealSeed(deal_seed))
        if state.phase == "ended":
            break
    return state, events


def deal_events_of_game(events) -> list[list]:
    """Split a game's events into its deals' event lists (from each ``deal_started``)."""
    deals: list[list] = []
    for e in events:
        if isinstance(e, DealStarted):
            deals.append([e])
        elif deals and not isinstance(e, (GameStarted, GameEnded)):
            deals[-1].append(e)
    return deals
