// graphrepro's driver around Gunrock (gunrock/gunrock essentials): the graph is read once by
// Gunrock's own Matrix Market reader and built as its SSSP example does (COO -> CSR -> device
// graph, int vertices, edges and weights, so every distance is exact); then every source named
// on stdin is solved by gunrock::sssp::run and answered in binary on stdout:
//   after loading: int64 n
//   per source:    f8 peer_ms (the time sssp::run returns, Gunrock's own timer), f8 call_ms (our
//                  CUDA events around the call), f8 download_ms, i8 -1, then n x int32 distances
//                  (INT32_MAX: unreachable)
// Argument 2 names the advance load balancer. This file is the study's own.
#include <gunrock/algorithms/sssp.hxx>
#include <cstdio>
#include <string>
#include <vector>

using namespace gunrock;
using namespace memory;

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "gunrock driver: %s: %s\n", what, cudaGetErrorString(e));
    exit(3);
  }
}

static void put(const void* p, size_t n) {
  if (fwrite(p, 1, n, stdout) != n)
    exit(4);  // the reader has gone
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s GRAPH.mtx block_mapped|thread_mapped|merge_path\n", argv[0]);
    return 2;
  }
  using vertex_t = int;
  using edge_t = int;
  using weight_t = int;
  using csr_t = format::csr_t<memory_space_t::device, vertex_t, edge_t, weight_t>;

  std::string balance = argv[2];
  gunrock::options_t options;
  if (balance == "block_mapped")
    options.advance_load_balance = operators::load_balance_t::block_mapped;
  else if (balance == "thread_mapped")
    options.advance_load_balance = operators::load_balance_t::thread_mapped;
  else if (balance == "merge_path")
    options.advance_load_balance = operators::load_balance_t::merge_path;
  else {
    fprintf(stderr, "gunrock driver: unknown load balancer %s\n", balance.c_str());
    return 2;
  }

  io::matrix_market_t<vertex_t, edge_t, weight_t> mm;
  auto [properties, coo] = mm.load(argv[1]);
  csr_t csr;
  csr.from_coo(coo);
  auto G = graph::build<memory_space_t::device>(properties, csr);
  auto context = std::make_shared<gcuda::multi_context_t>(0);
  long long n = G.get_number_of_vertices();
  thrust::device_vector<weight_t> distances(n);
  thrust::device_vector<vertex_t> predecessors(n);
  std::vector<weight_t> host(n);
  cudaEvent_t call0, call1, down0, down1;
  for (cudaEvent_t* e : {&call0, &call1, &down0, &down1}) check(cudaEventCreate(e), "event");

  put(&n, 8);
  fflush(stdout);
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    long long source = atoll(line);
    if (source < 0 || source >= n) {
      fprintf(stderr, "gunrock driver: source %lld out of range\n", source);
      return 2;
    }
    context->get_context(0)->synchronize();
    gunrock::sssp::param_t<vertex_t> param((vertex_t)source, options);
    gunrock::sssp::result_t<vertex_t, weight_t> result(distances.data().get(),
                                                       predecessors.data().get(), (vertex_t)n);
    check(cudaEventRecord(call0, 0), "record");
    float peer_ms = gunrock::sssp::run(G, param, result, context);
    check(cudaEventRecord(call1, 0), "record");
    check(cudaEventSynchronize(call1), "solve");
    context->get_context(0)->synchronize();
    check(cudaGetLastError(), "solve");
    float call_ms = 0, down_ms = 0;
    cudaEventElapsedTime(&call_ms, call0, call1);
    cudaEventRecord(down0, 0);
    check(cudaMemcpy(host.data(), distances.data().get(), n * sizeof(weight_t),
                     cudaMemcpyDeviceToHost), "download");
    cudaEventRecord(down1, 0);
    cudaEventSynchronize(down1);
    cudaEventElapsedTime(&down_ms, down0, down1);
    double head[3] = {peer_ms, call_ms, down_ms};
    long long work = -1;
    put(head, sizeof head);
    put(&work, 8);
    put(host.data(), n * sizeof(weight_t));
    fflush(stdout);
  }
  return 0;
}
