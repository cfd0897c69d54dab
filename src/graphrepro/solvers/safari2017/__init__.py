"""safari2017: Safari & Ebneenasir, Locality-Based Relaxation (TTCS 2017).

``harish``: Harish et al.'s two-kernel SSSP as the paper restates it (Alg. 3-5), the baseline of
its Fig. 3 and Table 2.
"""
