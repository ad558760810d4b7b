"""The rules do no I/O, not even at import: importing every module of ``domain`` opens, lists or stats no file
and reads no environment variable of its own (how its hot modules load is ``services/compiled.py``'s).

Measured in a fresh interpreter: the modules the rules import from elsewhere (the standard library, msgspec)
are imported first, unwatched; then an audit hook (``sys.addaudithook``) sees every file opened or folder
listed by anything but the import system itself, and ``os.stat``, ``os.lstat``, ``os.listdir``,
``os.scandir`` and ``os.environ`` are wrapped to see calls made in Python (the import system calls the
``posix`` module directly, so its own reading of the rules' files is not counted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Prints the names of the domain's modules and of what they import from elsewhere.
LIST = r"""
import json, os, sys
root = os.path.join(sys.argv[1], "domain")
names = []
for folder, dirs, files in os.walk(root):
    dirs[:] = sorted(d for d in dirs if d != "__pycache__")
    package = os.path.relpath(folder, sys.argv[1]).replace(os.sep, ".")
    names += [package if f == "__init__.py" else f"{package}.{f[:-3]}" for f in sorted(files) if f.endswith(".py")]
before = set(sys.modules)
for name in names:
    __import__(name)
elsewhere = [m for m in set(sys.modules) - before if m != "domain" and not m.startswith("domain.")
             and getattr(sys.modules[m], "__spec__", None) is not None]   # (not a compiled module's own types)
print(json.dumps({"domain": names, "elsewhere": sorted(elsewhere)}))
"""

# Imports what it is given from elsewhere, then the domain's modules under watch; prints what was seen.
WATCH = r"""
import collections.abc, importlib, json, os, sys
given = json.loads(sys.argv[1])
for name in given["elsewhere"]:
    importlib.import_module(name)
seen = []
WATCHED = {"open", "os.listdir", "os.scandir", "os.walk", "os.putenv", "os.unsetenv", "os.chdir", "os.system",
           "subprocess.Popen", "socket.connect", "urllib.Request"}

def hook(event, args):
    if event in WATCHED:
        caller = sys._getframe(1).f_code.co_filename
        if not caller.startswith(("<frozen importlib", "<frozen zipimport")):
            seen.append([event, repr(args[0])[:200] if args else "", caller])

def watched(name, real):
    def call(*args, **kwargs):
        seen.append([f"os.{name}", repr(args[0])[:200] if args else "", sys._getframe(1).f_code.co_filename])
        return real(*args, **kwargs)
    return call

class Environ(collections.abc.MutableMapping):
    def __init__(self, real):
        self.real = real
    def _seen(self, what):
        seen.append(["os.environ", what, sys._getframe(2).f_code.co_filename])
    def __getitem__(self, key):
        self._seen(repr(key)); return self.real[key]
    def __contains__(self, key):
        self._seen(repr(key)); return key in self.real
    def __iter__(self):
        self._seen("*"); return iter(self.real)
    def __len__(self):
        self._seen("*"); return len(self.real)
    def __setitem__(self, key, value):
        self._seen(repr(key)); self.real[key] = value
    def __delitem__(self, key):
        self._seen(repr(key)); del self.real[key]

sys.addaudithook(hook)
for name in ("stat", "lstat", "listdir", "scandir"):
    setattr(os, name, watched(name, getattr(os, name)))
os.environ = Environ(os.environ)
for name in given["domain"]:
    importlib.import_module(name)
print(json.dumps({"imported": [m for m in sys.modules if m == "domain" or m.startswith("domain.")], "seen": seen}))
"""


def python(code: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_rules_touches_no_file_and_no_environment_variable():
    given = python(LIST, str(ROOT))
    assert {"domain", "domain.table", "domain.games", "domain.baloot.bots.hard"} <= set(given["domain"])
    watch = python(WATCH, json.dumps(given))
    assert set(given["domain"]) <= set(watch["imported"])
    assert watch["seen"] == [], "\n".join(" ".join(s) for s in watch["seen"])
