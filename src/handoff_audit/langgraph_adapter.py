"""Evidence from a LangGraph run: tool-call protocol from messages, destination starts from the
`tasks`/`debug` stream, control from state before/after, waits from the interrupted snapshot.

Why outside the graph: the audit must observe, not participate. A graph's own nodes would
report what they *think* happened; the stream and the checkpointed state say what *did*. This
module may import langchain_core (messages) but not the classifier's callers' frameworks; the
classifier stays pure.

Typical use around one turn of a router graph (e.g. the coach, whose contract lives in the coach
package with its context reader and its result verifiers):

    audit = GraphTurnAudit(thread_id=tid, contract=CONTRACT, state_before=await graph.aget_state(cfg))
    async for part in graph.astream(inp, cfg, stream_mode=["messages", "tasks"], version="v2"):
        audit.observe(part)
        ...
    receipts = audit.record(store, await graph.aget_state(cfg), owner=owner_id(user), ttl_s=...)

Independent evidence per boundary: the intended recipient is what the router node *declared*
(its decision written to state, read from the stream), never a second run of the decision
function; `goto` and the destination start are the nodes the stream shows ran; the sender is the
author (`AIMessage.name`) of the last reply before the turn; the context is read from the input
the destination actually received.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langchain_core.messages import BaseMessage

from handoff_audit.builders import (
    ReceiptBuilder,
    new_operation_id,
    resume_token_id,
)
from handoff_audit.graph_messages import (
    last_reply,
    last_speaker,
    message_text,
    tool_protocol,
    turn_messages,
    turn_number,
)
from handoff_audit.receipt import Receipt
from handoff_audit.task_log import TaskLog, TaskRecord
from handoff_audit.verifiers import ResultVerifier, TurnOutcome, verify

log = logging.getLogger(__name__)

# --- contracts and the turn audit --------------------------------------------------------------


ContextReader = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]


@dataclass(frozen=True)
class RouteContract:
    """A versioned route + context contract, declared by the package that owns the graph.

    - `routes`: allowed destinations; `required_context`: the keys each one must receive;
    - `router_node` writes its decision to `decision_key` as `{"destination", "rule"}`;
    - `control_key`: the state key naming the agent in charge; `default_agent`: the one in charge
      while that key is empty (the graph's own fallback, e.g. on a new thread);
    - `context_of(destination, input_state)`: the context the destination received (key → value),
      read from the input the stream shows it got; without it, the input's own keys are used;
    - `verifiers`: the domain's result checks (`handoff_audit.verifiers.ResultVerifier`).
    """

    name: str
    routes: tuple[str, ...]
    required_context: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    control_key: str = "last_active_agent"
    default_agent: str | None = None
    router_node: str = "router"
    decision_key: str = "route_decision"
    context_of: ContextReader | None = None
    verifiers: tuple[ResultVerifier, ...] = ()

    def in_control(self, values: Mapping[str, Any]) -> str | None:
        """The agent the state puts in charge: the control key, else the default agent (the graph
        routes an empty control key to it, so the audit reads it the same way)."""
        return values.get(self.control_key) or self.default_agent

    def required_for(self, recipient: str | None) -> list[str]:
        return list(self.required_context.get(recipient or "", ()))

    def context(self, destination: str, received: Mapping[str, Any]) -> Mapping[str, Any]:
        return self.context_of(destination, received) if self.context_of else received


HUMAN_CONTRACT = "graph.human/v1"
HUMAN_REQUIRED_CONTEXT = ("prompt",)
RESUMED_VERIFIER = "resumed_by_owner"
DESTINATION_FINISHED = "destination_finished"


def _decision(value: Any) -> tuple[str | None, str | None]:
    """(destination, rule) from a router's recorded decision (a mapping or an object)."""
    if isinstance(value, Mapping):
        destination, rule = value.get("destination"), value.get("rule")
    else:
        destination, rule = getattr(value, "destination", None), getattr(value, "rule", None)
    return (str(destination) if destination else None, str(rule) if rule else None)


def _goto(task: TaskRecord | None) -> str | None:
    """Where the graph sent control: the `branch:to:<node>` trigger of the task that started."""
    if task is None:
        return None
    for trigger in task.triggers:
        if trigger.startswith("branch:to:"):
            return trigger[len("branch:to:") :]
    return task.name


def _reason(kind: Any) -> str | None:
    """The interrupt's kind as a bounded token (`constraints`, `approval`); never free text."""
    if not kind:
        return None
    token = re.sub(r"[^\w.:-]+", "_", str(kind).strip())[:64].strip("_")
    return token or None


def _values(state: Any) -> Mapping[str, Any]:
    """State values from a StateSnapshot, a mapping, or None."""
    if state is None:
        return {}
    values = getattr(state, "values", state)
    return values if isinstance(values, Mapping) else {}


def _messages(state: Any) -> list[BaseMessage]:
    return [m for m in _values(state).get("messages", []) or [] if isinstance(m, BaseMessage)]


def _interrupt_payloads(snapshot: Any) -> list[Any]:
    values: list[Any] = []
    for interrupt in getattr(snapshot, "interrupts", ()) or ():
        values.append(getattr(interrupt, "value", interrupt))
    return values


class GraphTurnAudit:
    """Collects one turn of a router graph and produces its route and waiting receipts."""

    def __init__(
        self,
        *,
        thread_id: str,
        contract: RouteContract,
        state_before: Any = None,
        attempt: int = 1,
        human_node: str = "human",
        human_contract: str = HUMAN_CONTRACT,
    ) -> None:
        self.thread_id = thread_id
        self.contract = contract
        self.attempt = attempt
        self.human_node = human_node
        self.human_contract = human_contract
        self.log = TaskLog(keep_writes=[contract.decision_key], keep_inputs=contract.routes)
        before = _values(state_before)
        self.messages_before = _messages(state_before)
        self.turn = turn_number(self.messages_before)
        new_thread = not self.messages_before
        self.control_before = contract.in_control(before)
        # Sender: who actually answered last, by the author's name on its reply (independent of
        # the control variable); a new thread starts with the contract's start agent.
        self.sender = last_speaker(self.messages_before, contract.routes) or (
            contract.default_agent if new_thread else None
        )
        self.waiting_before = bool(
            getattr(state_before, "next", ()) and self.human_node in state_before.next
        )

    @property
    def operation_id(self) -> str:
        return new_operation_id(self.thread_id, self.turn, self.contract.name)

    @property
    def human_operation_id(self) -> str:
        return new_operation_id(self.thread_id, self.turn, self.human_contract)

    @property
    def previous_human_operation_id(self) -> str | None:
        """The wait this turn resumes (the previous turn's human handoff), if any."""
        return (
            new_operation_id(self.thread_id, self.turn - 1, self.human_contract)
            if self.turn > 1
            else None
        )

    def observe(self, part: Any, at: datetime | None = None) -> None:
        """Feed every stream part (`tasks`, `debug` and `updates` modes are read, others ignored)."""
        self.log.observe(part, at)

    def decision(self) -> tuple[str | None, str | None]:
        """(destination, rule) the router node recorded during this turn (None, None if it did not)."""
        for node, _channel, value in reversed(self.log.writes):
            if node == self.contract.router_node:
                return _decision(value)
        return None, None

    def resumed_wait(self) -> bool:
        """True when this run resumed a paused human node and it finished cleanly."""
        humans = self.log.runs([self.human_node])
        return (
            self.waiting_before
            and bool(humans)
            and humans[0].finished
            and not humans[0].error
            and not humans[0].interrupted
        )

    # --- receipts ------------------------------------------------------------------------
    def _received(self, destination: str) -> Mapping[str, Any] | None:
        """The state the destination's first run received, from the stream (None if not seen)."""
        for task in self.log.runs([destination]):
            if task.id in self.log.inputs:
                return self.log.inputs[task.id]
        return None

    def route_receipt(
        self,
        state_after: Any,
        *,
        context: Mapping[str, Any] | Iterable[str] | None = None,
        now: datetime | None = None,
    ) -> Receipt:
        """The router → advisor handoff: declared route vs the node that ran, control, tool ids,
        received context, destination start, and the domain's verdict on the result.

        `context` overrides what is read from the destination's input (for callers without a
        `tasks`/`debug` stream); by default the contract reads it from that input.
        """
        values = _values(state_after)
        recipient, rule = self.decision()
        starts = self.log.runs(self.contract.routes)
        first = starts[0] if starts else None
        builder = ReceiptBuilder(
            operation_id=self.operation_id,
            route_contract=self.contract.name,
            sender=self.sender,
            recipient=recipient,
            declared_routes=list(self.contract.routes),
            required_context_keys=self.contract.required_for(recipient),
        )
        builder.route_rule = rule
        builder.routed(_goto(first))
        builder.control(self.control_before, self.contract.in_control(values))
        produced = turn_messages(_messages(state_after))
        protocol = tool_protocol(produced)
        builder.tool(protocol.tool_call_id, protocol.tool_message_call_id)
        if context is None and first is not None:
            received = self._received(first.name)
            context = self.contract.context(first.name, received) if received is not None else ()
        builder.context(context or ())
        if first is not None:
            runs = [t for t in starts if t.name == first.name]
            # Began useful work = a run of the destination that finished without error; a node
            # that crashed at once was admitted but never started (the seed's "crashes immediately").
            began = next((t for t in runs if t.finished and not t.error), None)
            if began is not None:
                builder.started(began.name, began.started_at, self.attempt)
            if any(t.error for t in runs):
                builder.verified(DESTINATION_FINISHED, False, now).complete()
            elif all(t.finished for t in runs):
                reply = last_reply(produced, [first.name])
                outcome = TurnOutcome(
                    destination=first.name,
                    reply=message_text(reply) if reply else "",
                    produced=tuple(produced),
                    state=values,
                )
                check = verify(outcome, self.contract.verifiers, now)
                if check is not None:
                    builder.result = check
                builder.complete()
        return builder.build()

    def waiting_receipt(
        self,
        snapshot_after: Any,
        *,
        owner: str | None,
        ttl_s: float | None,
        now: datetime | None = None,
    ) -> Receipt | None:
        """The advisor → human handoff paused by `interrupt()` (None when the turn did not pause)."""
        humans = [t for t in self.log.runs([self.human_node]) if t.interrupted or not t.finished]
        payloads = _interrupt_payloads(snapshot_after)
        paused = self.human_node in (getattr(snapshot_after, "next", ()) or ())
        if not humans and not paused:
            return None
        values = _values(snapshot_after)
        advisor = self.contract.in_control(values)
        payload = payloads[0] if payloads else {}
        payload_map = payload if isinstance(payload, Mapping) else {"prompt": payload}
        ran = self.log.runs(self.contract.routes)
        sender = ran[-1].name if ran else advisor
        human = humans[-1] if humans else None
        checkpoint_id = (
            (getattr(snapshot_after, "config", None) or {})
            .get("configurable", {})
            .get("checkpoint_id")
        )
        builder = ReceiptBuilder(
            operation_id=self.human_operation_id,
            route_contract=self.human_contract,
            sender=sender,
            recipient=self.human_node,
            declared_routes=[self.human_node],
            required_context_keys=list(HUMAN_REQUIRED_CONTEXT),
        )
        builder.routed(_goto(human))
        builder.control(advisor, self.human_node if paused and payloads else advisor)
        builder.context({key: payload_map.get(key) for key in payload_map if isinstance(key, str)})
        if human is not None:
            builder.started(human.name, human.started_at, self.attempt)
        builder.waiting(
            owner=owner,
            reason=_reason(payload_map.get("kind")),
            resume_token_id=resume_token_id(self.thread_id, checkpoint_id) if paused else None,
            ttl_s=ttl_s,
            now=now,
        )
        return builder.build()

    def receipts(
        self,
        snapshot_after: Any,
        *,
        context: Mapping[str, Any] | Iterable[str] | None = None,
        owner: str | None = None,
        ttl_s: float | None = None,
        now: datetime | None = None,
    ) -> list[Receipt]:
        """The turn's route receipt, then its waiting receipt if the graph paused for the person."""
        out = [self.route_receipt(snapshot_after, context=context, now=now)]
        waiting = self.waiting_receipt(snapshot_after, owner=owner, ttl_s=ttl_s, now=now)
        if waiting is not None:
            out.append(waiting)
        return out

    def record(
        self,
        store: Any,
        snapshot_after: Any,
        *,
        context: Mapping[str, Any] | Iterable[str] | None = None,
        owner: str | None = None,
        ttl_s: float | None = None,
        now: datetime | None = None,
    ) -> list[Receipt]:
        """Close the wait this turn answered, then store the turn's receipts (never raises).

        `store` is a `ReceiptStore`; failures are logged by `try_record`, the turn goes on.
        """
        previous = self.previous_human_operation_id
        if previous and self.resumed_wait():
            try:
                store.resolve_wait(previous, verifier=RESUMED_VERIFIER, at=now)
            except Exception as exc:  # noqa: BLE001 - auditing must never break the conversation
                log.warning("wait %s not closed: %s", previous, type(exc).__name__)
        receipts = self.receipts(
            snapshot_after,
            context=context,
            owner=owner,
            ttl_s=ttl_s,
            now=now,
        )
        for receipt in receipts:
            store.try_record(receipt, self.thread_id)
        return receipts
