"""frontier's defaults that come from a graph's own statistics (issue 54), never from its name."""

import numpy as np

# c, from the graph's own mean out-degree (issue 54), never from its name. The tuning set (real
# NY, the calnev and western stand-ins, NY and calnev with weights 1..1000: mean out-degree 2.4 to
# 2.8) put the best c at 16-64 and 32 within 3% of the best on every one of them
# (reports/evidence/frontier4/call-4, -5); c=8, issue 21's choice for its design, was 8-34%
# slower there. Past the degrees the tuning set covered (up to ROAD_DEGREE) c stays the value
# rounds 2 and 3 kept, with the uniform random and web graphs in view: on the held-out uniform
# graph (mean out-degree 8) c=32 took 4.81 ms against 3.00 for c=8 (call-7).
ROAD_DEGREE, ROAD_C, OTHER_C = 4.0, 32.0, 8.0
# The graphs (any weights) frontier's defaults were tuned on; every other graph is held out, and
# the report shows the two apart (issue 54).
TUNING_DATASETS = ("ny", "calnev", "western")


def mean_out_degree(graph) -> float:
    """The statistic every default here is drawn from (arcs per vertex)."""
    return graph.num_arcs / max(graph.num_vertices, 1)


def default_c(graph) -> float:
    degree = mean_out_degree(graph)
    return ROAD_C if degree <= ROAD_DEGREE else OTHER_C


def designs_on(graph) -> int:
    """warp_push's and spread's default (issue 54 item 4): on past the road degrees, off within.

    Measured on the H200, paired per source against both off (reports/evidence/frontier4, calls
    9 and 10): on the web graph (mean out-degree 5.8) the two together were 1.064x faster (8 of
    10 sources) and on the uniform graph (8) warp_push alone 1.045x (9 of 10); on the roads and
    the 1000^2 grid (2.2 to 4.0), where neither acts (no push passes the stage, no vertex the
    piece), the kernel that carries them was 0.99x (7 of 10 sources slower: its extra registers
    and votes). The same line as c's: ``ROAD_DEGREE``.
    """
    degree = mean_out_degree(graph)
    return 0 if degree <= ROAD_DEGREE else 1


def spread_piece(graph, chunk: int, hub: int) -> int:
    """frontier@spread=1's piece (arcs a block takes from a hub): as many arcs as an average batch
    relaxes (``chunk`` vertices of the graph's mean out-degree), so a piece costs its taker about
    one batch; never below ``hub``, the degree from which the block shares a vertex's arcs."""
    degree = mean_out_degree(graph)
    return max(hub, 1, int(np.ceil(chunk * degree)))
