"""``baloot fairplay`` over hand records, offline: a seat played by a planted ghost (it sees every hand) is
flagged and the command exits 1; the same deals with an honest hard bot in that seat exit 0; a malformed
record is named and nothing is judged."""

from __future__ import annotations

from domain.baloot.handrecord import encode_record, export_record
from services.cli import main
from tests.engine.test_fairplay import DEALS, played


def records(tmp_path, seat0: str):
    folder = tmp_path / seat0
    folder.mkdir()
    for n in range(DEALS):
        (folder / f"deal-{n:03d}.json").write_bytes(encode_record(export_record(played(f"fairplay-{n}", seat0))))
    return folder


def test_a_ghost_seat_is_flagged_and_an_honest_one_is_not(tmp_path, capsys):
    assert main(["fairplay", str(records(tmp_path, "ghost")), "--seat", "0", "--samples", "16", "--seed", "1"]) == 1
    out = capsys.readouterr().out
    assert "FLAGGED" in out and out.splitlines()[1].split()[0] == "0"
    assert main(["fairplay", str(records(tmp_path, "hard")), "--seat", "0", "--samples", "16", "--seed", "1"]) == 0
    assert "FLAGGED" not in capsys.readouterr().out


def test_a_malformed_record_is_named(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "baloot-hand/1"}')
    assert main(["fairplay", str(bad)]) == 2
    assert "bad.json" in capsys.readouterr().err
