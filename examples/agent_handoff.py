"""An agent with two tools and a handoff: a triage agent looks the order up, then hands the
conversation to a billing agent, which has its own tool.

    python examples/agent_handoff.py
"""

from __future__ import annotations

from typing import Annotated

from _common import pick_model
from pydantic import Field

import aisuite_like as ai

OrderId = Annotated[str, Field(examples=["A17"])]


def lookup_order(order_id: OrderId) -> dict:
    """Look an order up by its id.

    Args:
        order_id: The order id, e.g. A17.
    """
    return {"order_id": order_id, "status": "delivered", "amount_eur": 42.5}


def list_payments(order_id: OrderId) -> list:
    """Payments recorded for an order.

    Args:
        order_id: The order id, e.g. A17.
    """
    return [{"order_id": order_id, "amount_eur": 42.5}, {"order_id": order_id, "amount_eur": 42.5}]


def issue_refund(order_id: OrderId,
                 amount_eur: Annotated[float, Field(examples=[42.5])]) -> str:
    """Refund an amount for an order.

    Args:
        order_id: The order id.
        amount_eur: Amount to refund, in euros.
    """
    return f"refunded {amount_eur:.2f} EUR on order {order_id}"


def main() -> None:
    model = pick_model()
    billing = ai.Agent(
        name="billing", model=model, tools=[issue_refund],
        instructions="You handle refunds. Refund duplicate payments, then confirm briefly.",
        handoff_description="Refunds and payment problems.")
    triage = ai.Agent(
        name="triage", model=model, tools=[lookup_order, list_payments], handoffs=[billing],
        instructions="Look the order and its payments up. Hand payment problems to billing.")

    result = ai.Runner.run_sync(triage, "I was charged twice for order A17.", max_turns=6)

    result.print_trace()
    print(f"Tools called: {', '.join(event.name for event in result.tool_events)}")
    print(f"Final output (status={result.status}, last agent={result.last_agent.name}):")
    print(f"  {result.final_output}")


if __name__ == "__main__":
    main()
