"""The embeddings response in OpenAI's shape (``client.embeddings.create``, docs/embeddings.md),
and the float32 / base64 conversion OpenAI's ``encoding_format="base64"`` means.

``CreateEmbeddingResponse`` has OpenAI's fields (``object="list"``, ``data``, ``model``,
``usage``) plus ``provider``; each ``Embedding`` is a list of floats, or with
``encoding_format="base64"`` the base64 text of the vector's little-endian float32 bytes, as
OpenAI sends it (``numpy.frombuffer(base64.b64decode(e), dtype="<f4")`` reads it back).
"""

from __future__ import annotations

import base64
import binascii
import sys
from array import array
from typing import Any, Literal, Optional, Union

from pydantic import Field

from .types import _Model, build_model

__all__ = [
    "Embedding",
    "EmbeddingUsage",
    "CreateEmbeddingResponse",
    "EncodingFormat",
    "InputType",
    "floats_to_base64",
    "base64_to_floats",
    "in_format",
]

#: What ``encoding_format`` takes: the vectors as lists of floats, or as base64 text.
EncodingFormat = Literal["float", "base64"]
#: What ``input_type`` takes: text to search with, or text to be found.
InputType = Literal["query", "document"]

_SWAP = sys.byteorder != "little"  # OpenAI's base64 holds little-endian float32


class Embedding(_Model):
    """One input's vector: ``embedding`` is a list of floats, or a base64 string with
    ``encoding_format="base64"``; ``index`` is the input's position in the request."""

    object: Literal["embedding"] = "embedding"
    index: int
    embedding: Union[list[float], str]


class EmbeddingUsage(_Model):
    """Tokens the inputs counted (``prompt_tokens`` = ``total_tokens``: embeddings produce no
    output tokens). Both 0 when the provider reports no count (docs/embeddings.md)."""

    prompt_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: "EmbeddingUsage") -> "EmbeddingUsage":
        if not isinstance(other, EmbeddingUsage):
            return NotImplemented
        total = EmbeddingUsage(prompt_tokens=self.prompt_tokens + other.prompt_tokens,
                               total_tokens=self.total_tokens + other.total_tokens)
        from .cost import combine_parts

        combine_parts(total, self, other)  # the cost of a split request: the sum of its parts
        return total

    @property
    def cost(self) -> Optional[float]:
        """The price in USD from the ``genai-prices`` package (extra ``[prices]``); ``None``
        when the model's price is unknown, or the provider reported no token count. Not part
        of ``model_dump()``."""
        from .cost import cost_of

        return cost_of(self)


def _new_usage() -> EmbeddingUsage:
    return EmbeddingUsage()


class CreateEmbeddingResponse(_Model):
    """What ``client.embeddings.create`` returns: one ``Embedding`` per input, in the order
    of the inputs (``data[i].index == i``), the model that answered, the usage, and which
    provider key served it."""

    object: Literal["list"] = "list"
    data: list[Embedding]
    model: str = ""
    usage: EmbeddingUsage = Field(default_factory=_new_usage)
    provider: str = ""


def embedding(index: int, vector: Union[list[float], str]) -> Embedding:
    """An ``Embedding`` built without re-validating ``vector`` (a translator checked it)."""
    return build_model(Embedding, {"object": "embedding", "index": index, "embedding": vector})


def floats_to_base64(values: Any) -> str:
    """A vector of floats as OpenAI's base64: its little-endian float32 bytes."""
    packed = array("f", values)
    if _SWAP:
        packed.byteswap()
    return base64.b64encode(packed.tobytes()).decode("ascii")


def base64_to_floats(text: str) -> list[float]:
    """OpenAI's base64 vector (little-endian float32) as a list of floats; a ``ValueError``
    for text that is not base64 of whole float32 values."""
    try:
        raw = base64.b64decode(text, validate=True)
    except binascii.Error as exc:
        raise ValueError(f"not base64: {exc}") from None
    if len(raw) % 4:
        raise ValueError(f"{len(raw)} bytes is no whole number of float32 values")
    values = array("f")
    values.frombytes(raw)
    if _SWAP:
        values.byteswap()
    return values.tolist()


def in_format(vector: Union[list[float], str], encoding_format: str) -> Union[list[float], str]:
    """``vector`` (floats, or base64 as a provider sent it) in ``encoding_format``."""
    if encoding_format == "base64":
        return vector if isinstance(vector, str) else floats_to_base64(vector)
    return base64_to_floats(vector) if isinstance(vector, str) else vector
