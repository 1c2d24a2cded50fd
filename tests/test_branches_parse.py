"""benchmarks.branches' reading of callgrind's per-instruction counts."""

from __future__ import annotations

from benchmarks.branches import branch_costs

# positions "instr line", events "Ir Bc Bcm Bi Bim"; relative and repeated addresses, a call
# whose cost line belongs to the call (not to the instruction), and addresses outside the range
CALLGRIND = """# callgrind format
positions: instr line
events: Ir Bc Bcm Bi Bim
ob=(1) ???
fn=(1) 0x0000000000001000
0x1000 0 5
+4 0 5 5 2
* 0 5 5 1
+3 0 1
calls=1 0x9000 0
+2 0 100 50 20
-2 0 1
0x2000 0 7 7 7
"""


def test_counts_are_summed_per_instruction_in_range(tmp_path):
    out = tmp_path / "callgrind.out"
    out.write_text(CALLGRIND)
    costs = branch_costs(out, 0x1000, 0x1100)
    assert dict(costs) == {0x1000: [5, 0, 0], 0x1004: [10, 10, 3], 0x1007: [2, 0, 0]}
