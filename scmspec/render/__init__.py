"""Figures and the HTML catalogue: outputs drawn from the resolved spec, never the raw YAML.

- :mod:`scmspec.render.graphviz`: ``to_dot`` (pure DOT text) and ``write_figure`` (via ``dot``)
- :mod:`scmspec.render.figures`: cards or a folder of cards to figure files
- :mod:`scmspec.render.report`: a compiled ``data/`` folder to a static, offline HTML site
"""
