"""The rule of the game seam (docs/architecture.md, "The game seam"): nothing under services/ asks which
game a table plays. Tables, workers, the flow and the API reach a game only through ``domain.games.GAMES``
by the name a table was opened with (``game_of``), so a per-game branch is a bug. The patterns below are
the greppable form of that rule: a comparison with a game's name, picking a game by a literal name,
``game == ...``, and type checks on a game's state."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SERVICES = Path(__file__).resolve().parents[1] / "services"
BRANCH = re.compile(
    r"""(==|!=)\s*["'](baloot|balut)["']"""          # x == "balut"
    r"""|["'](baloot|balut)["']\s*(==|!=)"""           # "balut" == x
    r"""|\bin\s*\(\s*["'](baloot|balut)["']"""         # x in ("balut", ...)
    r"""|GAMES\[\s*["']"""                             # GAMES["balut"]
    r"""|\bgame(\.name)?\s*(==|!=)"""                  # game == ..., game.name != ...
    r"""|isinstance\([^)]*\b(GameState|BalutState)\b"""  # a branch on the state's type
)


def branches(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if BRANCH.search(line)]


@pytest.mark.parametrize("line", [
    'if opened.game == "balut":', "if 'baloot' != table.opened.game:", 'game = GAMES["baloot"]',
    'if game.name == other:', "if isinstance(table.game, BalutState):", 'if name in ("balut", "x"):',
])
def test_the_pattern_catches_a_per_game_branch(line):
    assert branches(line) == [line]


def test_services_have_no_per_game_branches():
    found = {str(p.relative_to(SERVICES.parent)): hits for p in sorted(SERVICES.rglob("*.py"))
             if (hits := branches(p.read_text()))}
    assert found == {}, f"per-game branches under services/ (dispatch through domain.games instead): {found}"
