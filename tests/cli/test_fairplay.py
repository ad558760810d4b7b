"""``baloot fairplay`` over hand records, offline: a seat whose cards are a planted ghost's (it sees every hand)
is flagged and the command exits 1, its evidence printed against the line; the same deals with an honest hard
bot in that seat exit 0; a malformed record is named and nothing is judged.

The exact values cost time (the solver, for the ghost's cards and the analysis): the ghost chooses its cards
only (its bids are the normal bot's, the cards alone are judged), on deals fixed once where it meets telling
decisions enough to be judged (``MIN_TELLING``); how many deals a flag takes is the engine's tests' and the
benchmark's to measure, this is the command's."""

from __future__ import annotations

from domain.baloot.bots import bot
from domain.baloot.fairplay import MIN_TELLING, play_deal, threshold, true_best_card
from domain.baloot.handrecord import encode_record, export_record
from domain.baloot.views import view
from services.cli import main

DEALS = range(24, 48)            # "fairplay-24" to "fairplay-47": the ghost meets 17 telling decisions there


def chooser(seat0: str):
    """``choose(state)`` for ``play_deal``: seat 0 the ghost's cards (the true best) or the hard bot, every other
    choice the normal bot's."""
    normal, hard = bot("normal"), bot("hard")

    def choose(state):
        if state.turn == 0:
            if seat0 == "ghost" and state.phase == "playing":
                card = true_best_card(state)
                if card is not None:
                    return card
            if seat0 == "hard":
                return hard.choose(view(state, 0))
        return normal.choose(view(state, state.turn))
    return choose


def records(tmp_path, seat0: str):
    folder = tmp_path / seat0
    folder.mkdir()
    for n in DEALS:
        (folder / f"deal-{n:03d}.json").write_bytes(
            encode_record(export_record(play_deal(f"fairplay-{n}", chooser(seat0)))))
    return folder


def test_a_ghost_seat_is_flagged_and_an_honest_one_is_not(tmp_path, capsys):
    assert main(["fairplay", str(records(tmp_path, "ghost")), "--seat", "0", "--samples", "16", "--seed", "1"]) == 1
    out = capsys.readouterr().out
    seat, decisions, telling, followed, expected, gain, evidence, line, *flag = out.splitlines()[1].split()
    assert seat == "0" and flag[:1] == ["FLAGGED:"] and int(telling) >= MIN_TELLING and followed == telling
    assert float(evidence) >= float(line) == round(threshold(0.01, 1), 2) and float(gain) > 0
    assert main(["fairplay", str(records(tmp_path, "hard")), "--seat", "0", "--samples", "16", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "FLAGGED" not in out
    seat, decisions, telling, followed, expected, gain, evidence, line = out.splitlines()[1].split()
    assert int(telling) > 0 and float(evidence) < float(line)


def test_a_malformed_record_is_named(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "baloot-hand/1"}')
    assert main(["fairplay", str(bad)]) == 2
    assert "bad.json" in capsys.readouterr().err
