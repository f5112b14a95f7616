"""Analyses of recorded runs (energy, recurrence, stability) and the figures drawn from them."""
