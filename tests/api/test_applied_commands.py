"""A stream's applied commands (``services.commands.Applied``): every command id is told again however many
came after it, later entries win, the map is immutable (a fold's older table keeps what it had), and what it
keeps is strings the garbage collector does not track."""

from __future__ import annotations

import gc

import pytest

from services.commands import NONE_APPLIED, Applied, replayed
from services.errors import Conflict


def test_every_command_is_told_again_after_hundreds_more():
    applied, kept = NONE_APPLIED, []
    for i in range(300):                                   # past RECENT several times: merged, then small again
        applied = applied.plus({(f"user-{i % 4}", f"cmd-{i}"): (i + 1, f"digest {i}")})
        kept.append(applied)
    assert len(applied) == 300
    for i in range(300):
        assert applied.get((f"user-{i % 4}", f"cmd-{i}")) == (i + 1, f"digest {i}")
    assert applied.get(("user-1", "cmd-0")) is None        # another actor's id is another command
    assert kept[9].get(("user-2", "cmd-10")) is None       # an older map is unchanged by the later ones
    assert kept[9] != applied and kept[9] == NONE_APPLIED.plus(
        {(f"user-{i % 4}", f"cmd-{i}"): (i + 1, f"digest {i}") for i in range(10)})


def test_a_retry_is_replayed_and_a_reused_id_refused():
    applied = Applied().plus({("u", "c1"): (7, "abc"), ("u", "c2"): (9, "")})
    assert replayed(applied, "u", "c1", "abc").version == 7
    assert replayed(applied, "u", "c2", "").version == 9
    assert replayed(applied, "u", "c3", "abc") is None
    with pytest.raises(Conflict):
        replayed(applied, "u", "c1", "another")
    assert applied.plus({("u", "c1"): (8, "xyz")}).get(("u", "c1")) == (8, "xyz")     # later ones win


def test_what_it_keeps_is_not_tracked_by_the_garbage_collector():
    applied = NONE_APPLIED
    for i in range(200):
        applied = applied.plus({("u", f"c{i}"): (i, "d")})
        gc.collect(0)                                      # (a dict is untracked when a collection sees it)
    kept = [r for r in gc.get_referents(applied) if isinstance(r, dict)]     # what it holds, as the collector sees it
    assert kept and not any(gc.is_tracked(d) for d in kept)
