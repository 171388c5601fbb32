"""The package's version, in a module of its own so that any module can read it without
importing the package (whose ``__init__`` imports the clients, and they the transports)."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
