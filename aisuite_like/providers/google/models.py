"""Gemini's models list, pure (no I/O, no SDK import): the path of a page of
``GET models`` (Gemini API) or ``GET publishers/google/models`` (Vertex AI, Google's own
models) and a page of its reply -> ``Model`` objects and the next page's token
(docs/models.md)."""

from __future__ import annotations

from typing import Any, Optional
from urllib.parse import urlencode

from ...core.types import Model
from .._common import bad_shape, need_object, opt_list
from .errors import error_event

__all__ = ["PAGE_SIZE", "models_path", "parse_models_page"]

#: Entries asked for per page (the Gemini API's largest page).
PAGE_SIZE = 1000


def models_path(vertex: bool, page_token: Optional[str] = None) -> str:
    """The request path of one page (relative to the API version, as google-genai builds
    it; a Vertex AI ``publishers/`` path is not put under the project)."""
    query: dict[str, Any] = {"pageSize": PAGE_SIZE}
    if page_token:
        query["pageToken"] = page_token
    return ("publishers/google/models" if vertex else "models") + "?" + urlencode(query)


def parse_models_page(data: Any, provider: str, vertex: bool = False
                      ) -> tuple[list[Model], Optional[str]]:
    """``{"models": [{"name": "models/gemini-2.0-flash", ...}], "nextPageToken"}`` (Gemini
    API) or ``{"publisherModels": [{"name": "publishers/google/models/...", ...}], ...}``
    (Vertex AI) -> (models named without their resource prefix, the next page's token or
    None). Gemini reports no creation date (``created`` is 0)."""
    data = need_object(data, provider, "the reply")
    if data.get("error"):
        raise error_event(data["error"], provider, where="error object in the reply")
    field = "publisherModels" if vertex else "models"
    models = []
    for i, item in enumerate(opt_list(data.get(field), provider, field) or ()):
        entry = need_object(item, provider, f"{field}[{i}]")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise bad_shape(provider, f"{field}[{i}].name", "a non-empty string", name,
                            missing=name in (None, ""))
        models.append(Model(id=name.rsplit("models/", 1)[-1], owned_by="google",
                            provider=provider, raw=entry))
    token = data.get("nextPageToken")
    return models, token if isinstance(token, str) and token else None
