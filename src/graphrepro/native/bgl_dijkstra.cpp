// The Boost Graph Library's dijkstra_shortest_paths on its compressed_sparse_row_graph, called as
// BGL users call it (named parameters, BGL's own d-ary heap and colour map), the baseline
// safari2017 quotes (588 ms on CalNev).
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/property_map/property_map.hpp>

#include "graphrepro_io.hpp"

using namespace graphrepro;

struct Arc {
  int64_t weight;
};
using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, Arc,
                                                 boost::no_property, uint32_t, uint64_t>;

int main(int argc, char** argv) {
  usage_if(argc != 2, "bgl_dijkstra GRAPH.csr  (sources on stdin, one per line)");
  Graph graph;
  int64_t n;
  {
    CSR g = read_csr(argv[1]);
    n = g.n;
    std::vector<std::pair<uint32_t, uint32_t>> arcs(g.m);
    std::vector<Arc> props(g.m);
    for (int64_t u = 0; u < g.n; ++u)
      for (int64_t a = g.indptr[u]; a < g.indptr[u + 1]; ++a) {
        arcs[a] = {static_cast<uint32_t>(u), g.indices[a]};
        props[a].weight = g.weights[a];
      }
    graph = Graph(boost::edges_are_sorted, arcs.begin(), arcs.end(), props.begin(),
                  static_cast<uint32_t>(g.n));
  }
  auto weight = boost::get(&Arc::weight, graph);
  auto index = boost::get(boost::vertex_index, graph);
  return serve_sources(n, [&](uint32_t source, std::vector<int64_t>& dist, int64_t&) {
    boost::dijkstra_shortest_paths(
        graph, source,
        boost::distance_map(boost::make_iterator_property_map(dist.begin(), index))
            .weight_map(weight)
            .distance_inf(INF)
            .distance_zero(int64_t(0)));
  });
}
