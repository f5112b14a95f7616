"""Progress bars on long work (tqdm): ``lab run`` past a few seconds of wall time (``--video`` too),
``lab check`` and ``lab check --faults``, ``lab report``, ``lab sweep`` (done / failed / left, with an
ETA) and ``lab regress``.

One rule for all of them (:func:`enabled`): a bar is drawn only when a person is watching — both stdout
and stderr are terminals — and not under ``-q`` (the root logger at ERROR or above). A bar goes to
stderr, so the results on stdout stay clean when piped; a run's bar appears only after
:data:`DELAY_S` of wall time (a short run prints nothing extra).
"""

from __future__ import annotations

import logging
import sys

DELAY_S = 2.0  # s of wall time before a bar appears: a short run's output stays as it was


def enabled() -> bool:
    """True if a progress bar should be drawn: stdout and stderr are terminals and the lab is not quiet."""
    try:
        ttys = sys.stdout.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed streams
        return False
    return ttys and logging.getLogger().getEffectiveLevel() < logging.ERROR


def bar(total: int | None = None, *, show: bool | None = None, **kw):
    """A tqdm bar on stderr, disabled unless ``show`` (default :func:`enabled`); ``kw`` go to tqdm."""
    from tqdm import tqdm

    kw.setdefault("file", sys.stderr)
    kw.setdefault("dynamic_ncols", True)
    return tqdm(total=total, disable=not (enabled() if show is None else show), **kw)


__all__ = ["DELAY_S", "bar", "enabled"]
