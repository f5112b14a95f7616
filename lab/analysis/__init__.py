"""Analyses of recorded runs that more than one paper, a library trial or every run uses (motion onset,
recurrence, stability) and the figures drawn from them; a paper's own analyses live in its home
(e.g. :mod:`lab.papers.wang2011_creeping.analysis`)."""
