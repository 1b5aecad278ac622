"""aisuite's client tests, run against aisuite_like (README.md)."""
