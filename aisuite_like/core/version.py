"""The package's version (``aisuite_like.__version__``), here so every layer can name it."""

__all__ = ["VERSION"]

VERSION = "0.1.0"
