"""The pages' words (services/web/static/js/words_*.js) share one table per language: a page that loads two of
the files takes the later file's sentence for a key both define, so the lobby once said "You organise no
championship yet." to a player and "finished" where its own word was "Finished". Each key means one thing
everywhere, and every English sentence has its Arabic one."""

from __future__ import annotations

import json
import re
from pathlib import Path

WORDS = sorted((Path(__file__).parents[2] / "services/web/static/js").glob("words_*.js"))


def tables(path: Path) -> dict[str, dict[str, str]]:
    """The file's ``addWords({en: {...}, ar: {...}})`` read as JSON (its keys quoted, comments and trailing
    commas dropped); a key written twice in one language fails here."""
    text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("//"))
    body = text[text.index("addWords(") + len("addWords("):text.rindex(");")]
    # Strings kept as they are; outside them, a key is quoted and a comma before a brace dropped.
    body = re.sub(r'("(?:[^"\\]|\\.)*")|([A-Za-z_][A-Za-z_0-9]*)(?=\s*:)|,(?=\s*})',
                  lambda m: m[1] or (f'"{m[2]}"' if m[2] else ""), body)

    def once(pairs):
        keys = [k for k, _ in pairs]
        twice = sorted({k for k in keys if keys.count(k) > 1})
        assert not twice, f"{path.name} defines {twice} twice"
        return dict(pairs)
    return json.loads(body, object_pairs_hook=once)


def test_every_words_file_is_read_and_says_each_sentence_in_both_languages():
    assert len(WORDS) >= 5
    for path in WORDS:
        words = tables(path)
        assert set(words) == {"en", "ar"}, path.name
        assert len(words["en"]) > 10, path.name
        # Arabic may have more (the audit's lines are the engine's own English, said again in Arabic).
        assert set(words["en"]) <= set(words["ar"]), (path.name, set(words["en"]) - set(words["ar"]))


def test_a_key_two_files_define_says_the_same_in_both():
    seen: dict[tuple[str, str], tuple[str, str]] = {}
    clashes = []
    for path in WORDS:
        for lang, words in tables(path).items():
            for key, text in words.items():
                first = seen.setdefault((lang, key), (path.name, text))
                if first[1] != text:
                    clashes.append(f"{lang}.{key}: {first[0]} {first[1]!r} against {path.name} {text!r}")
    assert clashes == []
