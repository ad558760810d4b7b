"""The card game's side of the game seam (``domain.seam``): four seats in two teams, deal after deal to the
target; its record is one deal (``baloot-hand/1``)."""

from __future__ import annotations

from domain.baloot import audit, bots, deal, fairplay, game, handrecord, views, wire
from domain.baloot import profiles as profiles_mod
from domain.baloot.events import (
    EVENT_TYPES, AbandonGame, AwardDeal, Bid, CallQayd, DealNext, DealStarted, Double, ForfeitGame, GameEnded, RevealHeldSeeds,
    SeedRevealed, StartGame,
)
from domain.baloot.profiles import SAUDI
from domain.seam import Decided, Format, GameInfo, GameResult, MatchGame

INFO = GameInfo(
    name="baloot",
    seat_counts=range(4, 5),
    partnerships=True,
    profile_names=tuple(profiles_mod.PROFILES),
    default_profile=SAUDI.name,
    bot_levels=tuple(bots.BOTS),
    default_bot="normal",
    table_modes=("strict", "recorded"),
    timeout_rules=("auto_play", "bot", "forfeit"),
    event_types=EVENT_TYPES,
    seeded_event=DealStarted,
    end_event=GameEnded,
    receipt_event=SeedRevealed,
    record=Format(handrecord.FORMAT, handrecord.MalformedRecord, handrecord.parse_record, audit.audit_record,
                  audit.render_report, handrecord.export_record, handrecord.encode_record,
                  handrecord.hand_record_schema),
    record_scope="deal",
    shares_boards=True,
    fair_play=fairplay.analyse_deal,
    wire=wire.WIRE,
)


class Baloot(Decided):
    info = INFO
    rules = game
    profile_named = profiles_mod.profile_named

    def profile_of(self, opened):
        return opened.profile

    def profile_fields(self, profile):
        return {"profile": profile}

    def open(self, seats: int, first_seat: int, profile, seed_of, table_mode: str = "strict") -> list:
        start = StartGame(first_dealer=first_seat, profile=profile or SAUDI, table_mode=table_mode)
        state, events = game.step(self.initial, start)
        return events + game.step(state, DealNext(seed=seed_of(1)))[1]

    def private_events(self, state, event, seed_of) -> list:
        if type(event) is not DealStarted or event.commitment is None:
            return []
        try:
            return [deal.dealt_from_committed_seed(seed_of(state.deal_no), event.commitment)]
        except ValueError as exc:
            raise ValueError(f"deal {state.deal_no}: {exc}") from None

    def follow_on(self, state, seed_of, opened=None):
        if opened is None:
            return game.follow_on(state, seed_of)
        return game.follow_on(state, seed_of, opened.deals, hold_seeds=opened.boards is not None)

    def reveal_held(self, state, seed_of):
        held = game.held_deals(state)
        return RevealHeldSeeds(seeds=tuple((n, seed_of(n)) for n in held)) if held else None

    def to_act(self, state):
        return state.deal.turn if state.phase == "playing" and state.deal.turn >= 0 else None

    def in_review(self, state):
        return state.phase == "playing" and state.deal.phase == "review"

    def seat_view(self, state, seat):
        return views.view(state.deal, seat)

    def view(self, state, seat, hands="after_deal"):
        return views.game_view(state, seat, hands=hands)

    def choose_from(self, level, seat_view):
        return bots.bot(level).choose(seat_view)

    def auto_play(self, state, seat):
        """Pass (or confirm, or decline to double), else the lowest legal card."""
        v = views.view(state.deal, seat)
        for a in v.legal_actions:
            if (type(a) is Bid and a.bid in ("pass", "wala", "confirm")) or (type(a) is Double and a.call == "pass"):
                return a
        return bots.lowest_legal_card(v) or v.legal_actions[0]

    def forfeit(self, state, seat, reason):
        return ForfeitGame(team=seat & 1, reason=reason)

    def abandon(self, state, seats, reason):
        """The teams of ``seats`` lose the game (both teams: nobody wins it)."""
        return AbandonGame(teams=tuple(sorted({s & 1 for s in seats})), reason=reason)

    def result(self, state) -> GameResult | None:
        if state.phase != "ended":
            return None
        w = state.winner
        places = tuple(1 if w is None or seat & 1 == w else 2 for seat in range(4))
        return GameResult(places=places, scores=tuple(state.scores[seat & 1] for seat in range(4)),
                          winners=tuple(s for s in range(4) if w is not None and s & 1 == w),
                          reason=state.end_reason or "target")

    def match_game(self, result):
        """The team's score is each of its seats' (they share it); the winning team wins the game."""
        if not result.winners:
            return None
        return MatchGame(result.scores[0], result.scores[1], "a" if 0 in result.winners else "b", result.reason)

    def part_no(self, state):
        return state.deal_no

    def accusation(self, seat, index):
        """Qayd (قيد) by ``seat`` on action ``index`` of the deal (recorded tables, §8)."""
        return CallQayd(seat, index)

    def award(self, team, reason):
        return AwardDeal(team=team, reason=reason)

    def places(self, end_event):
        winner = end_event.winner               # a team's two seats share its place; no winner: all first
        return tuple(1 if winner is None or seat % 2 == winner else 2 for seat in range(4))


GAME = Baloot()
