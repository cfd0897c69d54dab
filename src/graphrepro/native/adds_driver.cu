// graphrepro's driver around ADDS (UCLA-VAST/adds, variant ads_int): the graph is read once by
// ADDS's own Galois .gr reader, then every source named on stdin is solved with ADDS's kernels as
// its gg_main does one sample (init kernel, worklist reinit, weight profiler, worker + manager
// grids), and answered in binary on the saved stdout:
//   after loading: int64 n
//   per source:    f8 peer_ms (ADDS's own events: profiler + solve), f8 call_ms (our events around
//                  the whole call, init included), f8 download_ms, i8 work, then n x int32
//                  distances (INT32_MAX: unreachable)
// ADDS prints to stdout, so fd 1 is pointed at stderr and the protocol has a descriptor of its own.
// Built by graphrepro.peers after the patch renames ADDS's main; this file is the study's own.
#include "kernel.cu"
#include <unistd.h>
#include <string>

static FILE* reply = nullptr;

static void check(cudaError_t e, const char* what) {
	if (e != cudaSuccess) {
		fprintf(stderr, "adds driver: %s: %s\n", what, cudaGetErrorString(e));
		exit(3);
	}
}

static void put(const void* p, size_t n) {
	if (fwrite(p, 1, n, reply) != n) {
		exit(4);  // the reader has gone
	}
}

int main(int argc, char* argv[]) {
	if (argc != 4) {
		fprintf(stderr, "usage: %s GRAPH.gr device|host BLOCKS_PER_SM\n", argv[0]);
		return 2;
	}
	std::string launch = argv[2];
	int blocks_per_sm = atoi(argv[3]);
	if ((launch != "device" && launch != "host") || blocks_per_sm < 0) {
		fprintf(stderr, "adds driver: launch must be device or host, blocks per SM >= 0\n");
		return 2;
	}
	int out_fd = dup(1);
	dup2(2, 1);
	reply = fdopen(out_fd, "wb");

	check(cudaSetDevice(CUDA_DEVICE), "cudaSetDevice");
	CSRGraphTy hg, gg;
	if (hg.read(argv[1]) != 0) {
		fprintf(stderr, "adds driver: cannot read %s\n", argv[1]);
		return 2;
	}
	hg.copy_to_gpu(gg);

	cudaDeviceProp prop;
	check(cudaGetDeviceProperties(&prop, CUDA_DEVICE), "cudaGetDeviceProperties");
	int num_threads = TB_SIZE, occupancy = 0;
	check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, sssp_kernel, num_threads, 0),
	      "occupancy");
	// 0: the published choice (occupancy); the worker grid leaves one SM to the manager kernel
	int per_sm = blocks_per_sm > 0 ? blocks_per_sm : occupancy;
	int num_tb = per_sm * (prop.multiProcessorCount - 1);
	int other_num_tb = occupancy * prop.multiProcessorCount;  // init and profiler grids, as published
	fprintf(stderr, "adds driver: %d SMs, occupancy %d, worker grid %d x %d, %s launch\n",
	        prop.multiProcessorCount, occupancy, num_tb, num_threads, launch.c_str());

	unsigned suggest_size = (unsigned)((float)hg.nedges * WL_SIZE_MUL) + (NUM_BAG * BLOCK_SIZE * 8);
	suggest_size = min(suggest_size, 536870912);
	unsigned* work_count;
	check(cudaMalloc((void**)&work_count, num_tb * num_threads * sizeof(unsigned)), "cudaMalloc");
	worklist wl;
	wl.alloc(num_tb, num_threads / 32, suggest_size, hg.nnodes, hg.nedges);
	float* bk_wt;
	check(cudaMalloc((void**)&bk_wt, other_num_tb * sizeof(float)), "cudaMalloc");
	float* host_bk_wt = (float*)malloc(other_num_tb * sizeof(float));
	unsigned* work_host = (unsigned*)malloc(num_tb * num_threads * sizeof(unsigned));
	cudaStream_t s1, s2;  // the host launch: blocking streams, so stream 0's events wait for them
	check(cudaStreamCreate(&s1), "stream");
	check(cudaStreamCreate(&s2), "stream");
	cudaEvent_t call0, call1, start, stop, down0, down1;
	for (cudaEvent_t* e : {&call0, &call1, &start, &stop, &down0, &down1}) check(cudaEventCreate(e), "event");

	long long n = hg.nnodes;
	put(&n, 8);
	fflush(reply);
	char line[64];
	while (fgets(line, sizeof line, stdin)) {
		long long source = atoll(line);
		if (source < 0 || source >= n) {
			fprintf(stderr, "adds driver: source %lld out of range\n", source);
			return 2;
		}
		check(cudaEventRecord(call0, 0), "record");
		kernel<<<other_num_tb, 1024>>>(gg, (int)source);
		cudaMemset(work_count, 0, num_tb * num_threads * sizeof(unsigned));
		wl.reinit();
		check(cudaDeviceSynchronize(), "init");
		check(cudaEventRecord(start, 0), "record");
		// ADDS's delta from its weight profiler (gg_main's block, unchanged)
		int total_warp = other_num_tb * 1024 / 32;
		int warp_edge_interval = hg.nedges / (total_warp * I_TIME * N_TIME);
		profiler_kernel<<<other_num_tb, 1024>>>(gg, bk_wt, warp_edge_interval);
		cudaMemcpy(host_bk_wt, bk_wt, other_num_tb * sizeof(float), cudaMemcpyDeviceToHost);
		float ave_wt = 0;
		for (int i = 0; i < other_num_tb; i++) ave_wt += host_bk_wt[i];
		ave_wt /= other_num_tb;
		wl.set_param(ave_wt, (float)hg.nedges / (float)hg.nnodes);
		if (launch == "device") {
			gg_main_pipe_1_wrapper(hg, gg, (uint)source, num_tb, num_threads, wl, work_count);
		} else {
			wl_kernel<<<1, 192, 0, s1>>>(wl, (int)source);
			sssp_kernel<<<num_tb, num_threads, 0, s2>>>(gg, wl, work_count);
		}
		check(cudaEventRecord(stop, 0), "record");
		check(cudaEventRecord(call1, 0), "record");
		check(cudaEventSynchronize(call1), "solve");
		check(cudaGetLastError(), "solve");
		float peer_ms = 0, call_ms = 0, down_ms = 0;
		cudaEventElapsedTime(&peer_ms, start, stop);
		cudaEventElapsedTime(&call_ms, call0, call1);
		cudaEventRecord(down0, 0);
		check(cudaMemcpy(hg.node_data, gg.node_data, n * sizeof(node_data_type),
		                 cudaMemcpyDeviceToHost), "download");
		cudaEventRecord(down1, 0);
		cudaEventSynchronize(down1);
		cudaEventElapsedTime(&down_ms, down0, down1);
		cudaMemcpy(work_host, work_count, num_tb * num_threads * sizeof(unsigned), cudaMemcpyDeviceToHost);
		long long work = 0;
		for (int i = 0; i < num_tb * num_threads; i++) work += work_host[i];
		double head[3] = {peer_ms, call_ms, down_ms};
		put(head, sizeof head);
		put(&work, 8);
		put(hg.node_data, n * sizeof(int));
		fflush(reply);
	}
	wl.free();
	return 0;
}
