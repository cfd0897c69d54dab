// Plain C++ Dijkstra with a binary heap (std::push_heap / std::pop_heap on a reserved vector, i.e.
// std::priority_queue without its allocation) and lazy deletion: the same algorithm as the numba
// reference, so the two compare compilers, not algorithms.
#include <algorithm>
#include <functional>
#include <utility>

#include "graphrepro_io.hpp"

using namespace graphrepro;

int main(int argc, char** argv) {
  usage_if(argc != 2, "cpp_dijkstra GRAPH.csr  (sources on stdin, one per line)");
  const CSR g = read_csr(argv[1]);
  using Entry = std::pair<int64_t, uint32_t>;
  const std::greater<Entry> later;  // min-heap on (distance, vertex)
  std::vector<Entry> heap;
  heap.reserve(g.m + 1);  // lazy deletion: at most one entry per arc, plus the source
  return serve_sources(g.n, [&](uint32_t source, std::vector<int64_t>& dist, int64_t& relaxed) {
    std::fill(dist.begin(), dist.end(), INF);
    heap.clear();
    relaxed = 0;
    dist[source] = 0;
    heap.emplace_back(0, source);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      auto [d, u] = heap.back();
      heap.pop_back();
      if (d > dist[u]) continue;  // stale: u was improved after this entry went in
      for (int64_t a = g.indptr[u]; a < g.indptr[u + 1]; ++a) {
        ++relaxed;
        uint32_t v = g.indices[a];
        int64_t nd = d + g.weights[a];
        if (nd < dist[v]) {
          dist[v] = nd;
          heap.emplace_back(nd, v);
          std::push_heap(heap.begin(), heap.end(), later);
        }
      }
    }
  });
}
