"""The dice game's side of the game seam (``domain.seam``): 2-8 seats at a table (the rules allow a lone
player), each for himself; its record is a whole game (``balut-game/1``)."""

from __future__ import annotations

from domain.balut import audit, bots, game, record, views, wire
from domain.balut.events import EVENT_TYPES, BalutEnded, Roll, Score, StartBalut, TurnStarted
from domain.balut.profiles import PROFILES, STC, profile_named
from domain.balut.scoring import CATEGORIES, category_score
from domain.seam import Decided, Format, GameInfo, GameResult, MatchGame

INFO = GameInfo(
    name="balut",
    seat_counts=range(2, game.MAX_PLAYERS + 1),
    profile_names=tuple(PROFILES),
    default_profile=STC.name,
    bot_levels=tuple(bots.BOTS),
    default_bot="strong",
    table_modes=("strict",),
    timeout_rules=("auto_play", "bot"),        # no teams to forfeit
    event_types=EVENT_TYPES,
    seeded_event=TurnStarted,
    end_event=BalutEnded,
    receipt_event=None,                        # a receipt per turn would be one per few events
    record=Format(record.FORMAT, record.MalformedRecord, record.parse_record, audit.audit_record,
                  audit.render_report, record.export_record, record.encode_record, record.game_record_schema),
    record_scope="game",
    rated_by="table",                          # every player for himself: his place at the table rates him
    wire=wire.WIRE,
)

# A championship match is two pairs: seats 0+2 against seats 1+3.
SIDES = ((0, 2), (1, 3))


class Balut(Decided):
    """The dice game on ``Decided``'s defaults where it has nothing of its own: every turn's seed is revealed
    when its row is written (none held), no review, each plays for himself (no team to forfeit; every turn
    is played, by the clock if need be, so a game is never abandoned), no rule a player could accuse (the
    engine refuses what is illegal) and no deal value to award (a referee ends the game instead)."""

    info = INFO
    rules = game
    profile_named = profile_named

    def open(self, seats: int, first_seat: int, profile, seed_of, table_mode: str = "strict") -> list:
        start = StartBalut(players=seats, first_player=first_seat, profile=profile or STC)
        return game.follow_ups(self.initial, game.decide(self.initial, start), seed_of)

    def private_events(self, state, event, seed_of) -> list:
        return game.private_events(state, event, seed_of)

    def follow_on(self, state, seed_of, opened=None):
        return game.follow_on(state, seed_of)

    def to_act(self, state):
        return state.turn if state.phase == "playing" and state.stage == "rolling" else None

    def view(self, state, seat, hands="after_deal"):
        return views.view(state, seat)

    def choose_from(self, level, seat_view):
        return bots.bot(level).choose(seat_view)

    def auto_play(self, state, seat):
        """The first throw, then the row that scores most with the dice as they lie (never a scratch when one
        scores)."""
        if state.throws == 0:
            return Roll(seat)
        rows = game.open_categories(state.sheets[seat], state.profile)
        return Score(seat, max(rows, key=lambda c: (category_score(c, state.dice, state.profile),
                                                    -CATEGORIES.index(c))))

    def result(self, state) -> GameResult | None:
        r = state.result
        if r is None:
            return None
        return GameResult(places=r.places, scores=r.points, winners=r.winners, reason="complete")

    def match_game(self, result):
        """A pair's score is its two players' points added; the higher wins, then the better place of its best
        player; a pair level on both has not won (None)."""
        points = [sum(result.scores[s] for s in side) for side in SIDES]
        best = [min(result.places[s] for s in side) for side in SIDES]
        if points[0] == points[1] and best[0] == best[1]:
            return None
        a_wins = (points[0], -best[0]) > (points[1], -best[1])
        return MatchGame(points[0], points[1], "a" if a_wins else "b", "complete")

    def part_no(self, state):
        return state.round

    def places(self, end_event):
        return tuple(end_event.result.places)


GAME = Balut()
