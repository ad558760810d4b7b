"""Every test process loads the rules as the doors do: the engine's loader (``services/compiled.py``) is in
place before any test module imports a rule."""

import services  # noqa: F401  (installs the loader)
