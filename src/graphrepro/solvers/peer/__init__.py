"""Peers: public GPU SSSP codes built from their own source and run through the harness."""
