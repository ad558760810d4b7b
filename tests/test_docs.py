"""The repository stands on its own: its rules document covers every switch and profile, and README
points inside the repository."""

import pathlib
import re

from domain.baloot.profiles import PROFILES, SWITCH_NAMES, RuleProfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
RULES = (ROOT / "docs" / "rules.md").read_text()
README = (ROOT / "README.md").read_text()


def test_the_rules_document_names_every_switch_with_its_default():
    for name in sorted(SWITCH_NAMES):
        row = next((line for line in RULES.splitlines() if line.startswith(f"| `{name}` |")), None)
        assert row is not None, f"docs/rules.md has no row for the switch {name}"
        default = getattr(RuleProfile(), name)
        shown = "null" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
        assert f"`{shown}`" in row, f"docs/rules.md does not give {name}'s default {shown}"


def test_the_rules_document_describes_every_profile():
    for name in PROFILES:
        assert f"`{name}`" in RULES, f"docs/rules.md does not describe the profile {name}"


def test_readme_links_only_inside_the_repository():
    assert "docs/rules.md" in README
    assert not re.search(r"(?<!\.)\.\./", README), "README points outside the repository"  # not `.../`
