"""A progress bar on stderr for commands that take a while (`graphjit bench`).

    bar = Progress("graph mode", seconds=2.0)
    while ...:
        bar.update(elapsed)
    bar.close()

On a terminal it redraws one line in place; elsewhere (a log, a pipe) it writes
only the finished bar, once.
"""
from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

__all__ = ["Progress"]

_WIDTH = 30


class Progress:
    """A bar filled as `elapsed` approaches `seconds`.

    Args:
        label: what is running.
        seconds: how long it runs.
        stream: where to draw (stderr by default).
        enabled: False draws nothing.
    """

    def __init__(self, label: str, seconds: float, stream: Optional[TextIO] = None,
                 enabled: bool = True):
        self.label = label
        self.seconds = max(seconds, 1e-9)
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.live = enabled and getattr(self.stream, "isatty", lambda: False)()
        self._last = 0.0

    def _line(self, elapsed: float) -> str:
        frac = min(max(elapsed / self.seconds, 0.0), 1.0)
        full = int(round(frac * _WIDTH))
        return (f"{self.label:<24} [{'#' * full}{'.' * (_WIDTH - full)}] {frac * 100:3.0f}% "
                f"{elapsed:5.1f}/{self.seconds:.1f} s")

    def update(self, elapsed: float) -> None:
        """Redraw (at most ten times a second) for `elapsed` seconds of `seconds`."""
        if not self.live:
            return
        now = time.perf_counter()
        if now - self._last < 0.1:
            return
        self._last = now
        self.stream.write("\r" + self._line(elapsed))
        self.stream.flush()

    def close(self, elapsed: Optional[float] = None) -> None:
        """Draw the finished bar and end its line."""
        if not self.enabled:
            return
        done = self.seconds if elapsed is None else elapsed
        self.stream.write(("\r" if self.live else "") + self._line(done) + "\n")
        self.stream.flush()
