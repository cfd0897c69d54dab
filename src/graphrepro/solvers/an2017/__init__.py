"""an2017: R. An, Parallelization of the Bellman-Ford algorithm (CSC299 progress report, 2017).

``bellman_ford``: the dense edge-parallel version with edges per thread and index orders
(Alg. 1-5), the edge-list version (Alg. 6), incoming/pull (Alg. 7) and outgoing/push (Alg. 8).
``transfers``: section 4.1's benchmark: pageable vs pinned uploads, the two-stream overlap, and
the share of transfer time in the basic version's total.
"""

ORDERS = ("coalesced", "chunked", "transposed")  # index orders of the dense version (see bellman_ford)
EDGES_PER_THREAD = (1, 2, 4, 8, 16, 32, 64)  # the document's sweep (section 4.2, Fig. 1)
