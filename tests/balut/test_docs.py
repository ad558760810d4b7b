"""docs/balut.md covers every Balut switch with its default and every profile."""

import pathlib

from domain.balut.profiles import PROFILES, SWITCH_NAMES, BalutProfile

DOC = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "balut.md").read_text()


def test_every_switch_has_a_row_with_its_default():
    for name in sorted(SWITCH_NAMES):
        line = next((ln for ln in DOC.splitlines() if ln.startswith(f"| `{name}` |")), None)
        assert line is not None, f"docs/balut.md has no row for the switch {name}"
        assert f"`{str(getattr(BalutProfile(), name)).lower()}`" in line


def test_every_profile_is_described():
    for name in PROFILES:
        assert f"`{name}`" in DOC
