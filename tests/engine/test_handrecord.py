"""Hand records (§11): the worked examples, export/import, the shipped JSON Schema, malformed documents."""

import hashlib
import json
import pathlib

import jsonschema
import msgspec
import pytest

from domain.baloot.audit import audit_record
from domain.baloot.deal import fold as fold_deal
from domain.baloot.handrecord import MalformedRecord, encode_record, export_record, hand_record_schema, parse_record
from domain.baloot.simulate import deal_events_of_game, play_game_events

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES_DIR = ROOT / "tests" / "data" / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.json"))
SCHEMA_FILE = ROOT / "schemas" / "baloot-hand-1.schema.json"
# Where the examples come from: the rules contract's folder, beside the checkout on the maintainers'
# machines only. The tests read the copy in tests/data; this path serves one consistency check, which runs
# only when that folder exists (a clone on its own skips it and needs nothing outside the repository).
SHARED_EXAMPLES_DIR = ROOT.parent / "shared" / "rules" / "examples"


def load(path):
    data = json.loads(path.read_text())
    return data["record"], data["expected"]


def test_the_examples_are_there():
    assert len(EXAMPLES) >= 20


@pytest.mark.skipif(not SHARED_EXAMPLES_DIR.is_dir(), reason="no ../shared/rules/examples beside the checkout")
def test_the_examples_are_still_the_shared_ones():
    # A consistency check only where ../shared sits beside the checkout: the repository's own copy
    # (tests/data/examples) is what every other test reads, so a clone stands alone.
    shared = sorted(p.name for p in SHARED_EXAMPLES_DIR.glob("*.json"))
    assert [p.name for p in EXAMPLES] == shared, "copy ../shared/rules/examples/*.json to tests/data/examples"
    changed = [name for name in shared
               if (EXAMPLES_DIR / name).read_bytes() != (SHARED_EXAMPLES_DIR / name).read_bytes()]
    assert not changed, f"tests/data/examples differs from ../shared/rules/examples in {changed}"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_worked_example(path):
    record, expected = load(path)
    report = audit_record(parse_record(json.dumps(record)))
    if expected["valid"]:
        assert report.valid, report.violations
        assert msgspec.to_builtins(report.contract) == expected["contract"]
        assert list(report.card_points) == expected["card_points"]
        assert list(report.game_points) == expected["game_points"]
        assert (report.kaboot, report.failed, report.void) == (expected["kaboot"], expected["failed"],
                                                               expected["void"])
    else:
        first = report.violations[0]
        assert (first.index, first.rule) == (expected["error_index"], expected["reason"])
        assert first.seat == record["actions"][first.index]["seat"]


def test_the_shipped_schema_is_the_generated_one():
    assert json.loads(SCHEMA_FILE.read_text()) == hand_record_schema()


@pytest.mark.parametrize("path", EXAMPLES[:4], ids=lambda p: p.stem)
def test_the_schema_accepts_the_examples(path):
    record, _ = load(path)
    jsonschema.validate(record, json.loads(SCHEMA_FILE.read_text()))


def test_the_schema_rejects_an_unknown_field_and_an_action_with_two_kinds():
    record = base_record()
    schema = json.loads(SCHEMA_FILE.read_text())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record | {"colour": "red"}, schema)
    two = dict(record, actions=[{"seat": 0, "bid": "pass", "play": "7S"}])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(two, schema)


@pytest.mark.parametrize("seed", range(6))
def test_export_then_import_gives_the_same_result(seed):
    state, events = play_game_events(seed, table_mode="recorded" if seed % 2 else "strict")
    for deal_events in deal_events_of_game(events):
        result = fold_deal(deal_events).result
        record = parse_record(encode_record(export_record(deal_events)))
        report = audit_record(record)
        assert report.valid
        assert report.game_points == result.game_points
        assert report.card_points == result.card_points
        assert report.seed_check == "seed matches the commitment and the deck"


def test_export_carries_the_commitment_and_the_revealed_seed():
    _, events = play_game_events(11)
    record = export_record(deal_events_of_game(events)[0])
    assert record.commitment == hashlib.sha256(b"baloot-seed/1:" + record.seed.encode()).hexdigest()


def base_record():
    record, _ = load(next(p for p in EXAMPLES if p.stem == "valid-00"))
    return record


@pytest.mark.parametrize("mutate, where", [
    (lambda r: r.pop("deck"), "deck"),
    (lambda r: r.update(colour="red"), "colour"),
    (lambda r: r.update(format="baloot-hand/2"), "format"),
    (lambda r: r["deck"].__setitem__(3, "XX"), "deck[3]"),
    (lambda r: r["deck"].__setitem__(3, r["deck"][4]), "twice"),
    (lambda r: r["actions"][2].update(seat=7), "actions[2].seat"),
    (lambda r: r["actions"][2].update(play="7S"), "exactly one"),
    (lambda r: r["actions"][0].update(colour=1), "actions[0]"),
    (lambda r: r.update(profile="poker"), "unknown profile"),
    (lambda r: r.update(switches={"targett": 100}), "unknown switch"),
])
def test_malformed_records_say_what_and_where(mutate, where):
    record = base_record()
    mutate(record)
    with pytest.raises(MalformedRecord) as info:
        parse_record(json.dumps(record))
    assert where in str(info.value)


def test_not_json_is_malformed():
    with pytest.raises(MalformedRecord, match="not JSON"):
        parse_record(b"{\"format\": ")


def test_a_record_that_stops_early_is_incomplete():
    record = base_record()
    record["actions"] = record["actions"][:20]
    report = audit_record(parse_record(json.dumps(record)))
    assert not report.valid and report.violations[-1].rule == "incomplete"
    assert report.game_points is None


def test_an_action_after_the_end_is_reported():
    record = base_record()
    record["actions"].append({"seat": 0, "play": "7S"})
    report = audit_record(parse_record(json.dumps(record)))
    assert [v.rule for v in report.violations] == ["after_end"]
