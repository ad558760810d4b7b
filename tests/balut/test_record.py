"""``balut-game/1`` records: the shipped schema, the audit round trip, what the audit finds, and
``baloot audit`` telling the two record formats apart."""

import json
import pathlib
import subprocess
import sys

import jsonschema
import msgspec
import pytest

from domain.balut.audit import audit_record, render_report
from domain.balut.record import MalformedRecord, encode_record, export_record, game_record_schema, parse_record
from domain.balut.simulate import play_game
from domain.games import record_format_of

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA_FILE = ROOT / "schemas" / "balut-game-1.schema.json"


@pytest.fixture(scope="module")
def game():
    return play_game(["strong", "simple", "strong"], "record-test", first_player=1)


@pytest.fixture
def document(game):
    return json.loads(encode_record(export_record(game[1])))


def test_the_shipped_schema_is_the_generated_one():
    assert json.loads(SCHEMA_FILE.read_text()) == game_record_schema()


def test_the_schema_accepts_an_exported_game_and_refuses_unknown_fields(document):
    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.validate(document, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document | {"colour": "red"}, schema)
    document["turns"][0]["faces"] = "12345/12345"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


def test_audit_round_trip_gives_the_games_result(game, document):
    state, _ = game
    report = audit_record(parse_record(json.dumps(document)))
    assert report.valid and report.complete and report.violations == []
    assert tuple(report.totals) == state.result.totals and tuple(report.places) == state.result.places
    assert report.seeds_checked == 21
    assert "VALID" in render_report(report)


def test_a_changed_die_is_a_dice_mismatch(document):
    first = document["turns"][0]["throws"][0]
    wrong = "".join("1" if d != "1" else "2" for d in first["dice"])
    first["dice"] = wrong
    (v,) = audit_record(parse_record(json.dumps(document))).violations
    assert (v.turn, v.rule) == (0, "dice_mismatch") and f"the record says {wrong}" in v.message


def test_a_wrong_score_is_a_points_mismatch(document):
    document["turns"][2]["points"] += 1
    (v,) = audit_record(parse_record(json.dumps(document))).violations
    assert (v.turn, v.rule) == (2, "points_mismatch")


def test_a_seed_that_does_not_give_the_faces_is_a_seed_mismatch(document):
    document["turns"][4]["seed"] = "not-the-seed"
    (v,) = audit_record(parse_record(json.dumps(document))).violations
    assert (v.turn, v.rule, v.message) == (4, "seed_mismatch", "the seed does not give the turn's faces")


def test_a_turn_out_of_order_stops_the_replay(document):
    document["turns"][1]["seat"] = document["turns"][0]["seat"]
    report = audit_record(parse_record(json.dumps(document)))
    assert not report.valid and report.violations[0].rule == "not_your_turn"
    assert report.actions[-1].startswith("#1 seat")


def test_a_refused_action_is_named_with_its_rule(document):
    turns = document["turns"]
    # Seat of turn 0 writes turn 0's row again in its next turn: each row is written once.
    again = next(i for i, t in enumerate(turns) if i and t["seat"] == turns[0]["seat"])
    turns[again]["category"] = turns[0]["category"]
    report = audit_record(parse_record(json.dumps(document)))
    assert (report.violations[0].turn, report.violations[0].rule) == (again, "row_full")
    assert not report.complete and "REFUSED (row_full)" in report.actions[-1]


def test_an_unfinished_game_is_incomplete(document):
    document["turns"] = document["turns"][:5]
    report = audit_record(parse_record(json.dumps(document)))
    assert [v.rule for v in report.violations] == ["incomplete"]
    assert "the record ends after 5 of the game's turns" in report.violations[0].message


@pytest.mark.parametrize("change, where", [
    (lambda d: d.update(players=9), "$.players"),
    (lambda d: d.update(first_player=5), "$.first_player"),
    (lambda d: d["turns"][0]["throws"][0].update(keep=[1]), "$.turns[0].throws[0].keep"),
    (lambda d: d["turns"][0].update(category=None), "$.turns[0].category"),
    (lambda d: d.update(switches={"fills": 9}), "$.profile"),
])
def test_a_malformed_record_names_the_field(document, change, where):
    change(document)
    with pytest.raises(MalformedRecord) as info:
        parse_record(json.dumps(document))
    assert where in str(info.value)


def test_the_record_format_is_told_by_its_format_field(document):
    assert record_format_of(json.dumps(document)).name == "balut-game/1"
    assert record_format_of(json.dumps({"format": "baloot-hand/1"})).name == "baloot-hand/1"
    with pytest.raises(ValueError, match="not a record format this engine reads"):
        record_format_of(json.dumps({"format": "chess-pgn/1"}))


def baloot(*args, stdin: bytes | None = None):
    return subprocess.run([sys.executable, "-m", "services.cli", *args], input=stdin, capture_output=True,
                          cwd=ROOT, timeout=120)


def test_baloot_audit_reads_a_balut_record(tmp_path, document, game):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(document))
    out = baloot("audit", str(path))
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode()
    assert "balut-game/1 audit" in text and "VALID" in text
    assert "  TOTAL     " + "".join(f"  {t:>8}" for t in game[0].result.totals) in text
    report = msgspec.json.decode(baloot("audit", "--json", "-", stdin=path.read_bytes()).stdout)
    assert report["format"] == "balut-game/1" and report["valid"] is True


def test_baloot_audit_exit_codes_for_balut(tmp_path, document):
    document["turns"][2]["points"] += 1
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(document))
    assert baloot("audit", str(path)).returncode == 1
    document["turns"][2]["seat"] = 99
    path.write_text(json.dumps(document))
    out = baloot("audit", str(path))
    assert out.returncode == 2 and "$.turns[2].seat" in out.stderr.decode()
