// What one launch costs on this GPU, measured from a native host loop: the floor beside which the
// report shows every per-round figure of the numba solvers. Prints CSV rows
// "measure,us,trials" (microseconds per operation, the median of the trials).
//   empty_launch      one empty kernel launch (10,000 back to back, per launch)
//   launch_readback   one empty launch + a 4-byte read into pinned memory + stream sync
//   harish_round      Harish's round on V vertices: two kernels + the flag read back + sync
//   grid_sync         one cooperative grid-wide barrier (10,000 in one launch, per barrier)
//   copy_tbps         device-to-device copy bandwidth, bytes read + written, TB/s
// Usage: launch_floor [V (default 264346, NY's vertices)] [trials (default 7)]
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        if (err_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

__global__ void empty() {}

// Harish's two kernels with the flag: no arcs (an empty graph), so the cost is the launches and
// one pass over the per-vertex state, as a round on a graph whose frontier is small.
__global__ void kernel1(const unsigned char* fa, int* f, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v == 0) *f = 0;
    if (v < n && fa[v]) *f = *f;  // touch the flag array as kernel 1 does
}

__global__ void kernel2(long long* d, long long* up, unsigned char* fa, int* f, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) {
        if (d[v] > up[v]) {
            d[v] = up[v];
            fa[v] = 1;
            *f = 1;
        }
        up[v] = d[v];
    }
}

__global__ void syncs(int rounds, int* sink) {
    cg::grid_group grid = cg::this_grid();
    for (int r = 0; r < rounds; ++r) grid.sync();
    if (grid.thread_rank() == 0) *sink = rounds;
}

static double now_us() {
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 264346;
    int trials = argc > 2 ? std::atoi(argv[2]) : 7;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int* flag;
    int* host_flag;
    long long *d, *up;
    unsigned char* fa;
    CHECK(cudaMalloc(&flag, sizeof(int)));
    CHECK(cudaMallocHost(&host_flag, sizeof(int)));
    CHECK(cudaMalloc(&d, n * sizeof(long long)));
    CHECK(cudaMalloc(&up, n * sizeof(long long)));
    CHECK(cudaMalloc(&fa, n));
    CHECK(cudaMemsetAsync(d, 0, n * sizeof(long long), s));
    CHECK(cudaMemsetAsync(up, 0, n * sizeof(long long), s));
    CHECK(cudaMemsetAsync(fa, 0, n, s));
    const int threads = 256, blocks = (n + threads - 1) / threads;
    std::vector<double> a, b, c, g, bw;
    for (int t = 0; t < trials + 1; ++t) {  // trial 0 is the warm-up
        const int reps = 10000, loops = 2000;
        double t0 = now_us();
        for (int i = 0; i < reps; ++i) empty<<<1, 32, 0, s>>>();
        CHECK(cudaStreamSynchronize(s));
        double t1 = now_us();
        for (int i = 0; i < loops; ++i) {
            empty<<<1, 32, 0, s>>>();
            CHECK(cudaMemcpyAsync(host_flag, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
            CHECK(cudaStreamSynchronize(s));
        }
        double t2 = now_us();
        for (int i = 0; i < loops; ++i) {
            kernel1<<<blocks, threads, 0, s>>>(fa, flag, n);
            kernel2<<<blocks, threads, 0, s>>>(d, up, fa, flag, n);
            CHECK(cudaMemcpyAsync(host_flag, flag, sizeof(int), cudaMemcpyDeviceToHost, s));
            CHECK(cudaStreamSynchronize(s));
            if (*host_flag != 0) return 2;  // nothing improves on an empty graph
        }
        double t3 = now_us();
        CHECK(cudaGetLastError());
        if (t == 0) continue;
        a.push_back((t1 - t0) / reps);
        b.push_back((t2 - t1) / loops);
        c.push_back((t3 - t2) / loops);
    }
    // grid sync: every block resident, as a cooperative launch requires
    int dev, per_sm = 0;
    cudaDeviceProp prop;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, syncs, threads, 0));
    int grid = per_sm * prop.multiProcessorCount;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    const size_t bytes = size_t(1) << 30;
    void *src, *dst;
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst, bytes));
    CHECK(cudaMemsetAsync(src, 1, bytes, s));
    for (int t = 0; t < trials + 1; ++t) {
        int rounds = 10000;
        void* args[] = {&rounds, &flag};
        CHECK(cudaEventRecord(e0, s));
        CHECK(cudaLaunchCooperativeKernel((void*)syncs, grid, threads, args, 0, s));
        CHECK(cudaEventRecord(e1, s));
        CHECK(cudaEventSynchronize(e1));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        CHECK(cudaEventRecord(e0, s));
        CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
        CHECK(cudaEventRecord(e1, s));
        CHECK(cudaEventSynchronize(e1));
        float copy_ms;
        CHECK(cudaEventElapsedTime(&copy_ms, e0, e1));
        if (t == 0) continue;
        g.push_back(ms * 1e3 / rounds);
        bw.push_back(2.0 * bytes / (copy_ms * 1e-3) / 1e12);
    }
    std::printf("measure,us,trials\n");
    std::printf("empty_launch,%.3f,%d\n", median(a), trials);
    std::printf("launch_readback,%.3f,%d\n", median(b), trials);
    std::printf("harish_round,%.3f,%d\n", median(c), trials);
    std::printf("grid_sync,%.3f,%d\n", median(g), trials);
    std::printf("copy_tbps,%.3f,%d\n", median(bw), trials);
    std::printf("# device=%s vertices=%d grid_sync_blocks=%d\n", prop.name, n, grid);
    return 0;
}
