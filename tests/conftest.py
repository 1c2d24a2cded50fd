"""Test-wide settings: every hypothesis test is reproducible.

The ``fudasim`` profile is derandomized (examples derive from each test's source, not from a
random seed) and keeps no example database, so a run in CI draws exactly the examples a run on
a laptop draws; there is no deadline, since a first call may compile numba code.
"""

from hypothesis import settings

settings.register_profile("fudasim", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile("fudasim")
