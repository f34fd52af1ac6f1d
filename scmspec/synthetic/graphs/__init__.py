"""Graph families of the synthetic grid, and the graph drawer.

Graphs are resampled until the structural gates hold (no isolated node, depth, edges).
"""
