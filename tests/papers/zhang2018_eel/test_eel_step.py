"""The eel controller's compiled glue (state vector, Zhang 2018 eq. 34 reference, eq. 37 outer loop,
eq. 35 linearisation, saturation) against its numpy form, on the engine and on hand-made states."""

import numpy as np
import pytest

from lab.core import scenario as scn
from lab.core.runner import Simulation


@pytest.fixture(scope="module")
def eel_sim():
    sim = Simulation(scn.load("eel_forward_turn", ["sim.duration=600"]))
    yield sim
    sim.close()


@pytest.mark.slow
def test_compiled_glue_is_the_numpy_form_along_a_run(eel_sim):
    """Through the first turn window (γ ≠ 0 after 10 s): the compiled passes equal the numpy form to
    rounding on every sampled snapshot, and the torques are not trivially zero."""
    sim, c = eel_sim, eel_sim.controller
    worst, biggest = 0.0, 0.0
    for t_end in (0.5, 3.0, 10.5, 12.0):
        sim.run(duration=t_end - sim.world.t)
        s = sim.world.read_state()
        np.testing.assert_allclose(c.state_vector(s), c.state_vector_numpy(s), rtol=0, atol=1e-13)
        tau, ref = c.act(s), c.act_numpy(s)
        worst = max(worst, np.abs(tau - ref).max())
        biggest = max(biggest, np.abs(ref).max())
    assert biggest > 1e-2
    assert worst <= 1e-12 * biggest


def test_compiled_glue_saturates_like_the_numpy_form(eel_sim):
    """A hand-made state far from the reference (large joint errors and rates) drives some torques past
    the effort limit: both forms clip the same joints to ±effort."""
    sim, c = eel_sim, eel_sim.controller
    s = sim.world.read_state()
    rng = np.random.default_rng(3)
    s.q[:] = rng.uniform(-1.2, 1.2, s.q.shape)
    s.qd[:] = rng.uniform(-8, 8, s.qd.shape)
    tau, ref = c.act(s), c.act_numpy(s)
    e = sim.world.model.effort
    assert np.any(np.abs(ref) == e), "the state must saturate some joint"
    np.testing.assert_allclose(tau, ref, rtol=1e-12, atol=1e-12 * e)
