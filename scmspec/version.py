"""The scmspec version: recorded in every manifest, spec and metadata file."""

__version__ = "0.1.0"
