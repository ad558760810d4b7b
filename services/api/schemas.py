"""Request and response bodies of the HTTP API (msgspec Structs), kept apart from domain events."""

from __future__ import annotations

import datetime as dt
import types
import typing
from typing import Annotated, Any, Literal, TypeVar, Union

import msgspec
from litestar.dto import MsgspecDTO
from litestar.typing import FieldDefinition

from domain.events import HandsPolicy
from domain.table import CallReason, OnTimeout
from domain.events import TableMode
from domain import games
from services.anchor import Receipt
from services.anchor.audit import AnchorCheck

T = TypeVar("T")


class Strict(MsgspecDTO[T]):
    """A request body decoded once, strictly (``"3"`` is not a version, where Litestar's own decoding would
    coerce it), with the Struct's own schema in the OpenAPI document; a bad body is a problem naming the
    field. A handler takes it with ``dto=Strict[Body], return_dto=None``."""

    def decode_bytes(self, value: bytes) -> T:
        from services.api.problems import Problem, field_in

        try:
            return msgspec.json.decode(value, type=self.model_type, strict=True)
        except msgspec.ValidationError as exc:
            field = field_in(str(exc))
            raise Problem(400, "invalid_field", str(exc), title="the request is malformed", field=field,
                          errors=[{"message": str(exc), "key": field, "source": "body"}]) from None
        except msgspec.DecodeError as exc:
            raise Problem(400, "malformed_body", str(exc), title="the request is malformed") from None

    @classmethod
    def create_openapi_schema(cls, field_definition, handler_id, schema_creator):
        return schema_creator.for_field_definition(FieldDefinition.from_annotation(cls.model_type))


MAX_VERSION = 2**31 - 1          # stream versions are int4 in the events table
NUL_FREE = r"^[^\x00]*$"        # PostgreSQL text cannot hold U+0000 (bodies are also checked: guards.py)
Text = Annotated[str, msgspec.Meta(pattern=NUL_FREE)]             # free text a client sends
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=80, pattern=NUL_FREE)]
CommandId = Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern="^[A-Za-z0-9._:-]+$")]
Seat = Annotated[int, msgspec.Meta(ge=0, le=3)]
MAX_SEAT = max(max(g.info.seat_counts) for g in games.every()) - 1       # the largest seat number of any game
# What a table may be opened with, from the games behind the seam (each checks its own at opening).
GameName = Literal[games.names()]
AnyBotLevel = Literal[tuple(dict.fromkeys(level for g in games.every() for level in g.info.bot_levels))]
ProfileName = Literal[tuple(name for g in games.every() for name in g.info.profile_names)]
# A turn clock a person can play against; and turns in a row that may time out before a table is abandoned.
TurnSeconds = Annotated[float, msgspec.Meta(ge=5, le=3600)]
MaxTimeouts = Annotated[int, msgspec.Meta(ge=1, le=64)]
# The least time between two bot actions at a table (seconds; 0: as fast as the bots decide).
BotPace = Annotated[float, msgspec.Meta(ge=0, le=10)]
# A table a person proposes is one people play at or watch: its bots act a second apart.
PEOPLES_BOT_PACE = 1.0


class NewUser(msgspec.Struct, forbid_unknown_fields=True):
    name: Name
    kind: Literal["human", "bot"] = "human"


# ---- actions a player sends (the seat comes from the token): each game's (``GameInfo.wire``), one union ----

_WIRES = tuple(g.info.wire for g in games.every() if g.info.wire is not None)
_ACTIONS = tuple(action for wire in _WIRES for action in wire.actions)
PlayerAction = Union[_ACTIONS]  # noqa: UP007 (made of a tuple)


class PlayerCommand(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId
    action: PlayerAction
    expected_version: Annotated[int, msgspec.Meta(ge=0)] | None = None


# ---- referee rulings ----

Reason = Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
OptionalReason = Annotated[str, msgspec.Meta(max_length=500)]


class RefereeQayd(msgspec.Struct, tag="qayd", forbid_unknown_fields=True):
    seat: Seat                        # the seat on whose behalf the Qayd is called
    index: Annotated[int, msgspec.Meta(ge=0, le=1000)]
    reason: OptionalReason = ""


class RecordResultRuling(msgspec.Struct, tag="record_result", forbid_unknown_fields=True):
    reason: OptionalReason = ""


class UpholdRuling(msgspec.Struct, tag="uphold", forbid_unknown_fields=True):
    """On an accusation (a call for "qayd"): the engine's verdict on the accused action, with its penalty
    (proven: the offenders lose the deal; unfounded: the accusers do)."""

    reason: Reason


class RejectRuling(msgspec.Struct, tag="reject", forbid_unknown_fields=True):
    """On a call: nothing changes at the table; the call is closed with the referee's reason."""

    reason: Reason


class AwardRuling(msgspec.Struct, tag="award_deal", forbid_unknown_fields=True):
    """The deal being played ends now, taken whole by ``team`` 0 (seats 0+2) or 1 (seats 1+3)."""

    team: Annotated[int, msgspec.Meta(ge=0, le=1)]
    reason: Reason


class AnnulRuling(msgspec.Struct, tag="annul_deal", forbid_unknown_fields=True):
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
    replay: bool = False


class EndGameRuling(msgspec.Struct, tag="end_game", forbid_unknown_fields=True):
    """End the game now: ``winner`` team 0 (seats 0+2) or 1 (seats 1+3), or null for no winner."""

    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
    winner: Annotated[int, msgspec.Meta(ge=0, le=1)] | None = None


class BotSeatRuling(msgspec.Struct, tag="hand_seat_to_bot", forbid_unknown_fields=True):
    """A bot plays ``seat`` from now on (null: the seat whose turn it is), at ``level`` (null: the table's
    timeout bot level): its player left, or the table is stalled on him."""

    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
    seat: Annotated[int, msgspec.Meta(ge=0, le=MAX_SEAT)] | None = None
    level: AnyBotLevel | None = None


RefereeAction = (RefereeQayd | RecordResultRuling | AnnulRuling | EndGameRuling | BotSeatRuling | UpholdRuling
                 | RejectRuling | AwardRuling)


class RefereeCommand(msgspec.Struct, forbid_unknown_fields=True):
    """A ruling; ``call``: the call it answers (and closes), which needs a reason whatever the ruling."""

    command_id: CommandId
    ruling: RefereeAction
    expected_version: Annotated[int, msgspec.Meta(ge=0)] | None = None
    call: Annotated[int, msgspec.Meta(ge=1)] | None = None


class NewCall(msgspec.Struct, forbid_unknown_fields=True):
    """A player calls the referee to his table; ``index``: the accused action of the deal (reason "qayd")."""

    command_id: CommandId
    reason: CallReason
    note: OptionalReason = ""
    index: Annotated[int, msgspec.Meta(ge=0, le=1000)] | None = None


class ClaimCall(msgspec.Struct, forbid_unknown_fields=True):
    command_id: CommandId


class CallView(msgspec.Struct):
    """A call of the referee as the table's players and spectators see it (the caller's note is the
    referee's: it may say what the caller holds)."""

    call: int
    seat: int
    reason: CallReason
    deal_no: int
    index: int | None
    status: Literal["open", "claimed", "ruled"]
    ruling: str | None
    ruling_reason: str


# ---- tables ----

class NewTable(msgspec.Struct, forbid_unknown_fields=True):
    """A table to propose. The game (default: the card game) says how many seats, which profiles, bot levels,
    modes and turn-clock rules it takes; left out, the profile and bot levels are the game's defaults."""

    seats: Annotated[list[str], msgspec.Meta(min_length=1, max_length=MAX_SEAT + 1)]
    game: GameName = games.FIRST
    profile: ProfileName | None = None
    switches: dict[str, bool | int | str | None] = {}
    table_mode: TableMode = msgspec.field(default="strict", name="mode")
    hands_policy: HandsPolicy = "after_deal"
    delay_seconds: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 0.0      # "always" needs 1800 and more
    bot_level: AnyBotLevel | None = None                      # for seats whose user is a bot
    turn_seconds: TurnSeconds | None = None
    on_timeout: OnTimeout = "auto_play"
    timeout_bot_level: AnyBotLevel | None = None              # on_timeout "bot": the level that takes the seat
    max_timeouts: MaxTimeouts = 8
    bot_pace_seconds: BotPace = PEOPLES_BOT_PACE              # 0: the bots play as fast as they decide


class TableCreated(msgspec.Struct):
    table_id: str
    version: int
    status: Literal["invited", "live"]      # invited: waiting for the seated users named in `waiting`
    waiting: list[str]


class InvitationAnswered(msgspec.Struct):
    table_id: str
    version: int
    replayed: bool
    status: Literal["invited", "live", "cancelled"]
    waiting: list[str]


class TableTerms(msgspec.Struct, kw_only=True):
    """What a seat at the table agrees to: shown with the invitation and in every view of the table."""

    game: str
    profile: str
    switches: dict[str, Any]                 # where the rules differ from the named profile
    mode: TableMode
    hands_policy: HandsPolicy                # what spectators see of the hands
    delay_seconds: float                     # how long after the players spectators see the table
    turn_seconds: float | None               # the turn clock; None: none
    on_timeout: OnTimeout
    timeout_bot_level: str
    max_timeouts: int                        # turns in a row run out before the game is abandoned
    bot_pace_seconds: float                  # the least time between two bot actions; 0: as fast as they decide
    deals: int | None                        # a game of this many deals; None: to the target
    bots: list[str | None]                   # the level of each seat played by a bot
    championship_id: str | None
    match_id: str | None
    # The table's own referee (a private table's proposer who does not sit at it): he sees every hand as it is
    # played, rules and steps through the deals at the desk. None: its championship's officials referee it.
    referee: str | None = None


# The table around a game's view, in every game's view of a table (after the game's own fields).
TABLE_FIELDS = (
    ("table_id", str | None),
    ("status", Literal["invited", "live", "finished", "cancelled"]),
    ("seats", list[str]),
    ("waiting", list[str]),                  # invited users who have not accepted yet
    ("seat", int | None),                    # the caller's seat; None: the spectator view
    ("version", int),
    ("terms", TableTerms | None),            # None: no table at all
    ("clock_seat", int | None, None),        # the person whose turn clock runs now
    ("turn_deadline", dt.datetime | None, None),   # when it runs out
    ("calls", list[CallView], []),           # the referee's calls at this table, and his rulings
    # A person's seat that a bot plays now (his turn clock ran out under on_timeout "bot", or a referee handed
    # it): the bot's level; None for a seat played by its person, or by the bot it was opened with.
    ("played_by_bot", list[str | None], []),
)


def _table_view(name: str, wire) -> type:
    """A game's table view: its view (legal actions in wire form), the table around it, tagged by the game."""
    return msgspec.defstruct(wire.table_view, [*wire.view_fields(PlayerAction), *TABLE_FIELDS], bases=(wire.view,),
                             kw_only=True, tag_field="game", tag=name, module=__name__,
                             namespace={"__doc__": wire.table_doc})


def _struct_in(annotation) -> type | None:
    """The Struct a field's type holds (``DealOnWire | None``: ``DealOnWire``); None: none (a list of actions)."""
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return annotation
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return next((s for s in map(_struct_in, typing.get_args(annotation)) if s is not None), None)
    return None


# Each game's table view, by game name (the struct's tag: ``game`` in its JSON says which game's view).
TABLE_VIEWS: dict[str, type] = {g.info.name: _table_view(g.info.name, g.info.wire) for g in games.every()
                                if g.info.wire is not None}
AnyTableView = Union[tuple(TABLE_VIEWS.values())]  # noqa: UP007 (made of a tuple)
# Per game, its view's fields whose wire type is a Struct of their own (a deal typing its legal actions), each
# with that Struct: the table view's value is made from the game's (the JSON is the same).
WIRE_FIELDS: dict[str, tuple[tuple[str, type], ...]] = {
    g.info.name: tuple((f[0], _struct_in(f[1])) for f in g.info.wire.view_fields(PlayerAction)
                       if _struct_in(f[1]) is not None)
    for g in games.every() if g.info.wire is not None}

# The games' Structs of the API by their schema names (``schemas.TableView``, ``schemas.RollAction``): routes
# that name one of them reach it here, as they reach the rest of this module.
_BY_NAME = {s.__name__: s for s in (*_ACTIONS, *TABLE_VIEWS.values(),
                                    *(s for fields in WIRE_FIELDS.values() for _, s in fields))}


def __getattr__(name: str):
    try:
        return _BY_NAME[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


class CommandAccepted(msgspec.Struct):
    table_id: str
    version: int
    replayed: bool
    events: list[str]
    view: AnyTableView
    receipts: list[Receipt] = []      # the server's signed stream head, when this command ended a deal or the game


class TableSummary(msgspec.Struct):
    table_id: str
    profile: str
    table_mode: TableMode = msgspec.field(name="mode")
    status: str
    seats: list[str]
    championship_id: str | None
    match_id: str | None


class StoredGameAudit(msgspec.Struct):
    """A stored game's audit: the stream's hash chain and its record's replay (``report``: the game's own
    audit report, as ``baloot audit --json`` prints it)."""

    table_id: str
    format: str
    chain_intact: bool
    first_broken_version: int | None
    valid: bool
    report: dict
    anchor: AnchorCheck
