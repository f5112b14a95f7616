"""Errors the CLI turns into one-line messages and exit codes (2 = bad input, 3 = diverged or unstable)."""


class LabError(Exception):
    """Bad user input: printed as ``error: <where>: <what>`` with exit code 2."""

    exit_code = 2

    def __init__(self, where: str, what: str):
        super().__init__(f"{where}: {what}")
        self.where = where
        self.what = what


class Diverged(Exception):
    """The simulation blew up (NaN, runaway energy, bodies through the floor)."""

    exit_code = 3

    def __init__(self, t: float, reason: str):
        super().__init__(f"diverged at t = {t:.4f} s: {reason}")
        self.t = t
        self.reason = reason


class Unstable(Diverged):
    """The run chattered without blowing up (lab.core.instability): an explicit term beyond its stability bound.
    Exit code 3 like Diverged (and caught wherever Diverged is); the run's status is ``"unstable"``.
    ``max_dt``: the largest step that would hold, where it can be computed (else None)."""

    def __init__(self, t: float, reason: str, dt: float, max_dt: float | None = None):
        hold = (f"the largest step that would hold: {max_dt:.4g} s" if max_dt is not None else
                f"no stable step can be computed: try dt ≤ {dt / 2:.4g} s or an implicit form (servo = \"implicit_pd\")")
        Exception.__init__(self, f"unstable at t = {t:.4f} s (dt = {dt:g} s): {reason}; {hold}")
        self.t = t
        self.reason = reason
        self.dt = dt
        self.max_dt = max_dt
