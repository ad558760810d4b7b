"""The CLI: `baloot audit` exit codes and messages, `baloot simulate` writing hand records."""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "data" / "examples"


def baloot(*args, stdin: bytes | None = None):
    return subprocess.run([sys.executable, "-m", "services.cli", *args], input=stdin, capture_output=True,
                          cwd=ROOT, timeout=120)


def record_file(tmp_path, name):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(json.loads((EXAMPLES / f"{name}.json").read_text())["record"]))
    return path


def test_audit_of_a_valid_deal_exits_0_with_the_score(tmp_path):
    out = baloot("audit", str(record_file(tmp_path, "valid-05")))
    assert out.returncode == 0
    text = out.stdout.decode()
    assert "VALID" in text and "GAME POINTS       A   42   B    0" in text


def test_audit_json_has_the_documented_fields(tmp_path):
    out = baloot("audit", "--json", str(record_file(tmp_path, "valid-08")))
    report = json.loads(out.stdout)
    assert out.returncode == 0
    for key in ("valid", "violations", "contract", "card_points", "game_points", "kaboot", "failed", "void"):
        assert key in report
    assert report["contract"]["ashkal"] is True and report["game_points"] == [132, 0]


def test_audit_of_an_illegal_deal_exits_1_naming_index_seat_and_rule(tmp_path):
    out = baloot("audit", "--json", str(record_file(tmp_path, "invalid-01")))
    assert out.returncode == 1
    v = json.loads(out.stdout)["violations"][0]
    assert (v["index"], v["seat"], v["rule"]) == (10, 3, "revoke")
    assert "did not follow" in v["message"]


def test_audit_reads_standard_input(tmp_path):
    data = record_file(tmp_path, "valid-00").read_bytes()
    out = baloot("audit", "-", stdin=data)
    assert out.returncode == 0 and "Kaboot" in out.stdout.decode()


def test_audit_of_a_malformed_file_exits_2_saying_where(tmp_path):
    path = tmp_path / "bad.json"
    record = json.loads(record_file(tmp_path, "valid-00").read_text())
    record["actions"][4]["seat"] = 9
    path.write_text(json.dumps(record))
    out = baloot("audit", str(path))
    assert out.returncode == 2
    assert "$.actions[4].seat" in out.stderr.decode()


def test_audit_of_a_missing_file_exits_2(tmp_path):
    out = baloot("audit", str(tmp_path / "nope.json"))
    assert out.returncode == 2 and "cannot read" in out.stderr.decode()


def test_simulate_writes_auditable_hand_records(tmp_path):
    out = baloot("simulate", "--deals", "12", "--seed", "4", "--out", str(tmp_path / "recs"))
    assert out.returncode == 0, out.stderr.decode()
    files = sorted((tmp_path / "recs").glob("*.json"))
    assert len(files) == 12
    assert "contracts" in out.stdout.decode()
    for f in files[:3]:
        assert baloot("audit", str(f)).returncode == 0


def test_simulate_belote_with_the_lowest_card_policy(tmp_path):
    out = baloot("simulate", "--deals", "5", "--profile", "belote_declarations", "--policy", "lowest")
    assert out.returncode == 0, out.stderr.decode()
    assert "5 deals" in out.stdout.decode()
