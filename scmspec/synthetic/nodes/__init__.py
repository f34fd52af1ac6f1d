"""Per-node factors of the synthetic grid: mechanism, noise and root families.

Also how families are mixed within one SCM, and root dependency.
"""
