"""What a command shows on stderr while it works (its output stays on stdout, clean to pipe): a bar when the
work is counted, a spinner when it is not."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def counted(description: str, total: int, transient: bool = True) -> Iterator[Callable[[], None]]:
    """A progress bar of ``total`` steps; yields the function that counts one."""
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=transient) as progress:
        task = progress.add_task(description, total=total)
        yield lambda: progress.advance(task)


@contextlib.contextmanager
def working(description: str) -> Iterator[None]:
    """A spinner with what is being done, gone when it is done."""
    from rich.console import Console

    with Console(stderr=True).status(description):
        yield
