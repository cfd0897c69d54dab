"""an2017: R. An, Parallelization of the Bellman-Ford algorithm (CSC299 progress report, 2017).

``bellman_ford``: the dense edge-parallel version with edges per thread and index orders
(Alg. 1-5), the edge-list version (Alg. 6), incoming/pull (Alg. 7) and outgoing/push (Alg. 8).
``transfers``: section 4.1's benchmark: pageable vs pinned uploads, the two-stream overlap, and
the share of transfer time in the basic version's total.
"""
