"""The endpoints beyond chat, each a resource of the client loaded on first use:
``client.embeddings`` (``embeddings.py``, docs/embeddings.md)."""
