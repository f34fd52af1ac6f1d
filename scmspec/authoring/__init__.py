"""Authoring helpers: skeletons for new cards, and the generated card-library index."""
