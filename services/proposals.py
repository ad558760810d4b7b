"""The caps on proposals still waiting for answers (tables proposed to players, teams proposed to teammates).

A proposal costs its sender nothing and lands in the invitee's lobby: uncapped, one account could fill a
stranger's lobby with proposals until his real invitation dropped out of it. So each sender has at most
``PER_PROPOSER`` proposals waiting, at most ``PER_PAIR`` of them waiting for one same person, and each person at
most ``PER_INVITEE`` proposals waiting for his answer, whoever sent them: the lobby shows them all (its page of
invitations is ``PER_INVITEE`` long), so none is ever pushed out. Tables and teams are counted apart.

The counts are taken and the proposal stored in one transaction holding an advisory lock per person named
(``lock``), so two proposals at once cannot both pass a cap with one place left. A refusal stores nothing.
"""

from __future__ import annotations

import asyncpg

from services.errors import Conflict

PER_PROPOSER = 20       # proposals of one sender still waiting for answers
PER_PAIR = 3            # of them, waiting for one same invitee
PER_INVITEE = 50        # proposals waiting for one person's answer, from anyone


async def lock(conn: asyncpg.Connection, kind: str, people) -> None:
    """Hold, to the end of ``conn``'s transaction, the proposal lock of each of ``people`` (in one order for all
    writers, so two proposals naming the same people never wait for each other in a cycle)."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM "
        "(SELECT DISTINCT k FROM unnest($1::text[]) AS k ORDER BY k) AS s",
        [f"proposals/{kind}/{p}" for p in people])


async def within_caps(conn: asyncpg.Connection, kind: str, label: str, proposer: str, invitees,
                      of_proposer: str, of_invitee: str) -> None:
    """In ``conn``'s transaction, before the proposal is stored there: hold the people's locks, count what
    waits (``of_proposer``: a query of the proposer's waiting ``kind`` given his id; ``of_invitee``: of one
    invitee's, given the proposer's and the invitee's ids, as (from the proposer, from anyone)) and refuse
    what breaks a cap (``label`` names the proposals in the refusal)."""
    await lock(conn, kind, (proposer, *invitees))
    mine = await conn.fetchval(of_proposer, proposer)
    counts = {u: tuple(await conn.fetchrow(of_invitee, proposer, u)) for u in invitees}
    check(label, proposer, mine, counts)


def check(kind: str, proposer: str, waiting_of_proposer: int, per_invitee: dict[str, tuple[int, int]]) -> None:
    """Refuse the proposal if it would break a cap: ``waiting_of_proposer`` is how many of the proposer's
    ``kind`` are waiting for answers; ``per_invitee`` gives each invitee's (of those, how many wait for him;
    how many ``kind`` from anyone wait for him)."""
    if waiting_of_proposer >= PER_PROPOSER:
        raise Conflict("too_many_proposals", f"you have {waiting_of_proposer} {kind} waiting for answers, the most "
                       f"one may have ({PER_PROPOSER}): propose more once some are answered", cap=PER_PROPOSER)
    for invitee, (from_proposer, in_all) in per_invitee.items():
        if from_proposer >= PER_PAIR:
            raise Conflict("too_many_proposals_to_invitee", f"you have {from_proposer} {kind} waiting for "
                           f"{invitee}'s answer, the most one may send one person ({PER_PAIR}): propose again "
                           f"once he has answered", invitee=invitee, cap=PER_PAIR)
        if in_all >= PER_INVITEE:
            raise Conflict("invitee_busy", f"{invitee} has {in_all} {kind} waiting for his answer, the most one "
                           f"person may have ({PER_INVITEE}): he takes no more until he answers some",
                           invitee=invitee, cap=PER_INVITEE)
