"""GET /profiles: each game's rule profiles with their switches, as the profiles themselves have them; a
switch it lists is one a championship or a table takes."""

from __future__ import annotations

import msgspec

from domain.games import GAMES
from tests.api.conftest import new_user


async def test_every_profile_is_listed_with_each_switch_at_its_value(api):
    listed = (await api.get("/profiles")).json()
    assert set(listed) == set(GAMES)
    for game, profiles in listed.items():
        assert [p["name"] for p in profiles] == list(GAMES[game].info.profile_names)
        for p in profiles:
            profile = GAMES[game].profile(p["name"])
            fields = set(type(profile).__struct_fields__) - {"name"}
            assert {s["name"] for s in p["switches"]} == fields
            for s in p["switches"]:
                assert s["value"] == msgspec.to_builtins(getattr(profile, s["name"]))
                if s["kind"] == "choice":
                    assert s["value"] in s["choices"]
    saudi = next(p for p in listed["baloot"] if p["name"] == "saudi")
    kawesh = next(s for s in saudi["switches"] if s["name"] == "kawesh")
    assert (kawesh["kind"], kawesh["value"]) == ("bool", True)
    cap = next(s for s in saudi["switches"] if s["name"] == "project_multiplier_cap")
    assert cap["optional"] and cap["kind"] == "int"


async def test_a_listed_switch_is_taken_by_a_championship(api):
    _, organiser = await new_user(api, "organiser")
    listed = (await api.get("/profiles")).json()
    choice = next(s for s in listed["baloot"][0]["switches"] if s["kind"] == "choice")
    other = next(c for c in choice["choices"] if c != choice["value"])
    r = await api.post("/championships", headers=organiser, json={
        "command_id": "c", "name": "Cup", "profile": listed["baloot"][0]["name"],
        "switches": {"kawesh": False, choice["name"]: other}})
    assert r.status_code == 201, r.text
    assert r.json()["summary"]["settings"]["switches"] == {"kawesh": False, choice["name"]: other}


async def test_each_game_lists_what_a_table_of_it_takes_and_a_table_takes_each_level_listed(api):
    listed = {g["name"]: g for g in (await api.get("/games")).json()}
    assert listed["balut"]["bot_levels"] == ["simple", "strong"] and listed["balut"]["table_modes"] == ["strict"]
    assert listed["baloot"]["bot_levels"] == ["easy", "normal", "hard", "expert"]
    assert "recorded" in listed["baloot"]["table_modes"]
    assert (listed["baloot"]["min_seats"], listed["baloot"]["max_seats"]) == (4, 4)
    assert (listed["balut"]["min_seats"], listed["balut"]["max_seats"]) == (2, 8)
    me, headers = await new_user(api, "player")
    for game, g in listed.items():
        for level in g["bot_levels"]:
            r = await api.post("/tables", headers=headers, json={
                "game": game, "seats": [me] + ["bot"] * (g["min_seats"] - 1), "bot_level": level})
            assert r.status_code == 201, (game, level, r.text)
