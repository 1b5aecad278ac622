"""A worker process for the durable-run tests (not a test module).

    python support/durable_worker.py MODE DATABASE_URL RUN_ID [EXECUTOR_ID]

MODE: ``create`` (a durable max_turns run; ``parallel`` the same), ``agent`` (a DurableAgent run;
``agent-async`` through ``await agent.run``), ``resume`` (only
launch, which resumes this executor's unfinished runs, then wait for RUN_ID), ``child`` (both
inside a DBOS workflow of the program's own), ``approval-run`` (an agent run that pauses for
approval; prints PENDING when it waits), ``reject-run`` (the same, rejected), ``approve`` (no launch: approve RUN_ID's waiting
call from outside), ``submit`` (no launch: put a run on the durable queue), ``reuse``
(start run ids again, once queued and once directly: the documented idempotent use), ``wait`` (no
launch: wait for RUN_ID's result), ``serve`` (take runs
from the durable queue until killed; a file ``recover-<id>`` appearing next to
$DURABLE_TOOL_LOG makes it recover that executor's runs). Prints the result as JSON.
Environment: DURABLE_BASE_URL, DURABLE_API_KEY, DURABLE_TOOL_LOG; DURABLE_TRACE=1 adds the
names of the spans ``ai.instrument()`` emitted in this process to the result, and each with
its parent's name.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/

from support import durable_tools as _durable_tools
from dbos import DBOS, SetWorkflowID

from aisuite_like import durable

MESSAGES = [{"role": "user", "content": "record twice"}]


@DBOS.workflow()
def user_workflow(run_id: str) -> dict[str, Any]:
    """A workflow of the program's own that runs both kinds of durable run."""
    resp = durable.create(model="openai:gpt-test", messages=MESSAGES,
                          tools=[_durable_tools.record], max_turns=5, run_id=run_id + "-create")
    result = _durable_tools.recorder.run_sync("record twice", run_id=run_id + "-agent")
    return {"content": resp.choices[0].message.content, "final_output": result.final_output}


def _traced() -> Any:
    """``ai.instrument()`` into an in-memory exporter (DURABLE_TRACE set): the spans this
    process emitted are printed with its result."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    import aisuite_like as ai

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    ai.instrument(tracer_provider=provider)
    return exporter


def main() -> None:
    mode, url, run_id = sys.argv[1:4]
    executor_id = sys.argv[4] if len(sys.argv) > 4 else None
    durable.configure(url, client=_durable_tools.make_client(), executor_id=executor_id)
    if mode in ("approve", "submit", "wait"):  # from outside: no launch, runs no workflow
        if mode == "approve":
            waiting = durable.pending(run_id, timeout=30)
            durable.approve(run_id, waiting[0]["call_id"])
            out = {"approved": waiting}
        elif mode == "submit":
            out = {"run_id": durable.submit(model="openai:gpt-test", messages=MESSAGES,
                                            tools=[_durable_tools.record], max_turns=5,
                                            run_id=run_id)}
        else:
            value = durable.result(run_id)
            out = {"content": value.choices[0].message.content,
                   "stop_reason": value.stop_reason}
        print("RESULT " + json.dumps(out), flush=True)
        return
    exporter = _traced() if os.environ.get("DURABLE_TRACE") else None
    durable.launch()
    print("LAUNCHED", flush=True)
    out: dict[str, Any]
    if mode == "child":
        with SetWorkflowID(run_id):
            out = user_workflow(run_id)
        out["parents"] = [DBOS.get_workflow_status(run_id + suffix).parent_workflow_id
                          for suffix in ("-create", "-agent")]
    elif mode == "reject-run":  # pauses; rejected from this same (launched) process
        _durable_tools.approver.start("record once", run_id=run_id)
        waiting = durable.pending(run_id, timeout=30)
        try:
            durable.approve(run_id, "call_9")
        except ValueError as exc:
            unknown = str(exc)
        durable.reject(run_id, message="Not today.")
        final = durable.result(run_id)
        out = {"waiting": [w["call_id"] for w in waiting], "status": final.status,
               "results": [e.result for e in final.tool_events],
               "pending_after": durable.pending(run_id), "unknown": unknown}
    elif mode == "approval-run":
        _durable_tools.approver.start("record once", run_id=run_id)
        print("PENDING " + json.dumps(durable.pending(run_id, timeout=30)), flush=True)
        final = durable.result(run_id)
        out = {"final_output": final.final_output, "status": final.status,
               "tools": [e.name for e in final.tool_events]}
    elif mode in ("create", "parallel"):
        resp = durable.create(model="openai:gpt-test",
                              messages=[{"role": "user", "content": "record twice"}],
                              tools=[_durable_tools.record], max_turns=5, run_id=run_id)
        out = {"content": resp.choices[0].message.content, "stop_reason": resp.stop_reason,
               "tool_results": [e.result for e in resp.tool_events]}
    elif mode == "reuse":  # each run id started twice, once queued and once directly
        kwargs: dict[str, Any] = {"model": "openai:gpt-test", "messages": MESSAGES,
                                  "tools": [_durable_tools.record], "max_turns": 5}
        durable.submit(run_id=run_id + "-create", **kwargs)
        first = durable.result(run_id + "-create")
        again = durable.create(run_id=run_id + "-create", **kwargs)
        durable.create(run_id=run_id + "-direct", **kwargs)
        durable.submit(run_id=run_id + "-direct", **kwargs)
        _durable_tools.recorder.start("record twice", run_id=run_id + "-agent", queue=True)
        agent_first = durable.result(run_id + "-agent")
        agent_again = _durable_tools.recorder.run_sync("record twice", run_id=run_id + "-agent")
        out = {"same": [again.choices[0].message.content == first.choices[0].message.content,
                        agent_again.final_output == agent_first.final_output]}
    elif mode in ("agent", "agent-async"):
        result = (_durable_tools.recorder.run_sync("record twice", run_id=run_id)
                  if mode == "agent" else
                  asyncio.run(_durable_tools.recorder.run("record twice", run_id=run_id)))
        out = {"final_output": result.final_output, "status": result.status}
    elif mode == "resume":
        value = durable.result(run_id)
        out = ({"content": value.choices[0].message.content, "stop_reason": value.stop_reason}
               if hasattr(value, "choices") else
               {"final_output": value.final_output, "status": value.status})
    else:  # serve
        control = os.path.dirname(os.environ["DURABLE_TOOL_LOG"])
        while True:
            for name in os.listdir(control):
                if name.startswith("recover-"):
                    os.remove(os.path.join(control, name))
                    durable.recover([name[len("recover-"):]])
            time.sleep(0.05)
    if exporter is not None:
        finished = exporter.get_finished_spans()
        out["spans"] = sorted(span.name for span in finished)
        names = {span.context.span_id: span.name for span in finished}
        out["span_parents"] = sorted(  # [name, its parent's name ("" for a root)]
            [span.name, names.get(span.parent.span_id, "?") if span.parent else ""]
            for span in finished)
    print("RESULT " + json.dumps(out), flush=True)
    os._exit(0)  # the run is recorded; skip DBOS's graceful shutdown (about a second)


if __name__ == "__main__":
    main()
