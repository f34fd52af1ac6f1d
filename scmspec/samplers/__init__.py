"""Samplers: executable plans, random streams and the vectorised numpy sampler."""
