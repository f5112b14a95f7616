"""Proof that the environments can be learned: the cross-entropy method (lab.envs.cem, numpy only)
improves lab/SnakeCreeping-v1's return past a threshold set from measured baselines.

Episodes of 1 s (100 actions), the scenario's own seed, episode seed 0. Baselines measured on this
setting (docs/environments.md): the zero-torque policy returns −3e-6 (the snake lies still, no
power), the uniform-random policy −4.70 ± 0.69 over 8 episodes (−5.81 … −3.56: it thrashes, power
costs, no net progress). THRESHOLD = the better of the two (0) + a margin of 5, which is 7 standard
deviations of the random returns and twice their whole range: a learner that passes it moves the
snake forward, which neither baseline does. Measured: the learner's policy (the best of its 48 samples,
6 iterations × 8) returns 11.4; the population's mean return rose from −4.9 to 7.1.
"""

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import lab.envs  # noqa: E402,F401  (registers the ids)
from lab.envs.cem import WavePolicy, cem, episode_return  # noqa: E402

DURATION = 1.0  # s per episode
ZERO_RETURN = 0.0  # measured −3e-6
RANDOM_RETURN = -4.70  # measured mean of 8 episodes (σ 0.69)
MARGIN = 5.0  # 7 σ of the random returns, twice their range
THRESHOLD = max(ZERO_RETURN, RANDOM_RETURN) + MARGIN
ITERATIONS, POPULATION, ELITE = 6, 8, 3  # 48 episodes


def make():
    return gym.make("lab/SnakeCreeping-v1", overrides={"sim.duration": DURATION})


def test_wave_policy_maps_its_bounds():
    p = WavePolicy.from_z([-1.0, 1.0, 0.0, 5.0])  # z beyond ±1 is clipped to the bounds
    assert (p.amplitude, p.frequency_hz, p.lag_rad, p.bias) == pytest.approx((0.0, 3.0, 0.0, 0.5))
    a = WavePolicy(1.0, 1.0, np.pi / 2, 0.5)(0.0, 3)
    np.testing.assert_allclose(a, [0.5, 1.0, 0.5], atol=1e-7)  # sin(jπ/2) + 0.5, clipped at 1
    assert a.dtype == np.float32


def test_baselines_are_what_the_threshold_was_set_from():
    """The zero policy's return is ~0 and the random policy's clearly negative, on this very setting:
    if the environment changed, the threshold must be measured again."""
    env = make()
    try:
        assert abs(episode_return(env, lambda t, n: np.zeros(n, np.float32))) < 1e-3
        rng = np.random.default_rng(0)
        r = [episode_return(env, lambda t, n: rng.uniform(-1, 1, n).astype(np.float32), seed=s) for s in range(3)]
        assert max(r) < THRESHOLD - MARGIN / 2 and np.mean(r) < 0
    finally:
        env.close()


@pytest.mark.slow  # ~30 s of CPU here (~60 s wall on the loaded machine): 48 one-second episodes
def test_cem_learns_to_creep_forward():
    env = make()
    try:
        res = cem(env, iterations=ITERATIONS, population=POPULATION, elite=ELITE, seed=0, episode_seed=0)
        final = episode_return(env, res.policy)
        again = episode_return(env, res.policy)
    finally:
        env.close()
    assert res.episodes == ITERATIONS * POPULATION
    assert final == again == res.best_return  # deterministic: same policy, same seeds, same return
    assert final > THRESHOLD, (final, res.history)
    means = [h["mean_return"] for h in res.history]
    assert means[-1] > means[0] + MARGIN  # the population improved, not one lucky sample
    assert res.policy.amplitude > 0.1 and res.policy.frequency_hz > 0.3  # a gait, not a twitch
