"""Endpoints beyond chat, each a resource of the client loaded on first access (docs/audio.md,
docs/architecture.md): ``client.audio`` (``audio.py``)."""
