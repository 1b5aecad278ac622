"""Knowing the model (docs/models.md): ``ModelInfo`` (what is known of a model, and where
each fact came from), the data snapshot shipped in the package, the facts read from the
providers' own model endpoints, and the checks of a request before it is sent."""

from .types import FieldSource, ModelInfo, Prices

__all__ = ["ModelInfo", "FieldSource", "Prices"]
