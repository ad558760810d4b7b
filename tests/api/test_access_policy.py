"""The access policy's rules that officials and proposers once slipped through (issue 45's holes 1, 2 and 7),
over HTTP against real PostgreSQL: an official who plays in a round is not its official until it is decided;
a private table's referee is one of its terms, which every invitee reads before he accepts."""

from __future__ import annotations

from services.access import policy
from services.access.policy import Relations, TableFacts
from services.errors import Forbidden
from tests.api.conftest import new_user, open_table
from tests.api.test_championships import command, create
from tests.api.test_duplicate_championship import register as register_four
from tests.api.test_tables import assert_problem


async def _duplicate_round(api, organiser, teams) -> tuple[str, dict, dict]:
    """A duplicate championship of ``teams`` (lists of four (user id, headers)), round 1 started: its id and
    the match's two tables."""
    cid = await create(api, organiser, format="duplicate", duplicate_boards=1)
    for k, team in enumerate(teams):
        r = await register_four(api, cid, organiser, [uid for uid, _ in team], f"T{k + 1}")
        assert r.status_code == 201, r.text
    return cid, *await _start(api, cid, organiser)


async def _start(api, cid, organiser) -> tuple[dict, dict]:
    await command(api, cid, "registration/close", organiser, "close")
    await command(api, cid, "draw", organiser, "draw")
    await command(api, cid, "rounds/1/start", organiser, "round-1")
    (m,) = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    t1, t2 = sorted(m["tables"], key=lambda t: t["game_no"])
    return t1, t2


def _other(t1, t2, uid):
    return t2 if uid in t1["seats"] else t1


async def test_a_referee_who_plays_the_boards_cannot_open_the_other_table_of_his_match(api):
    """Hole 1: the organiser names a registered player referee; he read the other table's desk (every live
    hand, his own among them) and its view."""
    organiser_id, organiser = await new_user(api, "organiser")
    teams = [[await new_user(api, f"t{t} p{p}") for p in range(4)] for t in range(2)]
    referee_id, referee = teams[0][0]
    cid = await create(api, organiser, format="duplicate", duplicate_boards=1)
    r = await api.post(f"/championships/{cid}/referees", json={"user_id": referee_id}, headers=organiser)
    assert r.status_code == 200, r.text
    for k, team in enumerate(teams):
        r = await register_four(api, cid, organiser, [uid for uid, _ in team], f"T{k + 1}")
        assert r.status_code == 201, r.text
    t1, t2 = await _start(api, cid, organiser)
    other = _other(t1, t2, referee_id)["table_id"]
    for path in ("deals/1/desk", "view", "deals/1/record", "live"):
        assert_problem(await api.get(f"/tables/{other}/{path}", headers=referee), 403, "board_hidden")
    assert_problem(await api.post(f"/tables/{other}/rulings", headers=referee, json={
        "command_id": "r", "ruling": {"type": "end_game", "reason": "x", "winner": 0}}), 403, "board_hidden")
    # The organiser, who plays nothing, still referees both tables.
    r = await api.get(f"/tables/{other}/deals/1/desk", headers=organiser)
    assert r.status_code == 200, r.text
    hands = r.json()["steps"][-1]["deal"]["hands"]
    assert len(hands) == 4 and all(hands)                    # every hand, live


async def test_an_organiser_in_his_own_event_is_a_player_of_its_boards(api):
    """Hole 2: an organiser who registers a team with himself in it read the other table's desk."""
    organiser_id, organiser = await new_user(api, "organiser")
    teams = [[await new_user(api, f"t{t} p{p}") for p in range(4)] for t in range(2)]
    teams[1][3] = (organiser_id, organiser)
    cid, t1, t2 = await _duplicate_round(api, organiser, teams)
    other = _other(t1, t2, organiser_id)["table_id"]
    for path in ("deals/1/desk", "view", "state?at=1", "receipts"):
        assert_problem(await api.get(f"/tables/{other}/{path}", headers=organiser), 403, "board_hidden")
    # The records zip he may still export leaves both tables out while the round is played (his own table's
    # finished deals would show the boards too).
    r = await api.get(f"/championships/{cid}/export/records.zip", headers=organiser)
    assert r.status_code == 200
    # Nor may he read the fair-play report of the event he plays in, before it is finished.
    assert_problem(await api.get(f"/championships/{cid}/fairplay", headers=organiser), 403, "official_plays")


async def test_a_playing_official_referees_no_table_of_his_round_and_forfeits_no_match_of_his_own(api):
    organiser_id, organiser = await new_user(api, "organiser")
    referee_id, referee = await new_user(api, "neutral referee")
    teams = [[await new_user(api, f"t{t} p{p}") for p in range(2)] for t in range(4)]
    teams[0][0] = (organiser_id, organiser)
    cid = await create(api, organiser)
    assert (await api.post(f"/championships/{cid}/referees", json={"user_id": referee_id},
                           headers=organiser)).status_code == 200
    for k, team in enumerate(teams):
        r = await api.post(f"/championships/{cid}/teams", headers=organiser, json={
            "command_id": f"reg-{k}", "team_id": f"T{k + 1}", "players": [uid for uid, _ in team]})
        assert r.status_code == 201, r.text
    await command(api, cid, "registration/close", organiser, "close")
    await command(api, cid, "draw", organiser, "draw")
    await command(api, cid, "rounds/1/start", organiser, "round-1")
    matches = (await api.get(f"/championships/{cid}/matches", headers=organiser)).json()
    mine = next(m for m in matches if "T1" in (m["team_a"], m["team_b"]))
    theirs = next(m for m in matches if m is not mine)
    their_table = theirs["tables"][0]["table_id"]
    # Another match of the round he plays: no desk, no ruling (its deals are not his, but its result is).
    assert_problem(await api.get(f"/tables/{their_table}/deals/1/desk", headers=organiser), 403, "official_plays")
    r = await api.get(f"/tables/{their_table}/deals/1/desk", headers=referee)
    assert r.status_code == 200, r.text
    # A forfeit in his own match is for the other officials to record; another match's is his to record.
    absent = mine["team_b"] if mine["team_a"] == "T1" else mine["team_a"]
    assert_problem(await api.post(f"/championships/{cid}/matches/{mine['match_id']}/forfeit", headers=organiser,
                                  json={"command_id": "f1", "absent": absent}), 403, "own_match")
    before = (await api.get(f"/championships/{cid}", headers=organiser)).json()["version"]
    assert (await api.get(f"/championships/{cid}", headers=organiser)).json()["version"] == before
    r = await api.post(f"/championships/{cid}/matches/{theirs['match_id']}/forfeit", headers=organiser,
                       json={"command_id": "f2", "absent": theirs["team_b"]})
    assert r.status_code == 200, r.text
    r = await api.post(f"/championships/{cid}/matches/{mine['match_id']}/forfeit", headers=referee,
                       json={"command_id": "f3", "absent": absent})
    assert r.status_code == 200, r.text


async def test_a_private_tables_referee_is_named_in_the_terms_every_invitee_reads(api, players):
    """Hole 7: the proposer who does not sit read every live hand at the desk, and neither the invitation nor
    its terms told the invitees."""
    proposer_id, proposer = await new_user(api, "proposer")
    r = await api.post("/tables", json={"seats": [uid for uid, _ in players]}, headers=proposer)
    assert r.status_code == 201, r.text
    table_id = r.json()["table_id"]
    for uid, headers in players:
        (invitation,) = (await api.get("/me/lobby", headers=headers)).json()["invitations"]
        assert invitation["terms"]["referee"] == proposer_id and invitation["proposed_by"] == proposer_id
        assert (await api.get(f"/tables/{table_id}/view", headers=headers)).json()["terms"]["referee"] == proposer_id
    # A table whose proposer sits at it has no referee of its own; nor has a championship's.
    seated = await open_table(api, players)
    assert (await api.get(f"/tables/{seated}/view", headers=players[0][1])).json()["terms"]["referee"] is None


def refused(fn, *args) -> str | None:
    """The rule a policy call refuses with, or None when it allows."""
    try:
        fn(*args)
    except Forbidden as refusal:
        return refusal.rule
    return None


def test_the_policy_table_by_hand():
    """A few cells of docs/access.md, the relations and facts written by hand (no database)."""
    shared = TableFacts("t", ("a", "b", "c", "d"), "held", boards_in_play=True, why_hidden="until the round ends")
    closed = TableFacts("t", ("a", "b", "c", "d"), "closed", hands_policy="never")

    player, stranger = Relations("a"), Relations("x")
    organiser, playing = Relations("o", organiser=True), Relations("o", organiser=True, member=True, plays_round=True)
    assert policy.sight(shared, player).seat == 0
    assert refused(policy.records, shared, player, policy.sight(shared, player)) == "board_hidden"
    assert refused(policy.sight, shared, stranger) == "board_hidden"
    assert refused(policy.referee, shared, playing) == "board_hidden"
    assert policy.sight(shared, organiser).live and refused(policy.referee, shared, organiser) is None
    assert refused(policy.referee, closed, playing) == "official_plays"
    assert refused(policy.referee, closed, player) == "not_referee"
    seen = policy.sight(closed, stranger)
    assert not seen.live and refused(policy.records, closed, stranger, seen) == "hands_hidden"
    proposed = TableFacts("t", ("a", "b", "c", "d"), "proposed", referee="p")
    assert refused(policy.referee, proposed, Relations("p")) is None
    assert refused(policy.invitee, proposed, Relations("p")) == "not_invited"
    c = policy.ChampionshipFacts("c", "running")
    assert refused(policy.fair_play, c, Relations("o", referee=True, member=True)) == "official_plays"
    assert refused(policy.fair_play, policy.ChampionshipFacts("c", "finished"),
                   Relations("o", referee=True, member=True)) is None
    assert refused(policy.forfeit, c, Relations("o", organiser=True, own_match=True)) == "own_match"


def test_the_platform_referee_by_hand():
    """The platform's referee role (docs/access.md): an official of every table he neither sits at nor is
    invited to, the daily deal's aside; a referee of every championship; a playing official of his own round
    like a championship's, and never the referee of a table where he plays."""

    plat = Relations("p", platform=frozenset({"referee"}))
    organiser_only = Relations("p", platform=frozenset({"organiser"}))
    private = TableFacts("t", ("a", "b", "c", "d"), "live", referee="tr")
    assert refused(policy.referee, private, plat) is None
    assert policy.sight(private, plat).official and policy.sight(private, plat).live
    assert refused(policy.referee, private, organiser_only) == "not_referee"
    # He sits at it, or is invited to it: its player, nobody's referee.
    seated = TableFacts("t", ("a", "p", "c", "d"), "live")
    assert refused(policy.referee, seated, plat) == "not_referee"
    assert policy.sight(seated, plat).seat == 1 and not policy.sight(seated, plat).official
    assert refused(policy.referee, TableFacts("t", ("a", "p", "c", "d"), "proposed"), plat) == "not_referee"
    # A championship's table of boards in play: he sees and rules it as its referees do, unless he plays the
    # round (board_hidden while its boards are played, official_plays once they are done and the round is not).
    shared = TableFacts("t", ("a", "b", "c", "d"), "held", boards_in_play=True, why_hidden="until the round ends")
    assert refused(policy.referee, shared, plat) is None and policy.sight(shared, plat).official
    playing = Relations("p", member=True, plays_round=True, platform=frozenset({"referee"}))
    assert refused(policy.referee, shared, playing) == "board_hidden"
    assert refused(policy.sight, shared, playing) == "board_hidden"
    assert refused(policy.referee, TableFacts("t", ("a", "b", "c", "d"), "closed"), playing) == "official_plays"
    # The daily deal's tables have no official: everyone may play their boards.
    daily_open = TableFacts("t", ("a", "bot", "bot", "bot"), "live", boards_in_play=True, daily=True)
    assert refused(policy.referee, daily_open, plat) == "board_hidden"
    daily_closed = TableFacts("t", ("a", "bot", "bot", "bot"), "closed", daily=True)
    assert refused(policy.referee, daily_closed, plat) == "not_referee"
    # Every championship's: the monitor, the exports, forfeits (never of his own team's match), fair play once
    # it is finished if he plays in it; running it stays the organisers'.
    c = policy.ChampionshipFacts("c", "running")
    assert refused(policy.championship_official, c, plat) is None
    assert refused(policy.championship_official, c, organiser_only) == "not_referee"
    assert refused(policy.exports, c, plat) is None
    assert refused(policy.forfeit, c, plat) is None
    assert refused(policy.forfeit, c, Relations("p", member=True, own_match=True,
                                                platform=frozenset({"referee"}))) == "own_match"
    assert refused(policy.fair_play, c, Relations("p", member=True, platform=frozenset({"referee"}))) == "official_plays"
    assert refused(policy.organiser, c, plat) == "not_organiser"
