"""The policy ids the kernels dispatch on: plain ints, one definition for every game's kernel.

``simcore.policies``' registry gives each policy its id from here; a kernel is only ever handed
ids that its game declares it implements (``simcore.policies.check_engine``), so no kernel
plays an id it does not know as another policy.
"""

POLICY_RANDOM = 0
POLICY_GREEDY = 1
POLICY_HEURISTIC = 2
POLICY_PIMC = 3
POLICY_ISMCTS = 4
POLICY_OMNISCIENT = 5  # for measurement only: sees the hidden cards
POLICY_LEARNED = 6  # a trained model over features of the seat's observation (``simcore.learned``)

# The rollout policy of a search player, as its kernel parameter: the id of the policy that
# plays every seat after the searched move (``random``, ``greedy`` or ``heuristic``).
ROLLOUT_IDS = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY, "heuristic": POLICY_HEURISTIC}
# A search player's objective: ``win`` scores a finished round +1, 0 or -1 by the sign of the
# seat's payoff; ``score`` scores it by the payoff itself; ``margin`` by how far the seat's payoff
# is ahead of each other seat's, summed (two seats: own minus the other's), which is what counts
# where payoffs are not zero-sum (koi-koi's winner-only scoring pays the winner alone).
OBJECTIVE_WIN = 0
OBJECTIVE_SCORE = 1
OBJECTIVE_MARGIN = 2
OBJECTIVE_IDS = {"win": OBJECTIVE_WIN, "score": OBJECTIVE_SCORE, "margin": OBJECTIVE_MARGIN}
