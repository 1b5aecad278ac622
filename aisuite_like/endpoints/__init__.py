"""The endpoints beyond chat, each a resource of the client loaded on first use: ``models``
(docs/models.md)."""
