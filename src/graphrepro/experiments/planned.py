"""Published tables and figures whose reproduction is planned, with the issue that builds each."""

from . import Target, target

for name, document, item, description, issue in [
    ("safari2017_table1", "safari2017", "Table 1", "statistics of the seven road graphs", 3),
    ("singla_fig7_10", "singla", "Figures 7-10", "edge-based Dijkstra and BFS, time against edges, GPU vs CPU", 7),
    ("an2017_fig1", "an2017", "Figure 1", "time against vertices for 1..64 edges per thread", 8),
    ("an2017_fig2", "an2017", "Figure 2", "incoming vs outgoing vs edge-based Bellman-Ford", 8),
    ("an2017_transfers", "an2017", "Section 4.1", "pageable vs pinned transfers and two-stream overlap", 8),
    ("gerritsen2012_mst", "gerritsen2012", "Tables 3.1-3.8", "I/O-efficient MST with GPU Boruvka on terrain", 10),
    ("gerritsen2012_sssp", "gerritsen2012", "Tables 5.1-5.7", "I/O-efficient SSSP on terrain, both GPU algorithms", 11),
]:
    target(Target(name, document, item, description, planned=issue))
