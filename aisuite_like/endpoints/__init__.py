"""The endpoints beside chat, one module each (docs/architecture.md): ``client.responses``
(``responses.py``, docs/responses.md), ``client.embeddings`` (``embeddings.py``,
docs/embeddings.md), ``client.models`` (``models.py``, docs/models.md), ``client.audio``
(``audio.py``, with aisuite's parameter table in ``audio_params.py``, docs/audio.md). The
client's facade loads each on the first access of its attribute."""
