"""Between the wire (tagged actions) and the engine (commands), and views as JSON: each by the game's own side
of the API (``GameInfo.wire``), the table around a game's view here."""

from __future__ import annotations

import functools

import msgspec

from domain import games
from domain.table import Call, game_of, table_referee
from services.api import schemas
from services.tables.pending import pending_work
from services.tables import Table

# Each action a client may send, to its game's wire (``GameInfo.wire``).
_WIRE_OF = {action: g.info.wire for g in games.every() if g.info.wire is not None for action in g.info.wire.actions}


def to_command(action, seat: int):
    """The engine's command for a client's action, by the game whose action it is."""
    wire = _WIRE_OF.get(type(action))
    if wire is None:
        raise TypeError(f"not a player action: {action!r}")
    return wire.to_command(action, seat)


def to_wire(command) -> schemas.PlayerAction:
    """A legal action as a client sends it back (``{"type": "play", "card": "TS"}``), by the game whose command
    it is."""
    for wire in dict.fromkeys(_WIRE_OF.values()):
        try:
            return wire.to_wire(command)
        except TypeError:
            pass
    raise TypeError(f"not a player action: {command!r}")


def table_terms(opened) -> schemas.TableTerms | None:
    """The terms of a table, as its invitation shows them (None: no table); made once a table (every view
    of it carries them: five views an action at a followed table)."""
    if opened is None:
        return None
    try:
        return _terms(opened)
    except TypeError:                    # unhashable terms (another game's profile, a dict): made each time
        return _terms.__wrapped__(opened)


@functools.lru_cache(maxsize=4096)
def _terms(opened) -> schemas.TableTerms:
    game = games.get(opened.game)
    profile = game.profile_of(opened)
    base = game.profile(profile.name)
    switches = {f: getattr(profile, f) for f in profile.__struct_fields__
                if f != "name" and getattr(profile, f) != getattr(base, f)}
    return schemas.TableTerms(
        game=opened.game, profile=profile.name, switches=switches, mode=opened.table_mode,
        hands_policy=opened.hands_policy, delay_seconds=opened.delay_seconds, turn_seconds=opened.turn_seconds,
        on_timeout=opened.on_timeout, timeout_bot_level=opened.timeout_bot_level,
        max_timeouts=opened.max_timeouts, bot_pace_seconds=opened.bot_pace, deals=opened.deals,
        bots=list(opened.bots[:len(opened.seats)]), championship_id=opened.championship_id,
        match_id=opened.match_id, referee=table_referee(opened))


def call_view(c: Call) -> schemas.CallView:
    return schemas.CallView(c.call, c.seat, c.reason, c.part_no, c.index, c.status, c.ruling, c.ruling_reason)


def _frame(table: Table) -> dict:
    """The table around a game's view, as every view of this state shows it (all but the viewer's seat)."""
    opened = table.opened
    status = ("cancelled" if table.cancelled else "invited" if opened is None
              else "finished" if table.game.phase == "ended" else "live")
    work = pending_work(table)
    clock = work is not None and work.kind == "clock"
    return dict(table_id=table.table_id, status=status, seats=list(table.seats), waiting=list(table.waiting),
                version=table.version, terms=table_terms(opened or table.proposed),
                clock_seat=work.seat if clock else None, turn_deadline=work.due if clock else None,
                calls=[call_view(c) for c in table.calls],
                played_by_bot=[level if level is not None and not user.startswith("bot-") else None     # bot accounts
                               for user, level in zip(table.seats, table.bots)])


def _game_view(table: Table, seat: int | None):
    """The game's own view for ``seat`` (``Game.view``), its legal actions in wire form (the view already lists
    the seat's legal actions as engine commands: only their wire form is made here, by the game's wire)."""
    opened = table.opened
    game = game_of(table)
    view = game.view(table.game, seat, hands=opened.hands_policy if opened is not None else "never")
    return game.info.wire.on_wire(table.game, view)


def table_view(table: Table, seat: int | None) -> schemas.AnyTableView:
    """The game as ``seat`` sees it (None: a spectator, shown hands as the table's policy says): the view is
    the game's own (``Game.view``), its legal actions in wire form, with the table's frame put around it."""
    name = game_of(table).info.name
    fields = msgspec.structs.asdict(_game_view(table, seat))
    for field, wire in schemas.WIRE_FIELDS[name]:
        if fields[field] is not None:
            fields[field] = wire(**msgspec.structs.asdict(fields[field]))
    return schemas.TABLE_VIEWS[name](**_frame(table), seat=seat, **fields)


_JSON = msgspec.json.Encoder()
_FRAME = "frame"            # a memo's key of the frame's JSON (the views' keys are seats)
_BEFORE_SEAT = ("table_id", "status", "seats", "waiting")     # the frame's fields before ``seat`` in a wire view


def view_json(table: Table, seat: int | None, memo: dict | None = None) -> bytes:
    """``table_view(table, seat)`` as JSON, byte for byte what encoding it gives, made without building it: the
    wire view's tag (the game's name), the game's view (its fields come first in the wire view, in their
    order), then the frame's fields around the seat. ``memo`` (one table state's) keeps the frame's JSON for
    the other views of the same state."""
    frame = memo.get(_FRAME) if memo is not None else None
    if frame is None:
        fields = _frame(table)
        before = {name: fields.pop(name) for name in _BEFORE_SEAT}
        frame = _JSON.encode(before)[1:-1], _JSON.encode(fields)[1:-1]
        if memo is not None:
            memo[_FRAME] = frame
    view = _game_view(table, seat)
    return b'{"game":%s,%s,%s,"seat":%s,%s}' % (
        _JSON.encode(game_of(table).info.name), _JSON.encode(view)[1:-1], frame[0],
        b"null" if seat is None else b"%d" % seat, frame[1])
