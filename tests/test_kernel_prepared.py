"""``simcore.kernels.prepared``: a kernel's prepared arguments are built once per (rules, policies)."""

from simcore.kernels import prepared as prep


def test_built_once_for_the_same_objects_and_again_for_others():
    calls = []

    def build(compiled, specs):
        calls.append((compiled, specs))
        return (len(calls),)

    rules, other_rules = object(), object()
    seats = [object(), object()]
    first = prep.prepared(build, rules, seats)
    assert prep.prepared(build, rules, list(seats)) is first  # the same objects: no new build
    assert prep.prepared(build, other_rules, seats) == (2,)
    assert prep.prepared(build, rules, [seats[1], seats[0]]) == (3,)  # other seats' order
    assert prep.prepared(build, rules, [object(), seats[1]]) == (4,)  # an equal-looking new spec
    assert len(calls) == 4


def test_only_the_last_entries_are_kept():
    def build(compiled, specs):
        return object()

    keys = [object() for _ in range(prep.KEEP + 5)]
    values = [prep.prepared(build, key, []) for key in keys]
    assert len(prep._entries) <= prep.KEEP
    assert prep.prepared(build, keys[-1], []) is values[-1]
    assert prep.prepared(build, keys[0], []) is not values[0]  # dropped, built again
