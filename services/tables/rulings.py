"""A referee's ruling at a table as the command the table decides: which command each kind of ruling sends
(the engine's accusation, the result recorded, the deal annulled or replayed, awarded, the game ended, a seat
handed to a bot), and what a ruling must say for the table it is made at. The API's ruling bodies carry the
fields named here; the table decides the ``Rule`` as any command."""

from __future__ import annotations

from domain.baloot.events import AnnulDeal, CallQayd, EndGame, RecordResult
from domain.table import HandSeatToBot, Rule, game_of
from services.errors import Conflict, Invalid


def ruling_command(table, kind: str, fields: dict, referee: str, call: int | None) -> Rule:
    """The ``Rule`` a referee's ruling of ``kind`` (its body's ``fields``) makes at ``table`` (an opened one);
    ``call``: the referee's call it closes. Refuses a ruling the table's game or its championship does not
    take (``Conflict``, ``Invalid`` naming the field)."""
    game = game_of(table)
    reason = fields.get("reason", "")
    match kind:
        case "qayd":
            command = CallQayd(fields["seat"], fields["index"])
        case "record_result":
            command = RecordResult()
        case "annul_deal":
            command = AnnulDeal(reason=reason, replay=fields.get("replay", False))
            kind = "replay_deal" if fields.get("replay") else "annul_deal"
        case "uphold" | "reject":
            command = None                  # "uphold": the call's own accusation, decided by the engine
        case "award_deal":
            command = game.award(fields["team"], reason)
            if command is None:
                raise Conflict("no_award", f"a {game.info.name} game has no deal to award: end the game instead",
                               field="ruling")
        case "end_game":
            if fields.get("winner") is None and table.opened.championship_id is not None:
                raise Invalid("invalid_field", "a championship game ends with a winner; for a match nobody wins, "
                                               "record a double forfeit", field="ruling.winner")
            command = EndGame(reason=reason, winner=fields.get("winner"))
        case "hand_seat_to_bot":
            seat = fields.get("seat")
            seat = seat if seat is not None else game.to_act(table.game)
            if seat is None:
                raise Conflict("nobody_to_act", "no seat is to act now: name the seat", field="ruling.seat")
            level = fields.get("level")
            if level is not None and level not in game.info.bot_levels:
                raise Invalid("invalid_field", f"this game's bots are {', '.join(game.info.bot_levels)}, not "
                                               f"{level!r}", field="ruling.level")
            command = HandSeatToBot(seat=seat, level=level or table.opened.timeout_bot_level, reason=reason)
        case _:
            raise Invalid("invalid_field", f"no ruling {kind!r}", field="ruling")
    return Rule(ruling=kind, reason=reason, referee=referee, command=command, call=call)
