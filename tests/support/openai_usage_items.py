"""Thirty usage items of the OpenAI Python SDK, taken from its own repository
(github.com/openai/openai-python at commit e43b4224: README.md, helpers.md, examples/,
tests/api_resources/), for the items that concern chat completions, models, embeddings,
audio and the client's options. ``tests/client/test_openai_usage_items.py`` runs each with
only the import and the model strings changed (``openai`` -> ``aisuite_like`` in the
import lines, whose ``OpenAI`` / ``AsyncOpenAI`` are ``Client`` / ``AsyncClient``;
``"gpt-4o"`` -> ``"openai:gpt-4o"``) against
mocked HTTP, and docs/migration.md lists the ones that do not run and why.

Each item is ``code`` as the source writes it (a whole block, or the part of one that is a
single usage, the cut said in ``source``), and ``context``: what the source assumes around it
(a ``client = OpenAI()`` the README's fragments use), also in the SDK's terms.

``expected`` says what happens here: ``"runs"`` (unchanged, same behaviour), ``"refused"``
(a ``TypeError`` / ``AttributeError`` / ``ImportError`` by design or not yet built, or the
typed error named in ``refused_with``; ``why`` says which, and docs/migration.md has the
row).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

SDK = "openai/openai-python@e43b4224"

MATH_JSON = ('{"steps": [{"explanation": "Subtract 31 from both sides", "output": "8x = -29"}],'
             ' "final_answer": "x = -29/8"}')
QUERY_ARGS = ('{"table_name": "orders", "columns": ["id", "status"], "conditions": '
              '[{"column": "status", "operator": "=", "value": "fulfilled"}], '
              '"order_by": "asc"}')


@dataclass(frozen=True)
class Item:
    id: str
    source: str
    code: str
    expected: str = "runs"  # "runs" | "refused"
    why: str = ""
    context: str = ""
    #: what the output must show (the call's result reached the user)
    prints: str = ""
    #: the SDK exception the code raises on purpose (its own ``raise``)
    raises: Optional[str] = None
    #: the mocked chat reply: its content, a tool call's (name, arguments), its status
    content: str = "This is a test."
    tool_call: Optional[tuple[str, str]] = None
    status: int = 200
    #: ``"refused"`` with a documented error of ours (its name in ``aisuite_like``) rather
    #: than a ``TypeError`` / ``AttributeError`` / ``ImportError``
    refused_with: Optional[str] = None


ITEMS: list[Item] = [
    Item("readme-chat", "README.md, Usage (the Chat Completions block)", '''
from openai import OpenAI

client = OpenAI()

completion = client.chat.completions.create(
    model="gpt-5.5",
    messages=[
        {"role": "developer", "content": "Talk like a pirate."},
        {
            "role": "user",
            "content": "How do I check if a Python object is an instance of a class?",
        },
    ],
)

print(completion.choices[0].message.content)
''', prints="This is a test."),

    Item("readme-client-api-key", "README.md, Usage (the client of the Responses block)", '''
import os
from openai import OpenAI

client = OpenAI(
    # This is the default and can be omitted
    api_key=os.environ.get("OPENAI_API_KEY"),
)
''', expected="refused",
         why="Client(api_key=...) is a TypeError printing the provider_configs= line to write "
             "(one client serves every provider)"),

    Item("readme-async-aiohttp", "README.md, Async usage: With aiohttp", '''
import os
import asyncio
from openai import DefaultAioHttpClient
from openai import AsyncOpenAI


async def main() -> None:
    async with AsyncOpenAI(
        api_key=os.environ.get("OPENAI_API_KEY"),  # This is the default and can be omitted
        http_client=DefaultAioHttpClient(),
    ) as client:
        chat_completion = await client.chat.completions.create(
            messages=[
                {
                    "role": "user",
                    "content": "Say this is a test",
                }
            ],
            model="gpt-5.5",
        )


asyncio.run(main())
''', expected="refused",
         why="no DefaultAioHttpClient: async_transport='aiohttp' in the provider's config; and "
             "AsyncClient(api_key=, http_client=) is the provider_configs TypeError"),

    Item("demo-create", "examples/demo.py (the standard request)", '''
from openai import OpenAI

# gets API Key from environment variable OPENAI_API_KEY
client = OpenAI()

# Non-streaming:
print("----- standard request -----")
completion = client.chat.completions.create(
    model="gpt-5.5",
    messages=[
        {
            "role": "user",
            "content": "Say this is a test",
        },
    ],
)
print(completion.choices[0].message.content)
''', prints="This is a test."),

    Item("demo-stream", "examples/demo.py (the streaming request)", '''
print("----- streaming request -----")
stream = client.chat.completions.create(
    model="gpt-5.5",
    messages=[
        {
            "role": "user",
            "content": "How do I output all files in a directory using Python?",
        },
    ],
    stream=True,
)
for chunk in stream:
    if not chunk.choices:
        continue

    print(chunk.choices[0].delta.content, end="")
print()
''', context="from openai import OpenAI\nclient = OpenAI()\n", prints="This is a test."),

    Item("demo-raw-response", "examples/demo.py (the custom response headers test)", '''
print("----- custom response headers test -----")
response = client.chat.completions.with_raw_response.create(
    model="gpt-5.5",
    messages=[
        {
            "role": "user",
            "content": "Say this is a test",
        }
    ],
)
completion = response.parse()
print(response.request_id)
print(completion.choices[0].message.content)
''', context="from openai import OpenAI\nclient = OpenAI()\n", prints="req_123"),

    Item("async-demo-stream", "examples/async_demo.py", '''
import asyncio

from openai import AsyncOpenAI

# gets API Key from environment variable OPENAI_API_KEY
client = AsyncOpenAI()


async def main() -> None:
    stream = await client.chat.completions.create(
        model="gpt-5.5",
        messages=[
            {
                "role": "user",
                "content": "Say this is a test",
            },
        ],
        stream=True,
    )
    async for chunk in stream:
        if not chunk.choices:
            continue

        print(chunk.choices[0].delta.content, end="")
    print()


asyncio.run(main())
''', prints="This is a test."),

    Item("readme-raw-response", "README.md, Accessing raw response data (e.g. headers)", '''
from openai import OpenAI

client = OpenAI()
response = client.chat.completions.with_raw_response.create(
    messages=[{
        "role": "user",
        "content": "Say this is a test",
    }],
    model="gpt-5.5",
)
print(response.headers.get('X-My-Header'))

completion = response.parse()  # get the object that `chat.completions.create()` would have returned
print(completion)
''', prints="my-value"),

    Item("readme-streaming-response", "README.md, .with_streaming_response", '''
with client.chat.completions.with_streaming_response.create(
    messages=[
        {
            "role": "user",
            "content": "Say this is a test",
        }
    ],
    model="gpt-5.5",
) as response:
    print(response.headers.get("X-My-Header"))

    for line in response.iter_lines():
        print(line)
''', context="from openai import OpenAI\nclient = OpenAI()\n", prints="my-value"),

    Item("readme-retries-client", "README.md, Retries (the client-wide default)", '''
from openai import OpenAI

# Configure the default for all requests:
client = OpenAI(
    # default is 2
    max_retries=0,
)
'''),

    Item("readme-retries-per-request", "README.md, Retries (per request)", '''
# Or, configure per-request:
client.with_options(max_retries=5).chat.completions.create(
    messages=[
        {
            "role": "user",
            "content": "How can I get the name of the current day in JavaScript?",
        }
    ],
    model="gpt-5.5",
)
''', context="from openai import OpenAI\nclient = OpenAI()\n"),

    Item("readme-timeout-client", "README.md, Timeouts (the client-wide default)", '''
from openai import OpenAI

# Configure the default for all requests:
client = OpenAI(
    # 20 seconds (default is 10 minutes)
    timeout=20.0,
)
'''),

    Item("readme-timeout-granular", "README.md, Timeouts (an httpx2.Timeout)", '''
import httpx2
from openai import OpenAI

# More granular control:
client = OpenAI(
    timeout=httpx2.Timeout(60.0, read=5.0, write=10.0, connect=2.0),
)
'''),

    Item("readme-timeout-per-request", "README.md, Timeouts (per request)", '''
# Override per-request:
client.with_options(timeout=5.0).chat.completions.create(
    messages=[
        {
            "role": "user",
            "content": "How can I list all files in a directory using Python?",
        }
    ],
    model="gpt-5.5",
)
''', context="from openai import OpenAI\nclient = OpenAI()\n"),

    Item("readme-request-id-error", "README.md, Request IDs (a failed request)", '''
import openai

try:
    completion = await client.chat.completions.create(
        messages=[{"role": "user", "content": "Say this is a test"}], model="gpt-5.5"
    )
except openai.APIStatusError as exc:
    print(exc.request_id)  # req_123
    raise exc
''', context="from openai import AsyncOpenAI\nclient = AsyncOpenAI()\n",
         status=400, raises="APIStatusError", prints="req_123"),

    Item("readme-request-id-attribute", "README.md, Request IDs (_request_id; on a chat "
         "completion, as 'all object responses' have it)", '''
completion = client.chat.completions.create(
    messages=[{"role": "user", "content": "Say this is a test"}], model="gpt-5.5"
)
print(completion._request_id)  # req_123
''', context="from openai import OpenAI\nclient = OpenAI()\n", prints="req_123"),

    Item("readme-context-manager", "README.md, Managing HTTP resources", '''
from openai import OpenAI

with OpenAI() as client:
  # make requests here
  ...

# HTTP client is now closed
'''),

    Item("readme-to-json", "README.md, Using types (to_json(), to_dict()); examples/azure.py "
         "prints completion.to_json()", '''
completion = client.chat.completions.create(
    model="gpt-5.5",
    messages=[
        {
            "role": "user",
            "content": "How do I output all files in a directory using Python?",
        },
    ],
)
print(completion.to_json())
print(completion.to_dict()["choices"][0]["message"]["content"])
''', context="from openai import OpenAI\nclient = OpenAI()\n", prints='"content": "This is a test."'),

    Item("readme-model-extra", "README.md, Undocumented response properties", '''
response = client.chat.completions.create(
    model="gpt-5.5", messages=[{"role": "user", "content": "Say this is a test"}]
)
print(response.unknown_prop)
print(response.model_extra)
''', context="from openai import OpenAI\nclient = OpenAI()\n", prints="surprise"),

    Item("readme-http-client", "README.md, Configuring the HTTP client", '''
import httpx2
from openai import OpenAI, DefaultHttpx2Client

client = OpenAI(
    # Or use the `OPENAI_BASE_URL` env var
    base_url="http://my.test.server.example.com:8083/v1",
    http_client=DefaultHttpx2Client(
        proxy="http://my.test.proxy.example.com",
        transport=httpx2.HTTPTransport(local_address="0.0.0.0"),
    ),
)
''', expected="refused",
         why="no DefaultHttpx2Client (pass an httpx2.Client as http_client in the provider's "
             "config); Client(base_url=, http_client=) is the provider_configs TypeError"),

    Item("readme-azure", "README.md, Microsoft Azure OpenAI", '''
from openai import AzureOpenAI

# gets the API Key from environment variable AZURE_OPENAI_API_KEY
client = AzureOpenAI(
    # https://learn.microsoft.com/azure/ai-services/openai/reference#rest-api-versioning
    api_version="2023-07-01-preview",
    # https://learn.microsoft.com/azure/cognitive-services/openai/how-to/create-resource?pivots=web-portal#create-a-resource
    azure_endpoint="https://example-endpoint.openai.azure.com",
)
'''),

    Item("helpers-parse", "helpers.md, Auto-parsing response content with Pydantic models", '''
from typing import List
from pydantic import BaseModel
from openai import OpenAI

class Step(BaseModel):
    explanation: str
    output: str

class MathResponse(BaseModel):
    steps: List[Step]
    final_answer: str

client = OpenAI()
completion = client.chat.completions.parse(
    model="gpt-4o-2024-08-06",
    messages=[
        {"role": "system", "content": "You are a helpful math tutor."},
        {"role": "user", "content": "solve 8x + 31 = 2"},
    ],
    response_format=MathResponse,
)

message = completion.choices[0].message
if message.parsed:
    print(message.parsed.steps)
    print("answer: ", message.parsed.final_answer)
else:
    print(message.refusal)
''', content=MATH_JSON, prints="answer:  x = -29/8"),

    Item("helpers-parse-function-tool", "helpers.md, Auto-parsing function tool calls", '''
from enum import Enum
from typing import List, Union
from pydantic import BaseModel
import openai

class Table(str, Enum):
    orders = "orders"
    customers = "customers"
    products = "products"

class Column(str, Enum):
    id = "id"
    status = "status"
    expected_delivery_date = "expected_delivery_date"
    delivered_at = "delivered_at"
    shipped_at = "shipped_at"
    ordered_at = "ordered_at"
    canceled_at = "canceled_at"

class Operator(str, Enum):
    eq = "="
    gt = ">"
    lt = "<"
    le = "<="
    ge = ">="
    ne = "!="

class OrderBy(str, Enum):
    asc = "asc"
    desc = "desc"

class DynamicValue(BaseModel):
    column_name: str

class Condition(BaseModel):
    column: str
    operator: Operator
    value: Union[str, int, DynamicValue]

class Query(BaseModel):
    table_name: Table
    columns: List[Column]
    conditions: List[Condition]
    order_by: OrderBy

client = openai.OpenAI()
completion = client.chat.completions.parse(
    model="gpt-4o-2024-08-06",
    messages=[
        {
            "role": "system",
            "content": "You are a helpful assistant. The current date is August 6, 2024. You help users query for the data they are looking for by calling the query function.",
        },
        {
            "role": "user",
            "content": "look up all my orders in may of last year that were fulfilled but not delivered on time",
        },
    ],
    tools=[
        openai.pydantic_function_tool(Query),
    ],
)

tool_call = (completion.choices[0].message.tool_calls or [])[0]
print(tool_call.function)
assert isinstance(tool_call.function.parsed_arguments, Query)
print(tool_call.function.parsed_arguments.table_name)
''', tool_call=("Query", QUERY_ARGS), prints="orders"),

    Item("example-parsing-stream", "examples/parsing_stream.py (rich, which it prints the "
         "final completion with, is not installed here: the harness stands in print for "
         "rich.print)", '''
from typing import List

import rich
from pydantic import BaseModel

from openai import OpenAI


class Step(BaseModel):
    explanation: str
    output: str


class MathResponse(BaseModel):
    steps: List[Step]
    final_answer: str


client = OpenAI()

with client.chat.completions.stream(
    model="gpt-4o-2024-08-06",
    messages=[
        {"role": "system", "content": "You are a helpful math tutor."},
        {"role": "user", "content": "solve 8x + 31 = 2"},
    ],
    response_format=MathResponse,
) as stream:
    for event in stream:
        if event.type == "content.delta":
            print(event.delta, end="", flush=True)
        elif event.type == "content.done":
            print("\\n")
            if event.parsed is not None:
                print(f"answer: {event.parsed.final_answer}")
        elif event.type == "refusal.delta":
            print(event.delta, end="", flush=True)
        elif event.type == "refusal.done":
            print()

print("---------------")
rich.print(stream.get_final_completion())
''', content=MATH_JSON, prints="answer: x = -29/8"),

    Item("example-module-client", "examples/module_client.py", '''
import openai

# will default to `os.environ['OPENAI_API_KEY']` if not explicitly set
openai.api_key = "..."

# all client options can be configured just like the `OpenAI` instantiation counterpart
openai.base_url = "https://..."
openai.default_headers = {"x-foo": "true"}

# all API calls work in the exact same fashion as well
stream = openai.chat.completions.create(
    model="gpt-4",
    messages=[
        {
            "role": "user",
            "content": "How do I output all files in a directory using Python?",
        },
    ],
    stream=True,
)

for chunk in stream:
    print(chunk.choices[0].delta.content or "", end="", flush=True)

print()
''', prints="This is a test."),

    Item("api-models-list", "tests/api_resources/test_models.py::test_method_list, iterated "
         "as README.md, Pagination iterates a list", '''
model = client.models.list()
for m in model:
    print(m.id)
''', context="from openai import OpenAI\nclient = OpenAI()\n", prints="gpt-4o-mini"),

    Item("api-models-retrieve", "tests/api_resources/test_models.py::test_method_retrieve", '''
model = client.models.retrieve(
    "gpt-4o-mini",
)
print(model.id, model.owned_by)
''', context="from openai import OpenAI\nclient = OpenAI()\n", prints="system"),

    Item("api-models-list-async", "tests/api_resources/test_models.py::"
         "TestAsyncModels::test_method_list", '''
model = await async_client.models.list()
print([m.id for m in model.data])
''', context="from openai import AsyncOpenAI\nasync_client = AsyncOpenAI()\n",
         prints="gpt-4o-mini"),

    Item("api-embeddings-create", "tests/api_resources/test_embeddings.py::"
         "test_method_create_with_all_params", '''
embedding = client.embeddings.create(
    input="The quick brown fox jumped over the lazy dog",
    model="text-embedding-3-small",
    dimensions=1,
    encoding_format="float",
    user="user-1234",
)
print(embedding.data[0].embedding)
''', context="from openai import OpenAI\nclient = OpenAI()\n",
         prints="[0.25]"),

    Item("api-audio-transcriptions-create", "tests/api_resources/audio/test_transcriptions.py::"
         "test_method_create_overload_1 (examples/audio.py transcribes a file the same way)", '''
transcription = client.audio.transcriptions.create(
    file=b"Example data",
    model="gpt-4o-transcribe",
)
print(transcription.text)
''', context="from openai import OpenAI\nclient = OpenAI()\n", expected="refused",
         refused_with="UnsupportedParameterError",
         why="b'Example data' is not audio: refused before upload (docs/audio.md, The file)"),
]

assert len(ITEMS) == 30 and len({item.id for item in ITEMS}) == 30
