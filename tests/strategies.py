"""Hypothesis strategies shared by the solver tests."""

from hypothesis import strategies as st

from graphrepro.graph.csr import CSRGraph


@st.composite
def graphs_and_sources(draw):
    n = draw(st.integers(1, 12))
    vertex = st.integers(0, n - 1)
    # Few arcs for the vertex count (unreachable vertices common), small weights (zero weights,
    # ties and parallel arcs of different weights common); self-loops come with the draw.
    arcs = draw(st.lists(st.tuples(vertex, vertex, st.integers(0, 5)), max_size=3 * n))
    src, dst, weights = zip(*arcs) if arcs else ((), (), ())
    return CSRGraph.from_arcs(n, src, dst, weights), draw(vertex)
