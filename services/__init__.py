"""The application layer and its doors. Importing it puts the rules engine's loader in place
(``services/compiled.py``): the hot modules of ``domain`` run compiled where they were built."""

from services.compiled import install as _install

_install()
