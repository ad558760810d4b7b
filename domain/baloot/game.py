"""The game (صكة) as a decider: deals one after another, dealer rotation, first to the target (§7).

A game is one event stream: ``game_started``, then each deal's events, then ``game_ended``. Deal commands
are decided by the current deal; the game adds what only it knows (dealer, scores before the deal, the end).
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from domain.baloot import deal as deal_mod
from domain.baloot.deal import DealState
from domain.baloot.events import (
    AbandonGame, AnnulDeal, DealAnnulled, DealNext, DealScored, DealStarted, DealVoided, EndGame, ForfeitGame,
    GameEnded, GameStarted, RevealHeldSeeds, SeedRevealed, StartDeal, StartGame,
)
from domain.baloot.shuffle import seed_commitment
from domain.errors import DomainError
from domain.events import RevealSeed, TableMode
from domain.baloot.profiles import SAUDI, RuleProfile


class GameState(msgspec.Struct, frozen=True, kw_only=True):
    phase: str = "new"                     # new, playing, ended
    profile: RuleProfile = SAUDI
    table_mode: TableMode = "strict"
    dealer: int = 0                        # dealer of the current (or next) deal
    scores: tuple[int, int] = (0, 0)
    deal_no: int = 0                       # deals started so far
    deal: DealState = deal_mod.INITIAL
    held: int = 0                          # card-point scoring: points held by a dispute (litige)
    winner: int | None = None
    end_reason: str | None = None          # target, gahwa or forfeit
    results: tuple[tuple[int, int], ...] = ()   # game points of each finished deal
    # Earlier deals whose seed is held back (shared boards), as (deal number, commitment); the current
    # deal's is in ``deal``.
    held_seeds: tuple[tuple[int, str], ...] = ()


INITIAL = GameState()


def decide(s: GameState, cmd) -> list:
    """The events of ``cmd`` for the game ``s``; DomainError naming the rule if refused."""
    match cmd:
        case StartGame():
            if s.phase != "new":
                raise DomainError("game_started", "this game has already started")
            if not 0 <= cmd.first_dealer <= 3:
                raise DomainError("bad_seat", f"seat {cmd.first_dealer} does not exist (seats are 0-3)")
            return [GameStarted(profile=cmd.profile, table_mode=cmd.table_mode, first_dealer=cmd.first_dealer)]
        case DealNext():
            return _decide_next(s, cmd)
        case StartDeal():
            raise DomainError("use_deal_next", "a game starts its deals with deal_next")
        case RevealSeed():
            return deal_mod.decide(s.deal, cmd)
        case RevealHeldSeeds():
            return _decide_reveal_held(s, cmd)
        case AnnulDeal():
            return _decide_annul(s, cmd)
        case ForfeitGame():
            if s.phase != "playing":
                raise DomainError("game_not_playing", f"the game is {s.phase}")
            if cmd.team not in (0, 1):
                raise DomainError("bad_team", "teams are 0 (seats 0+2) and 1 (seats 1+3)")
            return [GameEnded(1 - cmd.team, s.scores, "forfeit", note=cmd.reason)]
        case EndGame():
            if s.phase != "playing":
                raise DomainError("game_not_playing", f"the game is {s.phase}: there is nothing to end")
            if cmd.winner not in (None, 0, 1):
                raise DomainError("bad_team", "the winner is team 0 (seats 0+2), team 1 (seats 1+3) or nobody")
            if not cmd.reason.strip():
                raise DomainError("end_reason", "a referee ends a game with a reason")
            return [GameEnded(cmd.winner, s.scores, "referee", note=cmd.reason)]
        case AbandonGame():
            if s.phase != "playing":
                raise DomainError("game_not_playing", f"the game is {s.phase}")
            teams = set(cmd.teams)
            if not teams or not teams <= {0, 1}:
                raise DomainError("bad_team", "teams are 0 (seats 0+2) and 1 (seats 1+3)")
            winner = None if len(teams) == 2 else 1 - teams.pop()
            return [GameEnded(winner, s.scores, "abandoned", note=cmd.reason)]
    if s.phase != "playing":
        raise DomainError("game_not_playing", f"the game is {s.phase}")
    events = deal_mod.decide(s.deal, cmd)
    last = events[-1]
    if isinstance(last, DealScored):
        ended = game_end(s, last)
        if ended:
            events.append(ended)
    return events


def _decide_next(s: GameState, cmd: DealNext) -> list:
    if s.phase != "playing":
        raise DomainError("game_not_playing", f"the game is {s.phase}")
    d = s.deal
    if s.deal_no and d.phase not in ("scored", "void", "annulled"):
        raise DomainError("deal_in_progress", f"deal {s.deal_no} is still being played")
    if s.deal_no and d.commitment is not None and d.seed is None and not cmd.hold_seed:
        raise DomainError("seed_unrevealed", f"deal {s.deal_no}'s seed must be revealed before the next deal")
    start = StartDeal(dealer=s.dealer, profile=s.profile, table_mode=s.table_mode, scores_before=s.scores,
                      seed=cmd.seed, deck=cmd.deck)
    return deal_mod.decide(deal_mod.INITIAL, start)


def held_deals(s: GameState) -> list[int]:
    """The deals whose seed this game holds back: earlier ones, and the current one once it has ended."""
    current = [s.deal_no] if s.deal.phase in deal_mod.ENDED and s.deal.commitment and s.deal.seed is None else []
    return [n for n, _ in s.held_seeds] + current


def _decide_reveal_held(s: GameState, cmd: RevealHeldSeeds) -> list:
    """Each held seed, checked against the commitment its deal published (at any phase of the game: the
    boards are revealed after the games that played them)."""
    commitments = dict(s.held_seeds)
    if s.deal.phase in deal_mod.ENDED and s.deal.commitment and s.deal.seed is None:
        commitments[s.deal_no] = s.deal.commitment
    out = []
    for deal_no, seed in cmd.seeds:
        if deal_no not in commitments:
            raise DomainError("seed_not_committed", f"deal {deal_no} has no seed held back")
        if seed_commitment(seed) != commitments[deal_no]:
            raise DomainError("seed_mismatch", f"the seed of deal {deal_no} does not match its commitment")
        out.append(SeedRevealed(seed, deal_no=None if deal_no == s.deal_no else deal_no))
    return out


def _decide_annul(s: GameState, cmd: AnnulDeal) -> list:
    if s.phase != "playing":
        raise DomainError("game_not_playing", f"the game is {s.phase}: no deal to annul")
    if not s.deal_no or s.deal.phase == "annulled":
        raise DomainError("nothing_to_annul", "there is no deal to annul")
    if not cmd.reason.strip():
        raise DomainError("annul_reason", "a referee annuls a deal with a reason")
    taken_back = s.results[-1] if s.deal.phase in ("scored", "void") else (0, 0)
    return [DealAnnulled(deal_no=s.deal_no, reason=cmd.reason, replay=cmd.replay, game_points=taken_back)]


def game_end(s: GameState, scored: DealScored) -> GameEnded | None:
    """How a scored deal ends the game, if it does: Gahwa, a team past the target with the lead, or None."""
    after = evolve(s, scored)
    r = scored.result
    if r.gahwa_winner is not None:
        return GameEnded(r.gahwa_winner, after.scores, "gahwa")
    a, b = after.scores
    target = s.profile.target
    if a >= target or b >= target:
        if a != b:
            return GameEnded(0 if a > b else 1, after.scores)
    return None


def evolve(s: GameState, e) -> GameState:
    match e:
        case DealScored():
            return _evolve_scored(s, e)
        case DealStarted():
            held = s.held_seeds
            if s.deal_no and s.deal.commitment is not None and s.deal.seed is None:
                held = held + ((s.deal_no, s.deal.commitment),)      # the deal ended with its seed held back
            return replace(s, deal=deal_mod.evolve(deal_mod.INITIAL, e), deal_no=s.deal_no + 1, held_seeds=held)
        case SeedRevealed() if e.deal_no is not None and e.deal_no != s.deal_no:
            return replace(s, held_seeds=tuple(h for h in s.held_seeds if h[0] != e.deal_no))
        case DealVoided():
            return replace(s, deal=deal_mod.evolve(s.deal, e), dealer=(s.dealer + 1) & 3,
                           results=s.results + ((0, 0),))
        case DealAnnulled():
            finished = s.deal.phase in ("scored", "void")
            dealer = s.dealer if finished else (s.dealer + 1) & 3   # as if the deal had ended normally
            if e.replay:
                dealer = s.deal.dealer
            scores = (s.scores[0] - e.game_points[0], s.scores[1] - e.game_points[1])
            results = s.results[:-1] + ((0, 0),) if finished else s.results + ((0, 0),)
            return replace(s, deal=replace(s.deal, phase="annulled", turn=-1), dealer=dealer, scores=scores,
                           results=results)
        case GameStarted():
            return replace(s, phase="playing", profile=e.profile, table_mode=e.table_mode, dealer=e.first_dealer)
        case GameEnded():
            deal = s.deal
            if deal.phase in ("bidding", "doubling", "playing", "review"):
                deal = replace(deal, phase="stopped", turn=-1)     # cut short: its seed may be revealed
            return replace(s, phase="ended", winner=e.winner, scores=tuple(e.scores), end_reason=e.reason,
                           deal=deal)
    return replace(s, deal=deal_mod.evolve(s.deal, e))


def _evolve_scored(s: GameState, e: DealScored) -> GameState:
    deal = deal_mod.evolve(s.deal, e)
    r = e.result
    gp = list(r.game_points)
    held = s.held
    if r.held:
        held += r.held
    elif held and deal.contract is not None:
        taker = r.winner if r.winner is not None else deal.contract.buyer & 1
        gp[taker] += held
        held = 0
    scores = (s.scores[0] + gp[0], s.scores[1] + gp[1])
    return replace(s, deal=deal, scores=scores, held=held, dealer=(s.dealer + 1) & 3,
                   results=s.results + (tuple(gp),))


def step(s: GameState, cmd) -> tuple[GameState, list]:
    """Decide ``cmd``, then fold every event it causes (a deal's private ``cards_dealt`` too): the new state
    and the events. A refused command raises DomainError and changes nothing."""
    events = decide(s, cmd)
    for e in events:
        s = evolve(s, e)
    return s, events


def fold(events, state: GameState = INITIAL) -> GameState:
    for e in events:
        state = evolve(state, e)
    return state


def follow_on(s: GameState, seed_of, deals: int | None = None, hold_seeds: bool = False) -> list:
    """What follows by itself at ``s``: a finished deal reveals its seed, then, while the game goes on, the
    next deal is dealt from ``seed_of(its number)``; a game of ``deals`` deals (a board of the daily deal, a
    duplicate table) ends after them, the higher score winning and equal scores nobody. With ``hold_seeds``
    (shared boards, which other tables may still be playing) no seed is revealed: ``RevealHeldSeeds`` does it
    once every table of the boards is done."""
    out: list = []
    deal = s.deal
    if deal.phase in deal_mod.ENDED and deal.commitment and deal.seed is None and (
            s.phase == "playing" or not hold_seeds):
        if not hold_seeds:
            s, revealed = step(s, RevealSeed(seed_of(s.deal_no)))
            out.extend(revealed)
        if s.phase == "playing" and deals is not None and s.deal_no >= deals:
            a, b = s.scores
            out.append(GameEnded(None if a == b else int(b > a), s.scores, "deals"))
        elif s.phase == "playing":
            out.extend(decide(s, DealNext(seed=seed_of(s.deal_no + 1), hold_seed=hold_seeds)))
    return out
