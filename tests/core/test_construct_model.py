"""``core.types.construct_model`` builds what pydantic's ``model_construct`` builds (the
anthropic and google reply readers use it instead): for every model class of core.types,
with no values, some fields, an extra name, and both."""

import inspect

import pytest
from pydantic import BaseModel

from aisuite_like.core import types as T

CLASSES = [cls for cls in vars(T).values()
           if inspect.isclass(cls) and issubclass(cls, BaseModel) and cls.__module__ == T.__name__
           and not cls.__pydantic_generic_metadata__["parameters"]]


def _cases(cls: type[BaseModel]) -> list[dict[str, object]]:
    names = list(cls.model_fields)
    return [{}, {n: None for n in names[:2]}, {"not_a_field": 1},
            {**{n: 1 for n in names[:1]}, "not_a_field": 2}, {n: [n] for n in names}]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_construct_model_is_model_construct(cls: type[BaseModel]) -> None:
    for values in _cases(cls):
        want, got = cls.model_construct(**values), T.construct_model(cls, **values)
        assert type(got) is cls
        assert list(got.__dict__.items()) == list(want.__dict__.items()), values
        assert got.model_fields_set == want.model_fields_set, values
        assert got.__pydantic_extra__ == want.__pydantic_extra__, values
        assert got.__pydantic_private__ == want.__pydantic_private__
        assert (got.model_dump(exclude_unset=True, warnings=False)
                == want.model_dump(exclude_unset=True, warnings=False))
        for name, value in got.__dict__.items():  # a mutable default is the instance's own
            if isinstance(value, (list, dict, set)) and name not in values:
                assert value is not want.__dict__[name]
                assert value is not T.construct_model(cls, **values).__dict__[name]


def test_most_classes_take_the_fast_path() -> None:
    for cls in CLASSES:
        T.construct_model(cls)
    fast = [cls for cls in CLASSES if T._PLANS.get(cls) is not None]
    assert T.ChatCompletionResponse in fast and T.Message in fast and T.Usage in fast
