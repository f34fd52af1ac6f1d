"""The synthetic family: generated SCM cards over a factor grid (CausalArena appendix A.1).

``node_factors`` draws node-level kinds (mechanisms, noise, root distributions) with
the grid's documented parameter ranges; graph, root-dependency, stressor and
intervention factors build on it. Import the submodules directly.
"""
