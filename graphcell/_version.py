"""graphcell's version, in a module of its own (the package, artifacts and the CLI read it)."""
__version__ = "0.1.0"
