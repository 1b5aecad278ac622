"""Log probabilities as the OpenAI SDK's ``ChoiceLogprobs`` (core/types.py), read from a
reply: untrusted input, checked here (a wrong shape is an ``APIResponseValidationError``)."""

from __future__ import annotations

from typing import Any, Optional

from .errors import APIResponseValidationError
from .types import ChoiceLogprobs

__all__ = ["choice_logprobs"]


def choice_logprobs(raw: Any, provider: str, where: str = "choices[].logprobs"
                    ) -> Optional[ChoiceLogprobs]:
    """A choice's ``logprobs`` object in OpenAI's shape (``content`` / ``refusal``: lists of
    ``{token, logprob, bytes, top_logprobs}``) -> ``ChoiceLogprobs``; None when absent."""
    if raw is None:
        return None
    from pydantic import ValidationError

    try:
        return ChoiceLogprobs.model_validate(raw)
    except ValidationError as exc:
        # which field, never the values (they quote the reply)
        first = exc.errors(include_input=False, include_url=False)[0]
        path = ".".join(str(p) for p in first.get("loc", ()))
        raise APIResponseValidationError(
            f"{where} is not OpenAI's logprobs shape ({path or 'the object'}: "
            f"{first.get('msg', 'invalid')})", provider=provider) from None
