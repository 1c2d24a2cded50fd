"""The policy ids the kernels dispatch on: plain ints, one definition for every game's kernel.

``simcore.policies``' registry gives each policy its id from here; a kernel is only ever handed
ids that its game declares it implements (``simcore.policies.check_engine``), so no kernel
plays an id it does not know as another policy.
"""

POLICY_RANDOM = 0
POLICY_GREEDY = 1
