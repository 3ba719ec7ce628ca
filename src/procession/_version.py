"""The package's version, in one place: the root re-exports it and the build reads it.

Hatchling takes the wheel's version from this file (``[tool.hatch.version]`` in
``pyproject.toml``), so a release changes one line.
"""

__all__ = ["__version__"]

__version__ = "0.1.0.dev0"
