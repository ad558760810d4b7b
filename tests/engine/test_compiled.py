"""The compiled rules engine (loaded by ``services/compiled.py``, built by ``setup.py``) is the same engine:
whole games of every bot level and rule profile give the same events, byte for byte, compiled and from the sources
(``BALOOT_PURE``); an edited source runs until the next build; and the installed package does run compiled
(a build that silently fell back to pure Python would lose the speed the workers and the API count on)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from services.compiled import built

ROOT = Path(__file__).resolve().parents[2]

# Whole games played by the bots on their seats' views, as the table service plays them (``bot_run``), every
# level against every profile, each game's events hashed; printed with which modules ran compiled.
GAMES = r"""
import hashlib, json, msgspec
from services import compiled
from domain import table as rules
from domain.baloot.bots import LEVELS
from domain.baloot.profiles import PROFILES
from domain.table import GAMES, TableOpened, TableState

digest = hashlib.sha256()
events = 0
for g, (level, profile) in enumerate((l, p) for l in LEVELS for p in PROFILES.values()):
    seed_of = lambda n, g=g: hashlib.sha256(f"compiled/{g}/{n}".encode()).hexdigest()[:32]
    opened = TableOpened(table_id=f"c{g}", seats=("a", "b", "c", "d"), profile=profile, bots=(level,) * 4,
                         deals={"hard": 2, "expert": 1}.get(level))     # the sampling bots: a deal or two
    game = GAMES[opened.game]
    table = TableState()
    stream = [opened, *game.open(4, g % 4, profile, seed_of, opened.table_mode)]
    for e in stream:
        table = rules.evolve(table, e)
    while True:
        turns, table = rules.bot_run(table, game.choose_from, seed_of)
        if not turns:
            break
        assert all(t.failure is None for t in turns), [t.failure for t in turns]
        stream += [e for t in turns for e in t.events]
    assert game.result(table.game) is not None
    # the views too: what every seat and a spectator were shown at the end
    shown = [game.view(table.game, seat) for seat in (0, 1, 2, 3, None)]
    digest.update(msgspec.json.encode([stream, shown]))
    events += len(stream)
print(json.dumps({"digest": digest.hexdigest(), "events": events, "loaded": compiled.loaded()}))
"""


def run(code: str, cwd: Path, pure: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "BALOOT_PURE"}
    env["PYTHONPATH"] = os.pathsep.join((str(cwd), str(ROOT)))     # ``services`` from here, if not in ``cwd``
    if pure:
        env["BALOOT_PURE"] = "1"
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_package_as_installed_runs_compiled():
    """The test command installs the package (``pip install -e .``), which builds the hot modules."""
    loaded = run("import json\nfrom services import compiled\n"
                 "import domain.baloot.seam, domain.table, domain.baloot.bots.hard\n"
                 "print(json.dumps(compiled.loaded()))", ROOT, pure=False)
    assert len(loaded) >= 10
    assert all(loaded.values()), f"not compiled (is a C compiler missing? see setup.py): " \
                                 f"{sorted(m for m, c in loaded.items() if not c)}"


def test_compiled_and_source_play_the_same_games_event_for_event():
    compiled = run(GAMES, ROOT, pure=False)
    source = run(GAMES, ROOT, pure=True)
    assert compiled["events"] > 1000
    assert all(compiled["loaded"].values()) and len(compiled["loaded"]) >= 15
    assert not any(source["loaded"].values())
    assert compiled["digest"] == source["digest"]
    assert compiled["events"] == source["events"]


def test_an_edited_source_runs_until_the_next_build(tmp_path):
    shutil.copytree(ROOT / "domain", tmp_path / "domain", ignore=shutil.ignore_patterns("__pycache__"))
    folder = tmp_path / "domain" / "baloot"
    views_built, play_built = built(str(folder), "views"), built(str(folder), "play")
    assert views_built and play_built, "the domain's modules are not built (pip install -e .)"
    later = os.stat(views_built).st_mtime + 10
    os.utime(folder / "views.py", (later, later))       # edited after the build
    # An installer writes a source a moment after its compiled form: that source is still the one built.
    moment = os.stat(play_built).st_mtime + 0.3
    os.utime(folder / "play.py", (moment, moment))
    probe = ("import json\nfrom services import compiled\nimport domain.baloot.views, domain.baloot.play\n"
             "print(json.dumps(compiled.loaded()))")
    loaded = run(probe, tmp_path, pure=False)
    assert loaded["domain.baloot.views"] is False       # the edited source
    assert loaded["domain.baloot.play"] is True         # the others as built, play.py written just after
    assert not any(run(probe, tmp_path, pure=True).values())
