// The Boost Graph Library's minimum spanning tree algorithms on an undirected adjacency_list, as
// BGL users (and gerritsen2012's section 3.1 baseline) call them.
//
//   bgl_mst EDGES.edges kruskal|prim
// writes to stdout: the time in ms (double), the number of tree edges k (int64), then u[k], v[k],
// w[k] (int64).
//   bgl_mst --serve
// answers requests "kruskal|prim EDGES.edges", one per line on stdin, each as above, until stdin
// closes: a caller timing many small graphs (gerritsen2012's 256 x 256 blocks) pays the process
// start once, not per graph. Kruskal gives a minimum spanning forest by itself. BGL's Prim grows one tree from
// one root, so for a forest a virtual root is joined by a weight-0 edge to one vertex of each
// connected component; its k edges are dropped from the answer. Both the component search and
// Prim are timed, since both are needed for the forest. Building the graph is not timed.
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/kruskal_min_spanning_tree.hpp>
#include <boost/graph/prim_minimum_spanning_tree.hpp>

#include <iostream>

#include "graphrepro_io.hpp"

using namespace graphrepro;

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                    boost::property<boost::edge_weight_t, int64_t>>;
using Edge = boost::graph_traits<Graph>::edge_descriptor;
using Clock = std::chrono::steady_clock;

static double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

static bool is_algorithm(const std::string& a) { return a == "kruskal" || a == "prim"; }

static void answer(const std::string& path, bool prim) {
  const Edges e = read_edges(path.c_str());
  const int64_t n = e.n;
  Graph g(prim ? n + 1 : n);  // Prim: vertex n is the virtual root
  for (int64_t i = 0; i < e.m; ++i) boost::add_edge(e.u[i], e.v[i], e.w[i], g);
  auto weight = boost::get(boost::edge_weight, g);
  std::vector<int64_t> tu, tv, tw;
  double ms;
  if (!prim) {
    std::vector<Edge> tree;
    tree.reserve(n);
    auto t0 = Clock::now();
    boost::kruskal_minimum_spanning_tree(g, std::back_inserter(tree));
    ms = ms_since(t0);
    for (const Edge& t : tree) {
      tu.push_back(boost::source(t, g));
      tv.push_back(boost::target(t, g));
      tw.push_back(weight[t]);
    }
  } else {
    std::vector<size_t> component(n + 1), pred(n + 1);
    auto t0 = Clock::now();
    // components of the real graph: the virtual root has no edges yet, so it is a component of its own
    const size_t count = boost::connected_components(g, component.data());
    std::vector<char> joined(count, 0);
    joined[component[n]] = 1;
    for (int64_t v = 0; v < n; ++v)
      if (!joined[component[v]]) {
        joined[component[v]] = 1;
        boost::add_edge(n, v, int64_t(0), g);
      }
    boost::prim_minimum_spanning_tree(g, pred.data(), boost::root_vertex(n));
    ms = ms_since(t0);
    for (int64_t v = 0; v < n; ++v) {
      if (pred[v] == static_cast<size_t>(n) || pred[v] == static_cast<size_t>(v)) continue;
      // the lightest of any parallel edges (the Python side removes them anyway)
      int64_t best = INF;
      for (auto [it, end] = boost::out_edges(v, g); it != end; ++it)
        if (boost::target(*it, g) == pred[v]) best = std::min(best, weight[*it]);
      tu.push_back(pred[v]);
      tv.push_back(v);
      tw.push_back(best);
    }
  }
  const int64_t k = static_cast<int64_t>(tu.size());
  write_all(&ms, sizeof ms);
  write_all(&k, sizeof k);
  write_all(tu.data(), k * sizeof(int64_t));
  write_all(tv.data(), k * sizeof(int64_t));
  write_all(tw.data(), k * sizeof(int64_t));
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  const char* usage = "bgl_mst EDGES.edges kruskal|prim | bgl_mst --serve";
  if (argc == 2 && std::strcmp(argv[1], "--serve") == 0) {
    std::string line;
    while (std::getline(std::cin, line)) {
      const size_t space = line.find(' ');
      const std::string algorithm = line.substr(0, space);
      if (space == std::string::npos || !is_algorithm(algorithm))
        die("bad request '" + line + "': expected 'kruskal|prim EDGES.edges'");
      answer(line.substr(space + 1), algorithm == "prim");
    }
    return 0;
  }
  usage_if(argc != 3 || !is_algorithm(argv[2]), usage);
  answer(argv[1], std::strcmp(argv[2], "prim") == 0);
  return 0;
}
