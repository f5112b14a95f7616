"""Errors the CLI turns into one-line messages and exit codes (2 = bad input, 3 = diverged)."""


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
