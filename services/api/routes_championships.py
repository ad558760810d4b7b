"""Championships: organisers create and run them, players register teams, referees record forfeits,
everyone reads standings, brackets and matches."""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Request, Router, delete, get, post
from litestar.datastructures import State
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter

from domain.tournament import (
    CreateChampionship,
    FinishChampionship,
    RecordDoubleForfeit,
    RecordForfeit,
    StartRound,
    SubstitutePlayer,
    ChampionshipState,
    WithdrawTeam,
)
from projections import bracket as bracket_projection
from projections.standings import StandingRow
from services.ratings import team_ratings
from services.tokens import User
from services.access import policy
from services import people
from services.eventstore.reads import championships_created
from services.roles import grant, holders, person_named, revoke
from services.api.deps import Caller, Championships, Gate, Pool, Who
from services.championships import (
    Championship,
    championship_id_for,
    closes_at,
    stream_of,
    team_names,
)
from services.api.problems import Problem
from services.championships import imports
from services.championships.creation import new_settings
from services.championships.pairings import next_pairings
from services.championships import registration
from services.championships.brackets import bracket_section
from services.championships.standings import named_standings
from services.championships.imports import Imported
from services.championships.monitor import Monitor, State as MonitorState, monitor
from services.api.schemas import CommandId, Strict
from services.tables import command_digest
from services.api.schemas_championships import (
    summary, NewChampionship, NewTeam, Command, WithReason, Substitution, Draw, Forfeit, CheckIn, NewReferee,
    ChampionshipSummary, CheckInOut, ChampionshipCommandOut, MatchTable, RoundStarted, MatchOut, PairingOut,
    PairingsOut, BracketOut, BracketSectionOut, TeamFound, ChampionshipListed, RefereeGranted, RefereeOut,
    TeamRegistration, ProposalOut, Extension, CheckInWindow,
)


# ---- helpers ----

async def _organiser(access: Gate, viewer: Who, championship_id: str) -> Championship:
    """The championship, which the caller must organise (``policy.organiser``)."""
    return (await access.championship(viewer, championship_id, policy.organiser))[0]


async def _referee(access: Gate, viewer: Who, championship_id: str, match_id: str | None = None) -> None:
    """The caller must referee or organise this (existing) championship; with ``match_id``, rule on that match
    (``policy.forfeit``: never his own team's)."""
    await access.championship(viewer, championship_id, policy.forfeit if match_id else policy.championship_official,
                              match_id=match_id)


def _team_of(state: ChampionshipState, team_id: str):
    team = state.teams.get(team_id)
    if team is None:
        raise Problem(404, "unknown_team", f"team {team_id} is not registered in this championship")
    return team


def _digest(request: Request, data) -> str:
    """What a request asks for (its path and body): the same command id with another request is refused."""
    return command_digest((request.url.path, data))


def _outcome(championship_id: str, outcome, champ: Championship) -> ChampionshipCommandOut:
    return ChampionshipCommandOut(championship_id, outcome.version, outcome.replayed, outcome.events,
                          summary(championship_id, champ))


# ---- organisers ----

@post("/", operation_id="createChampionship", refuses=(409,), status_code=201,
      summary="Create a championship; the caller becomes its organiser",
      dto=Strict[NewChampionship], return_dto=None)
async def create_championship(request: Request, data: JSONBody[NewChampionship], user: Caller, pool: Pool,
                              championships: Championships) -> ChampionshipCommandOut:
    settings, run = new_settings(data)
    cid = championship_id_for(user.user_id, data.command_id)
    outcome, champ = await championships.execute(cid, data.command_id,
                                                 lambda _: [CreateChampionship(cid, settings)],
                                                 actor=user.user_id, digest=_digest(request, data), new=True,
                                                 metadata={"run": msgspec.to_builtins(run)})
    await grant(pool, "championship", cid, user.user_id, "organiser")
    return _outcome(cid, outcome, champ)


@post("/{championship_id:str}/registration/close", operation_id="closeRegistration", refuses=(409,), status_code=200,
      summary="Close registration and publish the draw commitment (sha256 of the seed the draw will reveal)",
      dto=Strict[Command], return_dto=None)
async def close_registration(request: Request, championship_id: FromPath[str], data: JSONBody[Command],
                             user: Caller, access: Gate, viewer: Who, pool: Pool,
                             championships: Championships) -> ChampionshipCommandOut:
    await _organiser(access, viewer, championship_id)
    outcome, champ = await championships.execute(championship_id, data.command_id,
                                       lambda c: championships.close_registration(championship_id, c), actor=user.user_id,
                                       digest=_digest(request, data))
    return _outcome(championship_id, outcome, champ)


@post("/{championship_id:str}/draw", operation_id="makeDraw", refuses=(409,), status_code=200,
      summary="Make the draw: reveal the seed committed to at close (or seed by rating: the given ratings, else "
              "those imported with the teams, else the players' ratings on the platform)",
      dto=Strict[Draw], return_dto=None)
async def make_draw(request: Request, championship_id: FromPath[str], data: JSONBody[Draw], user: Caller,
                    access: Gate, viewer: Who, pool: Pool,
                    championships: Championships) -> ChampionshipCommandOut:
    champ = await _organiser(access, viewer, championship_id)
    state = champ.state
    platform = None
    if state.settings is not None and state.settings.seeding == "rating" and not data.ratings:
        platform = await team_ratings(pool, state.settings.game, {t: state.teams[t].players for t in state.team_order
                                                                  if not state.teams[t].withdrawn})
    outcome, champ = await championships.execute(
        championship_id, data.command_id,
        lambda c: [championships.make_draw(championship_id, c, data.ratings, data.order, platform)],
        actor=user.user_id, digest=_digest(request, data))
    return _outcome(championship_id, outcome, champ)


@post("/{championship_id:str}/rounds/{round_no:int}/start", operation_id="startRound", refuses=(409,), status_code=200,
      summary="Pair the round and open one table per match to play (team A at seats 0 and 2)",
      dto=Strict[Command], return_dto=None)
async def start_round(request: Request, championship_id: FromPath[str], round_no: FromPath[int],
                      data: JSONBody[Command], user: Caller, access: Gate, viewer: Who, pool: Pool,
                      championships: Championships
                      ) -> RoundStarted:
    await _organiser(access, viewer, championship_id)
    await championships.matches.collect_results(championship_id)
    outcome, champ = await championships.execute(championship_id, data.command_id, lambda _: [StartRound(round_no)],
                                       actor=user.user_id, digest=_digest(request, data))
    # Also on a retry: a request that stored the pairing may have failed before opening every table.
    # With a check-in window, a match's table opens once both its teams have checked in.
    if champ.run.check_in_seconds is None:
        await championships.matches.open_round_tables(championship_id, round_no, user.user_id)
    matches = {m.match_id for m in champ.state.rounds[round_no - 1].matches}
    tables = [MatchTable(r["table_id"], r["game_no"], r["status"], list(r["seats"]))
              for r in await championships.matches.tables_of(championship_id) if r["match_id"] in matches and r["game_no"] == 1]
    base = _outcome(championship_id, outcome, champ)
    return RoundStarted(**msgspec.structs.asdict(base), round=round_no, tables=tables)


@post("/{championship_id:str}/matches/{match_id:str}/forfeit", operation_id="recordForfeit", refuses=(409,),
      status_code=200,
      summary="Referee or organiser: a team did not play; the other wins the match",
      dto=Strict[Forfeit], return_dto=None)
async def record_forfeit(request: Request, championship_id: FromPath[str], match_id: FromPath[str],
                         data: JSONBody[Forfeit], user: Caller, access: Gate, viewer: Who, pool: Pool,
                         championships: Championships
                         ) -> ChampionshipCommandOut:
    await _referee(access, viewer, championship_id, match_id)
    outcome, champ = await championships.execute(
        championship_id, data.command_id, lambda _: [RecordForfeit(match_id, data.absent, data.reason)],
        actor=user.user_id, digest=_digest(request, data))
    return _outcome(championship_id, outcome, champ)


@post("/{championship_id:str}/matches/{match_id:str}/double-forfeit", operation_id="recordDoubleForfeit",
      refuses=(409,), status_code=200, summary="Referee or organiser: neither team played; nobody advances",
      dto=Strict[WithReason], return_dto=None)
async def record_double_forfeit(request: Request, championship_id: FromPath[str], match_id: FromPath[str],
                                data: JSONBody[WithReason], user: Caller, access: Gate, viewer: Who, pool: Pool,
                                championships: Championships
                                ) -> ChampionshipCommandOut:
    await _referee(access, viewer, championship_id, match_id)
    outcome, champ = await championships.execute(
        championship_id, data.command_id,
        lambda _: [RecordDoubleForfeit(match_id, data.reason or "both absent")], actor=user.user_id,
        digest=_digest(request, data))
    return _outcome(championship_id, outcome, champ)


@post("/{championship_id:str}/referees", operation_id="grantReferee", refuses=(409, 422), status_code=200,
      summary="Organiser: make a user a referee of this championship", dto=Strict[NewReferee], return_dto=None)
async def grant_referee(request: Request, championship_id: FromPath[str], data: JSONBody[NewReferee],
                        user: Caller, access: Gate, viewer: Who, pool: Pool,
                        championships: Championships) -> RefereeGranted:
    await _organiser(access, viewer, championship_id)
    if (data.user_id is None) == (data.person is None):
        raise Problem(400, "invalid_field", "name the referee by user_id, or by person (his login or his name)",
                      field="person")
    if data.person is not None:
        user_id = await person_named(pool, data.person)
        if user_id is None:
            raise Problem(422, "unknown_user", f"nobody has the login or the name {data.person!r}", field="person")
    else:
        user_id = data.user_id
        await registration.check_users(pool, [user_id], "user_id")
    await grant(pool, "championship", championship_id, user_id, "referee")
    return RefereeGranted(championship_id, user_id, "referee")


@get("/{championship_id:str}/referees", operation_id="listReferees", refuses=(403,),
     summary="Organiser: the championship's referees, by their public names (never their logins)")
async def list_referees(championship_id: FromPath[str], access: Gate, viewer: Who, pool: Pool) -> list[RefereeOut]:
    await _organiser(access, viewer, championship_id)
    return [RefereeOut(**r) for r in await holders(pool, "championship", championship_id, "referee")]


@delete("/{championship_id:str}/referees/{user_id:str}", operation_id="removeReferee", refuses=(403, 404),
        status_code=204, summary="Organiser: a referee referees this championship no more")
async def remove_referee(championship_id: FromPath[str], user_id: FromPath[str], access: Gate, viewer: Who,
                         pool: Pool) -> None:
    await _organiser(access, viewer, championship_id)
    if not await revoke(pool, "championship", championship_id, user_id, "referee"):
        raise Problem(404, "not_a_referee", f"{user_id} does not referee this championship", field="user_id")


@post("/{championship_id:str}/finish", operation_id="finishChampionship", refuses=(409,), status_code=200,
      summary="Organiser: close the championship once every round is decided, with its final ranking",
      dto=Strict[Command], return_dto=None)
async def finish(request: Request, championship_id: FromPath[str], data: JSONBody[Command], user: Caller,
                 access: Gate, viewer: Who, pool: Pool,
                 championships: Championships) -> ChampionshipCommandOut:
    await _organiser(access, viewer, championship_id)
    await championships.matches.collect_results(championship_id)
    outcome, champ = await championships.execute(championship_id, data.command_id,
                                                 lambda _: [FinishChampionship()], actor=user.user_id,
                                                 digest=_digest(request, data))
    return _outcome(championship_id, outcome, champ)


MAX_IMPORT = 4 * 1024 * 1024      # a teams file: 10,240 teams of two fit many times over


@post("/{championship_id:str}/teams/import", operation_id="importTeams", refuses=(409, 413, 422), status_code=201,
      request_max_body_size=MAX_IMPORT,
      summary="Organiser: register the teams of a CSV file, all or none (422 bad_import names every bad line: "
              "its line, its column, why); dry_run=true checks it only")
async def import_teams(request: Request, championship_id: FromPath[str], user: Caller, access: Gate, viewer: Who,
                       pool: Pool,
                       championships: Championships, state: State,
                       command_id: Annotated[CommandId, QueryParameter(description="the import's command id: "
                                                                                   "sent again, nothing is added")],
                       dry_run: FromQuery[bool] = False) -> Imported:
    await _organiser(access, viewer, championship_id)
    body = await request.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Problem(400, "invalid_field", f"the file is not UTF-8 text (byte {exc.start}): save it as "
                                            "CSV UTF-8", field="body") from None
    return await imports.import_teams(championships, state.platform.accounts, pool, championship_id, text,
                                      actor=user.user_id,
                                      command_id=command_id, digest=command_digest((request.url.path, text)),
                                      dry_run=dry_run)


# ---- players (and organisers on their behalf) ----


@post("/{championship_id:str}/teams", operation_id="registerTeam", refuses=(409, 422), status_code=201,
      summary="Register a team of two players (four, two pairs, in a duplicate event): the organiser registers "
              "any team; a player proposes his own, "
              "and it registers once the other players and substitutes named have accepted",
      dto=Strict[NewTeam], return_dto=None)
async def register_team(request: Request, championship_id: FromPath[str], data: JSONBody[NewTeam], user: Caller,
                        pool: Pool, championships: Championships, access: Gate, viewer: Who) -> TeamRegistration:
    done = await registration.register_team(
        pool, championships, access, viewer, championship_id, by=user.user_id, command_id=data.command_id,
        digest=_digest(request, data), players=data.players, substitutes=data.substitutes, team_id=data.team_id)
    champ = done.championship
    if done.outcome is not None:
        return TeamRegistration(**msgspec.structs.asdict(_outcome(championship_id, done.outcome, champ)),
                                team_id=done.team_id, status=done.status, waiting=done.waiting)
    return TeamRegistration(championship_id, champ.version, done.replayed, [] if done.replayed else ["team_proposed"],
                            summary(championship_id, champ), team_id=done.team_id, status=done.status,
                            waiting=done.waiting)


async def _answer_team(championships: Championships, championship_id: str, team_id: str, user: User,
                       accept: bool) -> TeamRegistration:
    invitation, outcome, champ = await championships.invitations.answer(championship_id, team_id, user.user_id, accept)
    status = "declined" if invitation.declined else "invited" if invitation.waiting else "registered"
    return TeamRegistration(championship_id, outcome.version if outcome else champ.version,
                            bool(outcome and outcome.replayed), outcome.events if outcome else [],
                            summary(championship_id, champ), team_id=team_id, status=status,
                            waiting=list(invitation.waiting))


@post("/{championship_id:str}/teams/{team_id:str}/accept", operation_id="acceptTeam", refuses=(409,), status_code=200,
      summary="Accept your place in a proposed team; the last acceptance registers it")
async def accept_team(championship_id: FromPath[str], team_id: FromPath[str], user: Caller,
                      championships: Championships) -> TeamRegistration:
    return await _answer_team(championships, championship_id, team_id, user, True)


@post("/{championship_id:str}/teams/{team_id:str}/decline", operation_id="declineTeam", refuses=(409,), status_code=200,
      summary="Refuse your place in a proposed team: it is not registered")
async def decline_team(championship_id: FromPath[str], team_id: FromPath[str], user: Caller,
                       championships: Championships) -> TeamRegistration:
    return await _answer_team(championships, championship_id, team_id, user, False)


async def _member_or_organiser(access: Gate, viewer: Who, championship_id: str, team_id: str) -> None:
    champ = await access.championships.load(championship_id)
    team = _team_of(champ.state, team_id)
    await access.championship(viewer, championship_id, policy.team_member_or_organiser, team_id=team_id,
                              in_team=viewer.user_id in (*team.players, *team.substitutes))


@post("/{championship_id:str}/teams/{team_id:str}/withdraw", operation_id="withdrawTeam", refuses=(409,),
      status_code=200,
      summary="Withdraw a team (its player or the organiser); a match it was due to play is forfeited",
      dto=Strict[WithReason], return_dto=None)
async def withdraw_team(request: Request, championship_id: FromPath[str], team_id: FromPath[str],
                        data: JSONBody[WithReason], user: Caller, access: Gate, viewer: Who, pool: Pool,
                        championships: Championships
                        ) -> ChampionshipCommandOut:
    await _member_or_organiser(access, viewer, championship_id, team_id)
    outcome, champ = await championships.execute(championship_id, data.command_id,
                                                 lambda _: [WithdrawTeam(team_id, data.reason)], actor=user.user_id,
                                                 digest=_digest(request, data))
    return _outcome(championship_id, outcome, champ)


@post("/{championship_id:str}/teams/{team_id:str}/substitute", operation_id="substitutePlayer", refuses=(409, 422),
      status_code=200,
      summary="Bring in a registered substitute for a player, from the next round on",
      dto=Strict[Substitution], return_dto=None)
async def substitute(request: Request, championship_id: FromPath[str], team_id: FromPath[str],
                     data: JSONBody[Substitution], user: Caller, access: Gate, viewer: Who, pool: Pool,
                     championships: Championships
                     ) -> ChampionshipCommandOut:
    await _member_or_organiser(access, viewer, championship_id, team_id)
    outcome, champ = await championships.execute(
        championship_id, data.command_id, lambda _: [SubstitutePlayer(team_id, data.player_out, data.player_in)],
        actor=user.user_id, digest=_digest(request, data))
    return _outcome(championship_id, outcome, champ)


@post("/{championship_id:str}/matches/{match_id:str}/check-in", operation_id="checkIn", refuses=(409,), status_code=200,
      summary="A player checks in for their match of the round being played; the table opens once both "
              "teams are in, and a team not in when the window closes forfeits",
      dto=Strict[CheckIn], return_dto=None)
async def check_in(request: Request, championship_id: FromPath[str], match_id: FromPath[str],
                   data: JSONBody[CheckIn], user: Caller, championships: Championships, access: Gate,
                   viewer: Who) -> CheckInOut:
    await access.championship(viewer, championship_id, policy.check_in, match_id=match_id)
    stored, checks, champ = await championships.check_ins.check_in(championship_id, match_id, user.user_id, by=user.user_id)
    round_no = champ.state.rounds[-1].number
    tables = [r["table_id"] for r in await championships.matches.tables_of(championship_id) if r["match_id"] == match_id]
    return CheckInOut(championship_id, round_no, match_id, not stored,
                      sorted(checks.of(round_no, match_id)), closes_at(champ, round_no, checks).isoformat(),
                      tables)


@get("/{championship_id:str}/proposals", operation_id="listTeamProposals", refuses=(403,),
     summary="Organisers and referees: the teams players proposed that are not registered yet (waiting for "
             "their players' answers, or declined)")
async def list_proposals(championship_id: FromPath[str], user: Caller, access: Gate, viewer: Who, pool: Pool,
                         championships: Championships
                         ) -> list[ProposalOut]:
    await _referee(access, viewer, championship_id)
    state = (await championships.load(championship_id)).state
    _, invites = await championships.invitations.of(championship_id)
    return [ProposalOut(tid, list(i.proposal.players), list(i.proposal.substitutes), i.proposal.by, list(i.waiting),
                        "declined" if i.declined else "invited")
            for tid, i in sorted(invites.items()) if tid not in state.teams]


@post("/{championship_id:str}/rounds/{round_no:int}/check-in/extend", operation_id="extendCheckIn", refuses=(409,),
      status_code=200,
      summary="Organiser: keep the round's check-in window open longer (before it closes)",
      dto=Strict[Extension], return_dto=None)
async def extend_check_in(championship_id: FromPath[str], round_no: FromPath[int], data: JSONBody[Extension],
                          user: Caller, access: Gate, viewer: Who, pool: Pool,
                          championships: Championships) -> CheckInWindow:
    await _organiser(access, viewer, championship_id)
    checks = await championships.check_ins.extend(championship_id, round_no, data.seconds, by=user.user_id,
                                                  command_id=data.command_id)
    champ = await championships.load(championship_id)
    return CheckInWindow(championship_id, round_no, closes_at(champ, round_no, checks).isoformat())


# ---- everyone ----

@get("/", operation_id="listChampionships", refuses=(403,),
     summary="Championships, the newest first (organised=true: the caller's own, for the organiser console)")
async def list_championships(user: Caller, pool: Pool, championships: Championships, access: Gate, viewer: Who,
                             limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100,
                             organised: FromQuery[bool] = False) -> list[ChampionshipListed]:
    if organised:
        await access.organiser_console(viewer)
    out = []
    for championship_id, created in await championships_created(pool, stream_of(""), limit,
                                                                user.user_id if organised else None):
        state = (await championships.load(championship_id)).state
        champion = (await team_names(pool, state, [state.champion])).get(state.champion, "") if state.champion else ""
        out.append(ChampionshipListed(championship_id, state.settings.name, state.settings.format, state.status,
                                      len(state.team_order), len(state.rounds), state.champion, created, champion))
    return out


@get("/{championship_id:str}", operation_id="getChampionship",
     summary="A championship's settings, teams and status (teams=false: without the teams and the draw's order, "
             "and only the ranking's first eight: the facts a page of a 10,240-team championship shows)")
async def get_championship(championship_id: FromPath[str], user: Caller, championships: Championships,
                           pool: Pool, teams: FromQuery[bool] = True) -> ChampionshipSummary:
    champ = await championships.load(championship_id)
    out = summary(championship_id, champ)
    if not teams:                # a page of a large championship: its facts without the field's lists
        out.teams, out.draw_order, out.ranking = [], [], out.ranking[:8]
        out.names = await team_names(pool, champ.state, [*(r.team_id for r in out.ranking),
                                                         *([out.champion] if out.champion else [])])
    return out


@get("/{championship_id:str}/standings", operation_id="getStandings",
     summary="Every team, best first, ordered by the championship's tie-breakers, each with its name "
             "(offset and limit: a page of them)")
async def get_standings(championship_id: FromPath[str], user: Caller, championships: Championships, pool: Pool,
                        offset: Annotated[int, QueryParameter(ge=0, le=2**31 - 1)] = 0,
                        limit: Annotated[int | None, QueryParameter(ge=1, le=10_000)] = None) -> list[StandingRow]:
    return await named_standings(championships, pool, championship_id, offset, limit)


@get("/{championship_id:str}/bracket", operation_id="getBracket",
     summary="The bracket as a graph: matches, the winner/loser edges between them, each team's path (round=N: "
             "that round's matches, the edges into them and their teams' paths; team=ID: that team's path)")
async def get_bracket(championship_id: FromPath[str], user: Caller, championships: Championships, pool: Pool,
                      round_no: Annotated[int | None, QueryParameter(name="round", ge=1, le=2**31 - 1)] = None,
                      team: FromQuery[str | None] = None) -> BracketOut:
    champ = await championships.load(championship_id)
    b = champ.bracket
    if round_no is None and team is None:
        return BracketOut(bracket_projection.nodes(b), list(b.edges),
                          {t: list(path) for t, path in sorted(b.paths.items())})
    nodes = [n for n in (bracket_projection.path(b, team) if team is not None else bracket_projection.nodes(b))
             if round_no is None or n.round == round_no]
    ids = {n.match_id for n in nodes}
    playing = {t for n in nodes for t in (n.team_a, n.team_b) if t is not None}
    teams = {team} if team is not None else playing
    return BracketOut(nodes, [e for e in b.edges if e.target in ids],
                      {t: list(path) for t, path in sorted(b.paths.items()) if t in teams},
                      await team_names(pool, champ.state, playing))


@get("/{championship_id:str}/bracket/section", operation_id="getBracketSection", refuses=(409,),
     summary="A section of the bracket to draw: `size` matches of a stage's round (section from 1, or the one "
             "holding `match`) and the matches their winners go on to, over `depth` columns; what a page of a "
             "10,240-team championship fetches instead of the whole bracket")
async def get_bracket_section(championship_id: FromPath[str], user: Caller, championships: Championships,
                              pool: Pool, stage: FromQuery[str | None] = None,
                              round_no: Annotated[int | None, QueryParameter(name="round", ge=1, le=2**31 - 1)] = None,
                              number: Annotated[int, QueryParameter(name="section", ge=1, le=2**31 - 1)] = 1,
                              size: Annotated[int, QueryParameter(ge=1, le=64)] = 8,
                              depth: Annotated[int, QueryParameter(ge=1, le=8)] = 4,
                              match: FromQuery[str | None] = None) -> BracketSectionOut:
    champ = await championships.load(championship_id)
    part, shown = bracket_section(champ.bracket, stage=stage, round_no=round_no, number=number, size=size,
                                  depth=depth, match=match)
    return BracketSectionOut(part, await team_names(pool, champ.state, shown))


@get("/{championship_id:str}/teams", operation_id="findTeams",
     summary="Teams whose id, name or players' names contain `q` (ignoring case), at most `limit`, with where each is "
             "in the bracket: a spectator's search in a championship too large to send whole")
async def find_teams(championship_id: FromPath[str], user: Caller, championships: Championships, pool: Pool,
                     q: Annotated[str, QueryParameter(min_length=1, max_length=100)],
                     limit: Annotated[int, QueryParameter(ge=1, le=50)] = 10) -> list[TeamFound]:
    champ = await championships.load(championship_id)
    state, wanted = champ.state, q.casefold()
    named = await people.named_like(pool, [p for t in state.team_order for p in state.teams[t].players], wanted)
    found = [t for t in state.team_order
             if wanted in t.casefold() or any(p in named for p in state.teams[t].players)
             or (state.teams[t].info is not None and wanted in state.teams[t].info.name.casefold())][:limit]
    names = await team_names(pool, state, found)
    paths = champ.bracket.paths
    return [TeamFound(t, names[t], list(state.teams[t].players), (paths.get(t) or (None,))[-1]) for t in found]


@get("/{championship_id:str}/pairings", operation_id="getPairings",
     summary="The next round's pairings, known and not started yet: round 1's once the draw is made (the draw is "
             "public), a later round's once the last one is decided; none otherwise")
async def get_pairings(championship_id: FromPath[str], user: Caller, championships: Championships,
                       pool: Pool) -> PairingsOut:
    state, waiting = await next_pairings(championships, championship_id)
    if waiting is None:
        return PairingsOut(None, [], {})
    number, matches = waiting
    teams = [t for m in matches for t in (m.team_a, m.team_b) if t is not None]
    return PairingsOut(number, [PairingOut(m.match_id, m.stage, m.team_a, m.team_b, m.note) for m in matches],
                       await team_names(pool, state, teams))


@get("/{championship_id:str}/matches", operation_id="listMatches",
     summary="Every match with its tables and status (mine=true: only the caller's matches; round=N: that round's; "
             "match=ID: that one)")
async def list_matches(championship_id: FromPath[str], user: Caller, championships: Championships,
                       mine: FromQuery[bool] = False,
                       round_no: Annotated[int | None, QueryParameter(name="round", ge=1, le=2**31 - 1)] = None,
                       match: FromQuery[str | None] = None) -> list[MatchOut]:
    state = (await championships.load(championship_id)).state
    tables: dict[str, list[MatchTable]] = {}
    for r in await championships.matches.tables_of(championship_id):
        tables.setdefault(r["match_id"], []).append(
            MatchTable(r["table_id"], r["game_no"], r["status"], list(r["seats"])))
    my_team = state.players.get(user.user_id)
    out = []
    for round_ in state.rounds:
        if round_no is not None and round_.number != round_no:
            continue
        for m in round_.matches:
            if match is not None and m.match_id != match:
                continue
            its_tables = tables.get(m.match_id, [])
            if mine and my_team not in (m.team_a, m.team_b) and not any(
                    user.user_id in t.seats for t in its_tables):
                continue
            o = round_.outcomes[m.index]
            status = "decided" if o is not None else "playing" if its_tables else "waiting"
            games = None
            if o is not None and o.result is not None:
                games = (o.result.team_a_games, o.result.team_b_games)
            out.append(MatchOut(m.match_id, m.round, m.stage, m.team_a, m.team_b, m.note, status,
                                o.kind if o else None, o.winner if o else None, games, its_tables))
    return out


@get("/{championship_id:str}/monitor", operation_id="monitorChampionship", refuses=(403,),
     summary="Organisers and referees: every match of a round with its state, a count per state and what needs "
             "the organiser now (paged: after, limit; filters: state, q)")
async def get_monitor(championship_id: FromPath[str], access: Gate, viewer: Who, championships: Championships,
                      round_no: Annotated[int | None, QueryParameter(name="round", ge=1, le=2**31 - 1)] = None,
                      match_state: Annotated[MonitorState | None, QueryParameter(name="state")] = None,
                      q: Annotated[str, QueryParameter(max_length=80)] = "",
                      after: Annotated[int, QueryParameter(ge=-1, le=2**31 - 1)] = -1,
                      limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100) -> Monitor:
    await _referee(access, viewer, championship_id)
    return await monitor(championships, championship_id, round_no=round_no, state_filter=match_state, query=q,
                         after=after, limit=limit)


championship_router = Router(tags=["championships"], path="/championships", route_handlers=[
    create_championship, import_teams, register_team, accept_team, decline_team, withdraw_team, substitute, close_registration,
    make_draw, start_round,
    record_forfeit, record_double_forfeit, grant_referee, list_referees, remove_referee, finish, get_championship, get_pairings, get_standings, get_bracket,
    get_bracket_section, find_teams, list_matches, check_in, list_championships, get_monitor, extend_check_in, list_proposals,
])
