"""One home per paper: how each paper is reproduced.

Each package holds that paper's study — its report section, its checks, the trials and analyses only
it uses; its checks and report section are listed in :mod:`lab.plugins`. Reusable parts stay where
they are (robots, arenas, forces, controllers, models, analysis used by several papers, trials).

| package              | paper                                                             | report section | checks |
|----------------------|-------------------------------------------------------------------|----------------|--------|
| ``wang2011_creeping``| Wang et al. 2011, energy-based passive creeping                   | ``seed001``    | ``energy_balance``, ``turning_law`` |
| ``zhang2018_eel``    | Zhang et al. 2018, eel robot in a non-inertial frame              | ``seed003``    | ``eel_models``, ``hydro_decay``, ``eel_engine`` |
| ``hu2013_tracked``   | Hu et al. 2013, tracked wheel-manipulator robot on a step         | ``seed004``    | ``step_climb`` |
| ``guo2015_wheeled``  | Guo et al. 2015, passive-wheel snake, unified model and PFL       | ``seed000``    | ``nonholonomic_models``, ``pfl_tracking``, ``pfl_engine`` |
| ``wang2011_unified`` | Wang et al. 2011, unified locomotion/manipulation dynamics        | ``seed002``    | ``unified_manipulation``, ``unified_locomotion`` |

To change how paper X is reproduced, open its package here; to add a paper, add a package, list it in
:data:`PAPERS` and its checks and report modules in :mod:`lab.plugins`.
"""

from __future__ import annotations

PAPERS = ("wang2011_creeping", "zhang2018_eel", "hu2013_tracked", "wang2011_unified", "guo2015_wheeled")

__all__ = ["PAPERS"]
