// Reading the graph files the Python side exports, and the request loop every SSSP program runs.
//
// Files are little-endian int64 throughout (no dtype negotiation; the export is a few hundred MB
// at most and is read once per process):
//   CSR:   "GRCSR01\0", n, m, indptr[n+1], indices[m], weights[m]
//   edges: "GREDG01\0", n, m, u[m], v[m], w[m]        (undirected, for the MST program)
// A program reads its file once and then answers many requests, so a big graph is not reloaded
// per source. Only the algorithm is timed (std::chrono::steady_clock).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace graphrepro {

constexpr int64_t INF = std::numeric_limits<int64_t>::max();

[[noreturn]] inline void die(const std::string& msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  std::exit(2);
}

struct File {
  FILE* f;
  std::string path;
  explicit File(const char* p) : f(std::fopen(p, "rb")), path(p) {
    if (!f) die(path + ": cannot open");
  }
  ~File() { std::fclose(f); }
  void read(void* dst, size_t bytes, const char* what) {
    if (std::fread(dst, 1, bytes, f) != bytes) die(path + ": truncated while reading " + what);
  }
  std::vector<int64_t> int64s(size_t count, const char* what) {
    std::vector<int64_t> out(count);
    read(out.data(), count * sizeof(int64_t), what);
    return out;
  }
  void header(const char* magic, int64_t& n, int64_t& m) {
    char got[8];
    read(got, 8, "the header");
    if (std::memcmp(got, magic, 8) != 0) die(path + ": not a graphrepro " + magic + " export");
    read(&n, 8, "the header");
    read(&m, 8, "the header");
    if (n < 0 || m < 0 || n >= (int64_t(1) << 32) - 1)
      die(path + ": bad sizes in header (vertices must fit in 32 bits)");
  }
};

struct CSR {
  int64_t n = 0, m = 0;
  std::vector<int64_t> indptr;
  std::vector<uint32_t> indices;  // 32-bit ids: half the memory traffic of the file's int64
  std::vector<int64_t> weights;
};

inline CSR read_csr(const char* path) {
  File f(path);
  CSR g;
  f.header("GRCSR01", g.n, g.m);
  g.indptr = f.int64s(g.n + 1, "indptr");
  std::vector<int64_t> idx = f.int64s(g.m, "indices");
  g.weights = f.int64s(g.m, "weights");
  if (g.indptr[0] != 0 || g.indptr[g.n] != g.m) die(f.path + ": indptr does not span the arcs");
  g.indices.resize(g.m);
  for (int64_t i = 0; i < g.m; ++i) {
    if (idx[i] < 0 || idx[i] >= g.n) die(f.path + ": arc target out of range");
    g.indices[i] = static_cast<uint32_t>(idx[i]);
  }
  return g;
}

struct Edges {
  int64_t n = 0, m = 0;
  std::vector<int64_t> u, v, w;
};

inline Edges read_edges(const char* path) {
  File f(path);
  Edges e;
  f.header("GREDG01", e.n, e.m);
  e.u = f.int64s(e.m, "u");
  e.v = f.int64s(e.m, "v");
  e.w = f.int64s(e.m, "w");
  for (int64_t i = 0; i < e.m; ++i)
    if (e.u[i] < 0 || e.u[i] >= e.n || e.v[i] < 0 || e.v[i] >= e.n)
      die(f.path + ": edge endpoint out of range");
  return e;
}

inline void write_all(const void* p, size_t bytes) {
  if (std::fwrite(p, 1, bytes, stdout) != bytes) die("cannot write to standard output");
}

// The SSSP request loop. After loading, write n (int64) so the caller knows the graph is in;
// then for each source read from stdin as a text line, write the solve time in ms (double), a
// counter (int64, -1 if the program counts nothing) and the n distances (int64, INF unreachable).
template <class Solve>
int serve_sources(int64_t n, Solve solve) {
  write_all(&n, sizeof n);
  std::fflush(stdout);
  std::vector<int64_t> dist(n);
  char line[64];
  while (std::fgets(line, sizeof line, stdin)) {
    char* end = nullptr;
    long long s = std::strtoll(line, &end, 10);
    if (end == line || s < 0 || s >= n) die("bad source line: " + std::string(line));
    int64_t counter = -1;
    auto t0 = std::chrono::steady_clock::now();
    solve(static_cast<uint32_t>(s), dist, counter);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    write_all(&ms, sizeof ms);
    write_all(&counter, sizeof counter);
    write_all(dist.data(), dist.size() * sizeof(int64_t));
    std::fflush(stdout);
  }
  return 0;
}

inline void usage_if(bool bad, const char* usage) {
  if (bad) {
    std::fprintf(stderr, "usage: %s\n", usage);
    std::exit(2);
  }
}

}  // namespace graphrepro
