// Force-included (-include) into every Gunrock translation unit graphrepro builds with plain nvcc.
// Since Gunrock's AMD/NVIDIA consolidation its device code is chosen with
// `#if __HIP_DEVICE_COMPILE__`, which only hipcc defines: under nvcc its atomic min compiles to a
// plain std::min that stores nothing, and SSSP reaches only the source. Defining the macro in
// device passes (where __CUDA_ARCH__ is set) restores the CUDA atomics; no Gunrock file changes.
#if defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define __HIP_DEVICE_COMPILE__ 1
#endif
