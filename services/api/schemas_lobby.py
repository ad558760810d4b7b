"""The lobby on the wire: the request bodies and answers of ``routes_lobby``."""

from __future__ import annotations

import datetime as dt

import msgspec

from services.api import schemas
from services.lobby import MyChampionship, TeamInvite


class LobbyTableOut(msgspec.Struct):
    """A table of the caller's: ``my_seat`` is his; a finished game's ``places`` and ``scores`` per seat."""

    table_id: str
    game: str
    status: str
    seats: list[str]
    my_seat: int
    waiting: list[str]                 # invitees who have not accepted yet
    proposed_by: str | None
    created_at: dt.datetime
    terms: schemas.TableTerms
    places: list[int] | None
    scores: list[int] | None


class LobbyOut(msgspec.Struct):
    invitations: list[LobbyTableOut]           # tables waiting for the caller's answer
    team_invitations: list[TeamInvite]         # teams waiting for the caller's answer
    championships: list[MyChampionship]        # the caller's, with his team's current match
    live: list[LobbyTableOut]
    finished: list[LobbyTableOut]
