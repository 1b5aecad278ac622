"""The endpoints beside chat, one module each (docs/architecture.md): ``client.responses``
(``responses.py``, docs/responses.md), ``client.models`` (``models.py``, docs/models.md). The
client's facade loads each on the first access of its attribute."""
