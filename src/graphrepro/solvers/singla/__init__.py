"""singla: Singla, Tiwari & Singh, New Approach for Graph Algorithms on GPU using CUDA.

One thread per edge over the edge arrays S_a (start vertex), E_a (end vertex) and W_a (weight):

- ``singla_dijkstra``: edge-based parallel Dijkstra (Figs. 3-4), one round per distinct
  distance value: the minimum over unsettled vertices, then every edge leaving a vertex at that
  minimum relaxes its end vertex.
- ``singla_bfs``: edge-based parallel BFS (Figs. 5-6), one launch per level and a changed flag.

Both take ``check_every``: the host reads the device's state back once every that many rounds or
levels (1, the default, is the document's host loop; larger values trade a few empty launches at
the end for fewer host round trips).
"""
