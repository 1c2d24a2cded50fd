"""Test-wide settings: every hypothesis test is reproducible, and the general kernel is compiled
once per game.

The ``fudasim`` profile is derandomized (examples derive from each test's source, not from a
random seed) and keeps no example database, so a run in CI draws exactly the examples a run on
a laptop draws; there is no deadline, since a first call may compile numba code.

A run compiles the general kernel for the set of policies its seats play (a first run of
heuristic seats compiles no search player).  The tests play dozens of such sets, and each would
be a cold compile of its own; ``FUDASIM_ALL_POLICY_KINDS`` makes every run here, and every
command the tests start, use the one kernel per game that holds every policy.  The policies'
code and the rows are the same either way: a policy's kind only decides whether its branch is
compiled.  The tests of what a first run compiles (``test_first_compile``) unset it.
"""

import os

from hypothesis import settings

from simcore.kernels.policy_rows import ALL_KINDS_ENV

os.environ.setdefault(ALL_KINDS_ENV, "1")

settings.register_profile("fudasim", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile("fudasim")
