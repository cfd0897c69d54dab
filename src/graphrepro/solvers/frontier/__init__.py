"""The study's own GPU SSSP (issue 21): asynchronous bucketed relaxation with no grid-wide
barrier per bucket, designed from what the documents' solvers' counters showed."""
