"""The rule of the game seam (docs/architecture.md, "The game seam"): nothing outside the games asks which
game a table plays. The table, the tournament, the read models, the services, the workers and the API reach
a game only through ``domain.games.GAMES`` by the name a table was opened with (``game_of``), so a per-game
branch is a bug. Which modules may import a game at all is the import contracts' (tests/test_architecture.py);
the patterns below are the greppable form of the rest: a comparison with a game's name, picking a game by a
literal name, ``game == ...``, and type checks on a game's state."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE_THE_GAMES = [ROOT / "services", ROOT / "projections", ROOT / "domain" / "tournament",
                     ROOT / "domain" / "table.py", ROOT / "domain" / "games.py"]
BRANCH = re.compile(
    r"""(==|!=)\s*["'](baloot|balut)["']"""          # x == "balut"
    r"""|["'](baloot|balut)["']\s*(==|!=)"""           # "balut" == x
    r"""|\bin\s*\(\s*["'](baloot|balut)["']"""         # x in ("balut", ...)
    r"""|GAMES\[\s*["']"""                             # GAMES["balut"]
    r"""|\bgame(\.info)?(\.name)?\s*(==|!=)"""         # game == ..., game.info.name != ...
    r"""|isinstance\([^)]*\b(GameState|BalutState)\b"""  # a branch on the state's type
)


def branches(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if BRANCH.search(line)]


@pytest.mark.parametrize("line", [
    'if opened.game == "balut":', "if 'baloot' != table.opened.game:", 'game = GAMES["baloot"]',
    'if game.name == other:', "if isinstance(table.game, BalutState):", 'if name in ("balut", "x"):',
    'if game.info.name != "baloot":',
])
def test_the_pattern_catches_a_per_game_branch(line):
    assert branches(line) == [line]


def test_nothing_outside_the_games_branches_on_a_game():
    files = [p for where in OUTSIDE_THE_GAMES for p in (sorted(where.rglob("*.py")) if where.is_dir() else [where])]
    assert len(files) > 60
    found = {str(p.relative_to(ROOT)): hits for p in files if (hits := branches(p.read_text()))}
    assert found == {}, f"per-game branches outside the games (dispatch through domain.games instead): {found}"
