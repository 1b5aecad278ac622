"""Durable tool-loop runs and agent runs on DBOS (docs/durable.md; extra ``[dbos]``).

    from aisuite_like import durable
    durable.configure(database_url=None)        # a SQLite file by default; "postgresql://..."
    agent = durable.DurableAgent(ai.Agent(...))  # at import time, before launch
    durable.launch()                            # starts DBOS; unfinished runs resume here
    resp = durable.create(client, model=..., messages=..., tools=[...], max_turns=5)
    result = agent.run_sync("input")

A run is a DBOS workflow; it drives the one tool-loop engine (loop/engine.py) through
``loop.drivers.DriverSteps`` whose model call and tool call are DBOS steps, so a process that dies
mid-run resumes, in the next process that launches, from its last completed step. Nothing
here decides anything about the loop. See docs/durable.md.

Importing this module does not import dbos; the first call that needs it does (a missing
install raises ``ai.MissingDependencyError`` naming the extra).
"""

from __future__ import annotations

import importlib
import logging
import os
import re
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from ..core.checks import check_max_turns
from ..core.errors import AisuiteLikeError, MissingDependencyError
from ..loop.drivers import DriverSteps
from ..loop.engine import ToolCallRun
from ..loop.execute import execute_scoped_async, execute_scoped_sync

if TYPE_CHECKING:
    from ..agents.agent import Agent
    from ..agents.run import RunResult
    from ..client.facade import Client
    from ..core.types import ChatCompletionResponse, Message, ToolEvent, Usage
    from ..providers.base import ChatRequest, Provider

__all__ = [
    "configure", "launch", "shutdown", "create", "submit", "result", "DurableAgent",
    "register_tools",
    "DurableRunResult", "approve", "reject", "pending", "recover", "NotDurableError",
    "QUEUE_NAME",
]

#: The DBOS queue ``submit`` puts runs on; every launched process takes runs from it.
QUEUE_NAME = "aisuite_like_durable"
#: The file of the default system database (in the working directory).
DEFAULT_SQLITE_FILE = "aisuite_like_durable.sqlite"
_APP_NAME = "aisuite_like"  # the DBOS application name of durable runs
_APPROVAL_TOPIC = "aisuite_like.approval"
_PENDING_EVENT = "aisuite_like.pending"
# Keyword names that carry credentials: never recorded in the database (max_tokens or
# prompt_cache_key are ordinary request parameters and pass).
_SECRET_NAMES = frozenset({"api_key", "key", "token", "secret", "password", "auth",
                           "authorization", "credentials", "headers"})
_SECRET_SUFFIXES = ("api_key", "_secret", "_password", "_credentials", "_headers",
                    "access_token", "auth_token", "bearer_token", "session_token",
                    "secret_access_key", "secret_key")


class NotDurableError(AisuiteLikeError, TypeError):
    """Something a durable run would have to record cannot be recorded or found again by a
    fresh process (a lambda or closure as a tool, a credential in the arguments, a streamed
    run, an agent not registered before launch). Raised before anything starts."""


@dataclass
class _Settings:
    database_url: Optional[str] = None
    client: Optional["Client"] = None
    executor_id: Optional[str] = None
    application_version: Optional[str] = None
    dbos_config: dict[str, Any] = field(default_factory=dict)


_SETTINGS = _Settings()
_LOCK = threading.Lock()
_AGENTS: dict[str, "DurableAgent"] = {}
#: Import paths of the tools this process declared (``create`` / ``submit`` calls,
#: ``DurableAgent``s, ``register_tools``): the only ones a run read from the database imports.
_DECLARED: set[str] = set()
_LIVE_CLIENTS: dict[str, Any] = {}  # run id -> the client its caller passed (this process)
_DEFAULT_CLIENT: list[Any] = []
_WORKFLOWS: dict[str, Any] = {}  # name -> the registered DBOS workflow function
_LAUNCHED: list[bool] = [False]
_DBOS_CLIENT: list[Any] = []  # a DBOSClient, in a process that did not launch
_CREATE, _AGENT = "create", "agent"
_WORKFLOW_NAMES = {_CREATE: "aisuite_like.durable.create", _AGENT: "aisuite_like.durable.agent"}
_POLL_S = 0.05  # how often a wait for a run's result looks at the database


def _dbos() -> Any:
    """The ``DBOS`` class, imported on first need."""
    try:
        from dbos import DBOS
    except ImportError as exc:
        raise MissingDependencyError(
            "aisuite_like.durable needs the DBOS library: pip install 'aisuite-like[dbos]' "
            f"({exc})") from None
    if not _QUIET[0]:
        logging.getLogger("dbos").addFilter(_ReusedRunIdFilter())
        _QUIET[0] = True
    return DBOS


_QUEUE_WARNING = re.compile(r"Workflow already exists in queue: (.*), but the provided queue "
                            r"name is: (.*)\. The queue is not updated\.")
_QUIET = [False]


class _ReusedRunIdFilter(logging.Filter):
    """Drops the warning DBOS logs when a run id is started again, once on the durable queue
    (``submit``, ``start(queue=True)``) and once directly (``create``, ``run_sync``): giving a
    run id again is how a run is made idempotent (docs/durable.md), and the recorded run is
    returned either way. The warning stays for every other queue."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not (isinstance(record.msg, str) and record.msg.startswith("Workflow already")):
            return True
        found = _QUEUE_WARNING.fullmatch(record.getMessage())
        return not (found and sorted(found.groups()) == sorted(("None", QUEUE_NAME)))


# --- configuration and lifecycle ----------------------------------------------------------


def configure(database_url: Optional[str] = None, *, client: Optional["Client"] = None,
              executor_id: Optional[str] = None, application_version: Optional[str] = None,
              dbos_config: Optional[Mapping[str, Any]] = None) -> None:
    """Set up durable runs (before ``launch``). ``database_url``: DBOS's system database,
    ``None`` for the SQLite file ``aisuite_like_durable.sqlite`` in the working directory, or
    ``"postgresql://..."`` to share runs between processes and machines. ``client``: the client
    runs use when no client was passed to them in this process (recovered runs, queued runs);
    default a ``Client()`` from the environment. ``executor_id``: this process's DBOS executor
    id (give each worker a stable, distinct one with Postgres). ``dbos_config``: more DBOS
    settings, passed as they are."""
    if _LAUNCHED[0]:
        raise RuntimeError("durable.configure() must be called before durable.launch()")
    if database_url is not None and not isinstance(database_url, str):
        raise TypeError(f"database_url must be a str or None, got {type(database_url).__name__}")
    _SETTINGS.database_url = database_url
    _SETTINGS.client = client
    _SETTINGS.executor_id = executor_id
    _SETTINGS.application_version = application_version
    _SETTINGS.dbos_config = dict(dbos_config or {})


def _database_url() -> str:
    if _SETTINGS.database_url is not None:
        return _SETTINGS.database_url
    return "sqlite:///" + os.path.abspath(DEFAULT_SQLITE_FILE)


def launch() -> None:
    """Start DBOS (creating it from ``configure``'s settings unless the program already created
    its own ``DBOS(config=...)``) and resume the runs this executor left unfinished. Register
    every ``DurableAgent`` before this."""
    DBOS = _dbos()
    _register()
    import dbos._dbos as dbos_module

    if dbos_module._dbos_global_instance is None:
        config: dict[str, Any] = {"name": _APP_NAME, "system_database_url": _database_url(),
                                  "log_level": "WARNING"}
        if _SETTINGS.executor_id is not None:
            config["executor_id"] = _SETTINGS.executor_id
        if _SETTINGS.application_version is not None:
            config["application_version"] = _SETTINGS.application_version
        config.update(_SETTINGS.dbos_config)
        DBOS(config=config)
    DBOS.launch()
    # The queue lives in the database; registered after launch (DBOS's rule).
    _WORKFLOWS["queue"] = DBOS.register_queue(QUEUE_NAME, polling_interval_sec=0.1)
    _LAUNCHED[0] = True


def shutdown() -> None:
    """Stop DBOS in this process (unfinished runs resume at the next launch)."""
    if _LAUNCHED[0]:
        _dbos().destroy()
        _LAUNCHED[0] = False


def recover(executor_ids: Sequence[str]) -> list[str]:
    """Resume the unfinished runs of other executors (processes known dead) on any launched
    process sharing the database; returns their run ids. DBOS resumes a process's own runs
    when a process with the same executor id launches; use this when a worker will not come
    back under its id."""
    DBOS = _require_launched()
    if isinstance(executor_ids, str):
        executor_ids = [executor_ids]
    handles = DBOS._recover_pending_workflows(list(executor_ids))
    return [h.get_workflow_id() for h in handles]


# --- steps: the engine's I/O, recorded ----------------------------------------------------


def _tool_outcome(call: ToolCallRun) -> dict[str, Any]:
    exc = call.exception
    return {"result": call.result, "is_error": call.is_error, "duration_s": call.duration_s,
            "truncated": call.truncated,
            "exception": None if exc is None else f"{type(exc).__name__}: {exc}"}


def _apply_outcome(call: ToolCallRun, outcome: Mapping[str, Any]) -> None:
    """A recorded outcome (or the one just produced) onto ``call``: what the engine reads."""
    from ..loop.engine import DONE

    call.result = outcome["result"]
    call.is_error = outcome["is_error"]
    call.duration_s = outcome["duration_s"]
    call.truncated = outcome["truncated"]
    if call.exception is None and outcome["exception"] is not None:
        call.exception = RuntimeError(outcome["exception"])  # replayed: the original is gone
    call.state = DONE


def _run_tool(call: ToolCallRun) -> dict[str, Any]:
    # The call's scope (the hooks' tool_context: under instrument(), its span) is entered
    # inside the step: a replayed call was not executed.
    execute_scoped_sync(call)
    return _tool_outcome(call)


async def _arun_tool(call: ToolCallRun) -> dict[str, Any]:
    await execute_scoped_async(call)
    return _tool_outcome(call)


async def _acomplete(provider: "Provider", request: "ChatRequest") -> "ChatCompletionResponse":
    # A coroutine function, as DBOS needs to run an async step: a provider's ``acomplete``
    # may be a plain function that hands out the retry layer's coroutine.
    return await provider.acomplete(request)


class _DurableSteps(DriverSteps):
    """Each model call and each tool call is a DBOS step of the running workflow. A tool
    call's step id is reserved in call order before the batch runs (``bind_tools``), so the
    calls of one response may run concurrently and still replay in a fixed order."""

    def __init__(self) -> None:
        self._reserved: dict[str, Any] = {}

    def complete(self, provider: "Provider", request: "ChatRequest") -> "ChatCompletionResponse":
        response: ChatCompletionResponse = _dbos().run_step(
            {"name": "model_call"}, provider.complete, request)
        return response

    async def acomplete(self, provider: "Provider", request: "ChatRequest"
                        ) -> "ChatCompletionResponse":
        response: ChatCompletionResponse = await _dbos().run_step_async(
            {"name": "model_call"}, _acomplete, provider, request)
        return response

    def bind_tools(self, calls: list[ToolCallRun]) -> None:
        DBOS = _dbos()
        self._reserved = {call.call_id: DBOS.reserve_step() for call in calls}

    def execute(self, call: ToolCallRun) -> None:
        reservation = self._reserved.pop(call.call_id)
        _apply_outcome(call, reservation.run({"name": f"tool:{call.name}"}, _run_tool, call))

    async def aexecute(self, call: ToolCallRun) -> None:
        reservation = self._reserved.pop(call.call_id)
        _apply_outcome(call, await reservation.run_async({"name": f"tool:{call.name}"},
                                                         _arun_tool, call))


# --- what a run records: tools by import path, no credentials ------------------------------


def _tool_ref(tool: Any) -> str:
    """``module:qualname`` of a module-level callable (or of the function of an
    ``ai.Tool`` defined at module level), checked by importing it back."""
    fn = getattr(tool, "fn", tool)
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    name = getattr(tool, "name", None) or getattr(fn, "__name__", repr(tool))
    if not callable(fn) or not module or not qualname or "<" in qualname:
        raise NotDurableError(
            f"tool {name!r} cannot be recorded for a durable run: a recovered run imports its "
            "tools again in a fresh process, so each must be a function (or ai.Tool) defined "
            "at module level, not a lambda, a closure or a local function")
    if module == "__main__":
        raise NotDurableError(
            f"tool {name!r} is defined in __main__ (the script being run), which another "
            "process (a worker, or a recovery after a crash) cannot import by that name: move "
            "it to a module of its own and import it from there")
    ref = f"{module}:{qualname}"
    found = _resolve_tool(ref, check=False)
    if found is None or not _same_tool(found, tool):
        raise NotDurableError(
            f"tool {name!r} is not what {ref!r} imports to; a durable run's tools must be "
            "importable module-level callables")
    return ref


def _declare(tool: Any) -> str:
    """``tool``'s import path (``_tool_ref``), now declared in this process."""
    ref = _tool_ref(tool)
    with _LOCK:
        _DECLARED.add(ref)
    return ref


def register_tools(*tools: Any) -> None:
    """Declare tools that durable ``create`` / ``submit`` runs may use in this process. A run
    read back from the database (recovered after a crash, or taken from the queue) imports
    only tools this process declared: by this call, by a ``create`` / ``submit`` call, or as
    tools of a ``DurableAgent``. Call it at import time, before ``launch``, in every worker
    that runs or recovers such runs. Each tool must be an importable module-level function or
    ``ai.Tool`` (``NotDurableError`` otherwise)."""
    for tool in tools:
        _declare(tool)


def _declared_tool(ref: Any) -> Any:
    """The tool a recorded run names, imported only if this process declared it: a row
    written by someone else must not make this process import and call any function."""
    if not isinstance(ref, str) or ref not in _DECLARED:
        raise NotDurableError(
            f"the durable run uses tool {ref!r}, which this process did not declare, so it is "
            "not imported: declare the tools a worker may run with durable.register_tools(...) "
            "(or as tools of a DurableAgent) at import time, before durable.launch(). A tool "
            "no process of yours declares means the run was not written by your program.")
    return _resolve_tool(ref)


def _same_tool(found: Any, tool: Any) -> bool:
    return found is tool or (getattr(found, "fn", found) is getattr(tool, "fn", tool))


def _resolve_tool(ref: str, check: bool = True) -> Any:
    module_name, _, qualname = ref.partition(":")
    try:
        value: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            value = getattr(value, part)
    except (ImportError, AttributeError) as exc:
        if not check:
            return None
        raise NotDurableError(f"the durable run's tool {ref!r} cannot be imported in this "
                              f"process: {exc}") from None
    return value


def _check_recordable(kwargs: Mapping[str, Any]) -> None:
    for name in kwargs:
        lowered = name.lower()
        if lowered in _SECRET_NAMES or lowered.endswith(_SECRET_SUFFIXES):
            raise NotDurableError(
                f"{name!r} may carry a credential, and a durable run records its arguments in "
                "the database: configure credentials on the client (durable.configure(client="
                "...) or the environment) instead")
    if kwargs.get("stream"):
        raise NotDurableError("a durable run cannot stream: its model calls are recorded "
                              "whole, as steps; drop stream=True")
    if kwargs.get("tool_policy") is not None:
        raise NotDurableError("tool_policy is not supported on durable.create; put the policy "
                              "on an ai.Agent and run it with durable.DurableAgent")
    if kwargs.get("budget") is not None:
        raise NotDurableError("budget= is a live ledger, not an argument a durable run can "
                              "record: put the budget on the run's client "
                              "(durable.configure(client=ai.Client(budget=...))), which "
                              "admits each of its model calls (docs/budgets.md)")
    if kwargs.get("context") is not None:
        raise NotDurableError("context= is not supported on durable.create yet: a recovered "
                              "run must send what the first one sent (docs/status.md)")


def _client_for(run_id: Optional[str], default: Any = None) -> Any:
    """The client of a run: the one its caller passed in this process, else the agent's or
    ``configure(client=...)``'s, else one ``Client()`` from the environment."""
    client = _LIVE_CLIENTS.get(run_id or "")
    if client is not None:
        return client
    if default is not None:
        return default
    if _SETTINGS.client is not None:
        return _SETTINGS.client
    with _LOCK:
        if not _DEFAULT_CLIENT:
            from ..client.facade import Client

            _DEFAULT_CLIENT.append(Client())
        return _DEFAULT_CLIENT[0]


# --- the workflows ---------------------------------------------------------------------------


def _create_workflow(spec: dict[str, Any]) -> "ChatCompletionResponse":
    """A ``max_turns`` run: the client's own request preparation, the engine, the sync driver
    with durable steps."""
    from ..client.prepare import prepare_call
    from ..core import checks as _request_checks
    from ..loop.drivers import drive_sync
    from ..loop.engine import ToolLoop

    client = _client_for(_dbos().workflow_id)
    tools = [_declared_tool(ref) for ref in spec["tools"]]
    kwargs = dict(spec["kwargs"], tools=tools or None, max_turns=spec["max_turns"])
    call = prepare_call(client, spec["model"], spec["messages"], kwargs)
    _request_checks.check_not_empty(call.request.messages)
    assert call.max_turns is not None  # given in kwargs
    engine = ToolLoop(call.request, call.tools, max_turns=call.max_turns,
                      **call.runner_options)
    for _ in drive_sync(engine, call.provider, steps=_DurableSteps()):
        pass
    return engine.final_response()


async def _agent_workflow(spec: dict[str, Any]) -> "DurableRunResult":
    """An agent run with durable steps; a pause for approval waits for ``approve`` /
    ``reject`` messages (DBOS recv), then the run resumes in the same workflow."""
    from ..agents.run import AgentRun

    DBOS = _dbos()
    run_id = DBOS.workflow_id
    durable_agent = _AGENTS.get(spec["agent"])
    if durable_agent is None:
        raise NotDurableError(f"no DurableAgent named {spec['agent']!r} in this process: "
                              "create it at import time, before durable.launch()")
    client = _client_for(run_id, durable_agent.client)
    steps = _DurableSteps()
    state: Any = spec["input"]
    while True:
        run = AgentRun(durable_agent.agent, state, client=client, session=None,
                        max_turns=spec["max_turns"], limits=None, streamed=False)
        run.steps = steps
        outcome = await run.execute()
        if outcome.status != "interrupted":
            break
        state = outcome.to_state()
        await _await_decisions(DBOS, state)
    await DBOS.set_event_async(_PENDING_EVENT, [])
    return DurableRunResult._from(run_id, outcome)


async def _await_decisions(DBOS: Any, state: Any) -> None:
    """Publish the calls that wait (``pending``), then apply decisions as they arrive until
    none waits. Each message received is recorded, so a recovered run gets the same ones."""
    while True:
        waiting = state.get_interruptions()
        if not waiting:
            return
        await DBOS.set_event_async(_PENDING_EVENT, [
            {"call_id": item.call_id, "tool_name": item.name, "arguments": item.arguments}
            for item in waiting])
        message = await DBOS.recv_async(_APPROVAL_TOPIC, timeout_seconds=86_400)
        if message is None:
            continue  # a day without a decision: keep waiting
        ids = [item.call_id for item in waiting]
        targets = ids if message["call_id"] is None else [message["call_id"]]
        for call_id in targets:
            if call_id not in ids:
                continue  # a decision for a call that no longer waits: nothing to do
            if message["approved"]:
                state.approve(call_id, always_approve=message["always"])
            else:
                state.reject(call_id, always_reject=message["always"],
                             rejection_message=message["message"])


def _register() -> None:
    """Register the workflows with DBOS (once, before launch)."""
    with _LOCK:
        if _WORKFLOWS:
            return
        DBOS = _dbos()
        _WORKFLOWS[_CREATE] = DBOS.workflow(name=_WORKFLOW_NAMES[_CREATE])(_create_workflow)
        _WORKFLOWS[_AGENT] = DBOS.workflow(name=_WORKFLOW_NAMES[_AGENT])(_agent_workflow)


def _is_launched() -> bool:
    return _LAUNCHED[0]


def _require_launched() -> Any:
    DBOS = _dbos()
    if not _is_launched():
        raise RuntimeError("call durable.launch() first (it starts DBOS, or the program's own "
                           "DBOS instance, and resumes unfinished runs)")
    return DBOS


# --- starting runs -------------------------------------------------------------------------


def _create_spec(model: str, messages: Any, tools: Optional[Iterable[Any]], max_turns: int,
                 kwargs: dict[str, Any]) -> dict[str, Any]:
    from ..client.base import normalize_messages

    if not isinstance(model, str):
        raise TypeError(f"model must be a 'provider:model' str, got {type(model).__name__}")
    check_max_turns(max_turns)
    _check_recordable(kwargs)
    refs = [_declare(t) for t in (tools or ())]
    return {"model": model, "messages": [dict(m) for m in normalize_messages(messages)],
            "tools": refs, "max_turns": max_turns, "kwargs": dict(kwargs)}


def _new_run_id(run_id: Optional[str]) -> str:
    if run_id is None:
        return f"run-{uuid.uuid4().hex}"
    if not isinstance(run_id, str) or not run_id:
        raise TypeError(f"run_id must be a non-empty str or None, got {run_id!r}")
    return run_id


def create(client: Optional["Client"] = None, *, model: str, messages: Any,
           tools: Optional[Iterable[Any]] = None, max_turns: int,
           run_id: Optional[str] = None, **kwargs: Any) -> "ChatCompletionResponse":
    """A durable ``client.chat.completions.create(..., max_turns=...)``: each model call and
    each tool call is a recorded step. ``run_id`` makes it idempotent: a run id that already
    finished returns its recorded response without any new call. ``client``: used for this
    run in this process (None: ``configure(client=...)`` or ``Client()``); a recovering
    process uses its own. Inside a DBOS workflow this is a child workflow."""
    spec = _create_spec(model, messages, tools, max_turns, kwargs)
    DBOS = _require_launched()
    from dbos import SetWorkflowID

    run_id = _new_run_id(run_id)
    if client is not None:
        _LIVE_CLIENTS[run_id] = client
    try:
        with SetWorkflowID(run_id):
            handle = DBOS.start_workflow(_WORKFLOWS[_CREATE], spec)
        response: ChatCompletionResponse = handle.get_result(polling_interval_sec=_POLL_S)
        return response
    finally:
        _LIVE_CLIENTS.pop(run_id, None)


def submit(*, model: str, messages: Any, tools: Optional[Iterable[Any]] = None,
           max_turns: int, run_id: Optional[str] = None, **kwargs: Any) -> str:
    """Put a durable ``max_turns`` run on the durable queue; any launched process sharing the
    database runs it with its own client. Returns the run id (``result(run_id)`` waits). Works
    without ``launch`` (a producer that runs nothing itself)."""
    spec = _create_spec(model, messages, tools, max_turns, kwargs)
    return _enqueue(_CREATE, spec, _new_run_id(run_id))


def _enqueue(workflow: str, spec: dict[str, Any], run_id: str) -> str:
    """Put a run on the durable queue: through DBOS in a launched process, else through a
    ``DBOSClient`` (a producer that runs no workflows itself)."""
    api = _api()
    if _is_launched():
        from dbos import SetWorkflowID

        with SetWorkflowID(run_id):
            _WORKFLOWS["queue"].enqueue(_WORKFLOWS[workflow], spec)
    else:
        api.enqueue({"queue_name": QUEUE_NAME, "workflow_name": _WORKFLOW_NAMES[workflow],
                     "workflow_id": run_id}, spec)
    return run_id


def _api() -> Any:
    """What reads and messages runs: ``DBOS`` in a launched process, else a ``DBOSClient`` on
    the configured database (a process that only approves or reads results need not
    launch, and then never runs or recovers runs)."""
    DBOS = _dbos()
    if _is_launched():
        return DBOS
    with _LOCK:
        if not _DBOS_CLIENT:
            from dbos import DBOSClient

            _DBOS_CLIENT.append(DBOSClient(
                system_database_url=_database_url(),
                application_name=_SETTINGS.dbos_config.get("name", _APP_NAME)))
        return _DBOS_CLIENT[0]


def result(run_id: str) -> Any:
    """Wait for the run ``run_id`` (started by any process on this database) and return its
    result: a ``ChatCompletionResponse`` (``create`` / ``submit``) or a ``DurableRunResult``
    (an agent run). A failed run raises its error. Works without ``launch``."""
    return _api().retrieve_workflow(run_id).get_result(polling_interval_sec=_POLL_S)


# --- approvals -------------------------------------------------------------------------------


def _decide(run_id: str, call_id: Optional[str], approved: bool, always: bool,
            message: Optional[str]) -> None:
    waiting = [item["call_id"] for item in pending(run_id)]
    if not waiting or (call_id is not None and call_id not in waiting):
        what = "no call" if call_id is None else f"no call {call_id!r}"
        raise ValueError(f"{what} of run {run_id!r} waits for approval now; waiting: "
                         f"{waiting} (see durable.pending)")
    _api().send(run_id, {"call_id": call_id, "approved": approved, "always": always,
                       "message": message}, topic=_APPROVAL_TOPIC)


def approve(run_id: str, call_id: Optional[str] = None, *, always: bool = False) -> None:
    """Approve the paused call ``call_id`` of agent run ``run_id`` (None: every call waiting
    now), from any process on the database; ``always=True`` approves every later call of the
    same tool in the run."""
    _decide(run_id, call_id, True, always, None)


def reject(run_id: str, call_id: Optional[str] = None, *, always: bool = False,
           message: Optional[str] = None) -> None:
    """Reject the paused call ``call_id`` (None: every call waiting now); the model receives
    ``Error: <message>``."""
    _decide(run_id, call_id, False, always, message)


def pending(run_id: str, *, timeout: float = 0.0) -> list[dict[str, Any]]:
    """The calls of agent run ``run_id`` waiting for a person (``call_id``, ``tool_name``,
    ``arguments``); ``timeout``: wait this long for the run to publish them."""
    value = _api().get_event(run_id, _PENDING_EVENT, timeout_seconds=timeout)
    return list(value or [])


# --- agents ----------------------------------------------------------------------------------


@dataclass
class DurableRunResult:
    """The recorded outcome of a durable agent run (what any process can read back with
    ``durable.result(run_id)``): the fields of ``ai.RunResult`` that are data."""

    run_id: str
    status: str
    final_output: Any
    limit: Optional[str]
    last_agent: str
    messages: list["Message"] = field(repr=False)
    new_messages: list["Message"] = field(repr=False)
    usage: Optional["Usage"] = field(repr=False)
    tool_events: list["ToolEvent"] = field(repr=False)

    @classmethod
    def _from(cls, run_id: str, run: "RunResult") -> "DurableRunResult":
        return cls(run_id=run_id, status=run.status, final_output=run.final_output,
                   limit=run.limit, last_agent=run.last_agent.name,
                   messages=list(run.messages), new_messages=list(run.new_messages),
                   usage=run.usage, tool_events=list(run.tool_events))


class DurableAgent:
    """An ``ai.Agent`` whose runs are durable. Create it at import time (module level), before
    ``durable.launch()``, in every process that may run or recover its runs: a run records the
    agent's name, and a recovering process finds the agent by it. ``client``: the client its
    runs use (None: ``configure(client=...)`` or ``Client()`` from the environment)."""

    def __init__(self, agent: "Agent", client: Optional[Any] = None) -> None:
        from ..agents.agent import Agent

        if not isinstance(agent, Agent):
            raise TypeError(f"DurableAgent needs an ai.Agent, got {type(agent).__name__}")
        self.agent: Agent = agent
        self.client: Optional[Any] = client
        tools = agent.tools
        # Agent runs find their tools on the agent; create runs of this process may use the
        # importable ones too.
        for tool in (tools,) if callable(tools) else tuple(tools or ()):
            try:
                _declare(tool)
            except NotDurableError:
                pass
        with _LOCK:
            known = _AGENTS.get(agent.name)
            if known is not None and known.agent is not agent:
                raise ValueError(f"a DurableAgent named {agent.name!r} exists already: durable "
                                 "runs find their agent by name, so names must be unique")
            _AGENTS[agent.name] = self

    def __repr__(self) -> str:
        return f"DurableAgent({self.agent.name!r})"

    def _spec(self, input: Any, max_turns: Optional[int]) -> dict[str, Any]:
        from ..agents.run import run_input_messages

        if max_turns is not None:
            check_max_turns(max_turns)
        messages = run_input_messages(input)
        if not messages:
            raise ValueError("the run has no input: give a prompt or messages")
        return {"agent": self.agent.name, "input": messages, "max_turns": max_turns}

    def start(self, input: Any, *, run_id: Optional[str] = None,
              max_turns: Optional[int] = None, queue: bool = False) -> str:
        """Start a run without waiting (``queue=True``: on the durable queue, for any worker);
        returns its run id."""
        spec = self._spec(input, max_turns)
        run_id = _new_run_id(run_id)
        if queue:
            return _enqueue(_AGENT, spec, run_id)
        DBOS = _require_launched()
        from dbos import SetWorkflowID

        with SetWorkflowID(run_id):
            DBOS.start_workflow(_WORKFLOWS[_AGENT], spec)
        return run_id

    def run_sync(self, input: Any, *, run_id: Optional[str] = None,
                 max_turns: Optional[int] = None) -> DurableRunResult:
        """Run the agent durably and wait for the result (a run paused for approval waits
        for ``durable.approve`` / ``reject`` from any process). ``run_id`` makes it
        idempotent."""
        run_id = self.start(input, run_id=run_id, max_turns=max_turns)
        outcome: DurableRunResult = result(run_id)
        return outcome

    async def run(self, input: Any, *, run_id: Optional[str] = None,
                  max_turns: Optional[int] = None) -> DurableRunResult:
        """``run_sync`` for async code."""
        spec = self._spec(input, max_turns)
        DBOS = _require_launched()
        from dbos import SetWorkflowID

        with SetWorkflowID(_new_run_id(run_id)):
            handle = await DBOS.start_workflow_async(_WORKFLOWS[_AGENT], spec)
        outcome: DurableRunResult = await handle.get_result(polling_interval_sec=_POLL_S)
        return outcome

