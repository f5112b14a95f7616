"""Recurrence plot of the joint torques and the onset time of rhythmic motion (Wang 2011, eq. 16, Fig 6).

Recurrence plot (eq. 16)::

    R(i, j) = Θ(ε − ‖τ̂(i) − τ̂(j)‖₂),   ε = 0.08

where τ̂ is the joint-torque vector (all J joints) after the two steps below. Pure numpy, no engine.

Normalisation
    τ̂(i) = τ(i) / τ_rms with τ_rms = sqrt(mean_i ‖τ(i)‖²) over the **second half** of the run (the
    steady regime the other metrics use, :func:`lab.core.metrics.second_half`). The paper gives ε = 0.08 with
    no unit or scale; a raw-N·m threshold would not transfer, because our torque level differs from
    the paper's ODE model and changes with E_ref and μ. Relative to the steady torque magnitude,
    ε = 0.08 says "two torque states agree to 8 % of their typical size": tight enough that
    uncorrelated states never recur (two independent states of a J-joint signal lie ≈ √2 apart), loose
    enough to absorb the sampling phase error (≤ ω·Δt/2 = 3 % at ω = 2 rad/s, Δt = 0.03 s) and the
    slow torque growth of a run whose energy integral is still winding up (a few % per period). The
    effort limit (1.5 N·m) was rejected as the scale: the running torques are ~0.2 N·m, so ε would be
    ~0.5 of the whole signal and everything would recur.

Downsampling
    Samples are decimated by the smallest integer stride that leaves ≤ ``max_samples`` (1500) points,
    so the plot is at most 1500² (a 30 s run's 3001 samples at 100 Hz become 1001 at 33 Hz; the
    gait's content is below ~3 Hz, so plain decimation does not alias).

Onset of rhythmic motion (``time.rhythmic_s``)
    1. Dominant period T: the multichannel autocorrelation r(k) = Σ_j c_jj(k) / Σ_j c_jj(0) of τ̂ over
       the second half (each joint's mean removed, biased estimator, lags up to half the window);
       T = the lag of the highest maximum of r after its first zero crossing (the biased estimator
       tapers linearly with the lag, so of the peaks at T, 2T, … of a periodic signal the first is the
       highest), then refined on the unbiased estimate r(k)/(1 − k/n) — local maximum within ±2
       samples and a parabola through the three samples around it — which removes the taper's pull
       towards shorter lags.
    2. Recurrence one period later: with K = round(T/Δt) and w = max(1, ceil(0.02·K)) samples,
       ρ(i) = max_{|k−K| ≤ w} R(i, i+k) ∈ {0, 1} — does the torque state at time i come back one
       period later (a point on the RP's diagonal line at lag T, allowing ±2 % of T)? ρ is defined for
       i ≤ n − 1 − K − w.
    3. Smoothing: f(i) = centred moving average of ρ over one period (K samples; fewer at the ends),
       the fraction of the surrounding period whose states recur.
    4. Onset = the time of the first sample after the last i with f(i) < 0.5 (``threshold``), i.e. the
       time from which the majority of every period's states recur one period later, to the end of
       the analysed range. If f ≥ 0.5 everywhere, onset = t[0]. No onset (NaN) if the final run of
       f ≥ 0.5 is shorter than one period (that includes "f < 0.5 at the end") or the run is shorter
       than three periods.
    A quiet start (all torques ≪ ε·τ_rms) is trivially recurrent; the onset is still defined by the
    *last* failure, so such a block only matters if the motion never stops recurring after it.

Measured (``snake_passive_creeping``, 30 s, dt = 1 ms): T = 3.09 s (the head reference's π s within
the ±2 % lag window), onset 15.3 s; the paper sees ~7 s (Figs 5–6). The distance ‖τ̂(i) − τ̂(i+T)‖
drops from 0.3–0.9 to ≲ 0.1 at ≈ 12 s, where the start-up ends in this engine (E is still < 0.02 J at
8 s, against E_ref = 1 J); between 12 and 15 s the torques grow by ~4 % per period because E (0.3 J)
has not reached E_ref and the energy integral keeps winding up, so only part of each period recurs
within ε. Sensitivity of the same run: ε = 0.12 → 13.1 s, ε = 0.16 → 12.6 s, ε = 0.05 → 22.3 s; the
raw paper reading (ε = 0.08 N·m, i.e. 0.28 τ_rms here) → 11.9 s.
"""

from __future__ import annotations

import math

import numpy as np

from lab.core.metrics import second_half

EPSILON = 0.08  # Wang 2011, eq. 16
MAX_SAMPLES = 1500
THRESHOLD = 0.5
LAG_TOL = 0.02  # ± fraction of T searched around the period lag


def decimate(t: np.ndarray, X: np.ndarray, max_samples: int = MAX_SAMPLES) -> tuple[np.ndarray, np.ndarray, int]:
    """Every ``stride``-th sample, with the smallest stride leaving ≤ max_samples points."""
    n = len(t)
    stride = max(1, math.ceil(n / max_samples))
    return t[::stride], X[::stride], stride


def normalise(t: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, float]:
    """τ / τ_rms with τ_rms the RMS torque-vector norm over the second half (see module docstring)."""
    tau = np.asarray(tau, float).reshape(len(t), -1)
    h = second_half(t)
    if not h.any():
        h = np.ones(len(t), bool)
    rms = float(np.sqrt(np.mean(np.einsum("ij,ij->i", tau[h], tau[h]))))
    if not np.isfinite(rms) or rms <= 0.0:
        return np.zeros_like(tau), 0.0
    return tau / rms, rms


def recurrence_matrix(X: np.ndarray, eps: float = EPSILON) -> np.ndarray:
    """R(i, j) = ‖X_i − X_j‖₂ < ε (boolean, n × n). X is (n, d), already normalised."""
    X = np.asarray(X, float).reshape(len(X), -1)
    sq = np.einsum("ij,ij->i", X, X)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    np.maximum(d2, 0.0, out=d2)
    return d2 < eps * eps


def dominant_period(X: np.ndarray, dt: float) -> float:
    """Dominant period (s) of a (n, d) series from its multichannel autocorrelation (step 1 above).

    NaN if the autocorrelation never crosses zero or has no maximum after it."""
    X = np.asarray(X, float).reshape(len(X), -1)
    X = X - X.mean(axis=0)
    n = len(X)
    if n < 8 or not np.any(X):
        return float("nan")
    nfft = 1 << (2 * n - 1).bit_length()
    F = np.fft.rfft(X, nfft, axis=0)
    ac = np.fft.irfft((F * F.conj()).real.sum(axis=1), nfft)[:n]
    ac = ac / ac[0]  # biased estimate: its linear taper makes the shortest true period the highest peak
    kmax = n // 2  # lags beyond half the record rest on too few products
    neg = np.nonzero(ac[:kmax] < 0.0)[0]
    if len(neg) == 0:
        return float("nan")
    k0 = int(neg[0])
    seg = ac[k0:kmax]
    if len(seg) < 3:
        return float("nan")
    k = k0 + int(np.argmax(seg))
    if k <= k0 or k >= kmax - 1 or ac[k] <= 0.0:
        return float("nan")
    # Refine on the unbiased estimate (taper undone), which does not pull the peak to shorter lags.
    acu = ac[: kmax + 2] / (1.0 - np.arange(min(n, kmax + 2)) / n)
    lo, hi = max(k0, k - 2), min(kmax - 1, k + 2)
    k = lo + int(np.argmax(acu[lo:hi + 1]))
    if k <= k0 or k >= kmax - 1:
        return float("nan")
    a, b, c = acu[k - 1], acu[k], acu[k + 1]
    den = a - 2 * b + c
    shift = 0.5 * (a - c) / den if den < 0 else 0.0
    return float((k + shift) * dt)


def lag_recurrence(X: np.ndarray, K: int, w: int, eps: float = EPSILON) -> np.ndarray:
    """ρ(i) = any_{|k−K|≤w} ‖X_i − X_{i+k}‖ < ε, for i = 0 … n−1−K−w (step 2 above)."""
    X = np.asarray(X, float).reshape(len(X), -1)
    n = len(X) - K - w
    if n <= 0:
        return np.zeros(0, bool)
    rho = np.zeros(n, bool)
    for k in range(K - w, K + w + 1):
        d2 = np.einsum("ij,ij->i", X[:n] - X[k:k + n], X[:n] - X[k:k + n])
        rho |= d2 < eps * eps
    return rho


def moving_average(x: np.ndarray, width: int) -> np.ndarray:
    """Centred moving average over ``width`` samples, averaging only the samples that exist at the ends."""
    x = np.asarray(x, float)
    width = max(1, int(width))
    ker = np.ones(width)
    num = np.convolve(x, ker, mode="same")
    cnt = np.convolve(np.ones_like(x), ker, mode="same")
    return num / cnt


def analyse(t: np.ndarray, tau: np.ndarray, eps: float = EPSILON, threshold: float = THRESHOLD,
            max_samples: int = MAX_SAMPLES, period: float | None = None) -> dict:
    """Everything the onset definition computes, for the metrics and the figure.

    Returns a dict with t_ds (decimated times), X (normalised decimated torques), tau_rms, period,
    K, w, rho, frac (f), onset (s, NaN if none)."""
    t = np.asarray(t, float)
    tau = np.asarray(tau, float).reshape(len(t), -1)
    X_full, rms = normalise(t, tau)
    t_ds, X, stride = decimate(t, X_full, max_samples)
    out = {"t_ds": t_ds, "X": X, "tau_rms": rms, "stride": stride, "period": float("nan"), "K": 0, "w": 0,
           "rho": np.zeros(0, bool), "frac": np.zeros(0), "onset": float("nan")}
    if len(t_ds) < 8 or rms == 0.0:
        return out
    dt = float(np.median(np.diff(t_ds)))
    if period is None:
        h = second_half(t_ds)
        period = dominant_period(X[h], dt)
    out["period"] = float(period)
    if not np.isfinite(period) or period <= 0:
        return out
    K = int(round(period / dt))
    w = max(1, math.ceil(LAG_TOL * K))
    out["K"], out["w"] = K, w
    if len(t_ds) < 3 * K:
        return out
    rho = lag_recurrence(X, K, w, eps)
    frac = moving_average(rho, K)
    out["rho"], out["frac"] = rho, frac
    below = np.nonzero(frac < threshold)[0]
    first = 0 if len(below) == 0 else int(below[-1]) + 1
    if len(frac) - first >= K:
        out["onset"] = float(t_ds[first])
    return out


def rhythm_metrics(series: dict) -> dict:
    """Metrics for one run's series: ``time.rhythmic_s`` (onset of rhythmic motion, NaN if none),
    ``rhythm.period_s`` (dominant torque period), ``rhythm.recurrence_rate`` (fraction of the RP that is
    recurrent, main diagonal included) and ``rhythm.lag_recurrence_end`` (ρ averaged over the last
    analysed period: 1 = the end of the run repeats itself one period later)."""
    t, tau = series["t"], series["tau"]
    nan = float("nan")
    if len(t) < 8 or np.asarray(tau).size == 0:
        return {"time.rhythmic_s": nan, "rhythm.period_s": nan, "rhythm.recurrence_rate": nan,
                "rhythm.lag_recurrence_end": nan}
    a = analyse(t, tau)
    R = recurrence_matrix(a["X"])
    K = a["K"]
    return {
        "time.rhythmic_s": a["onset"],
        "rhythm.period_s": a["period"],
        "rhythm.recurrence_rate": float(R.mean()),
        "rhythm.lag_recurrence_end": float(a["rho"][-K:].mean()) if K and len(a["rho"]) >= K else nan,
    }


def plot_recurrence(ax, series: dict, eps: float = EPSILON, title: str | None = None, mark_onset: bool = True,
                    max_samples: int = MAX_SAMPLES):
    """Draw the recurrence plot of the joint torques on ``ax`` (axes in seconds), the lag-T diagonal
    and the onset. Returns the :func:`analyse` dict."""
    a = analyse(series["t"], series["tau"], eps=eps, max_samples=max_samples)
    t = a["t_ds"]
    R = recurrence_matrix(a["X"], eps)
    ax.imshow(R, cmap="Greys", origin="lower", interpolation="nearest",
              extent=(t[0], t[-1], t[0], t[-1]), aspect="equal")
    T, onset = a["period"], a["onset"]
    if mark_onset and np.isfinite(onset):
        ax.axvline(onset, color="tab:red", lw=1.0, ls="--", label=f"onset {onset:.1f} s")
        ax.axhline(onset, color="tab:red", lw=1.0, ls="--")
    if np.isfinite(T):
        ax.plot([t[0], t[-1] - T], [t[0] + T, t[-1]], color="tab:blue", lw=0.6, alpha=0.6,
                label=f"lag T = {T:.2f} s")
    ax.set_xlabel("time i [s]")
    ax.set_ylabel("time j [s]")
    ax.set_title(title or f"Recurrence plot of joint torques (ε = {eps:g} τ_rms)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left")
    return a
