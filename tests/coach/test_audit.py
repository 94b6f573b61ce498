"""The coach's handoff audit on the real product path (`CoachRunner`, a SQLite chat database):

- ordinary EN/FR conversations give only HEALTHY and WAITING_ON_APPROVAL (no false alarm);
- a fault-injection matrix: each injected fault gives its own verdict;
- the coach's verifiers judge what the turn promised (an acknowledgement is not a plan; a peanut
  allergy excludes peanuts, not almonds; "nuts" excludes both).

Models only through `relais.testing.ScriptedChatModel`; no network.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from coach.audit import COACH_ROUTER_CONTRACT, advisor_context, respects_food_restrictions
from coach.graph import build_coach_graph
from coach.runner import CoachRunner
from handoff_audit.classifier import VerdictCode, classify
from handoff_audit.forward import ForwardAudit
from handoff_audit.receipt import assert_no_content
from handoff_audit.recorder import ReceiptStore
from handoff_audit.verifiers import TurnOutcome
from relais.events import TextChunk
from relais.settings import clear_settings_caches, get_settings, secret_values
from relais.testing import ScriptedChatModel

GOOD = {VerdictCode.HEALTHY, VerdictCode.WAITING_ON_APPROVAL}
ROUTER, HUMAN = "coach.router/v2", "coach.human/v1"

# Ordinary conversations, different from the seed's: no goal stated, acknowledgements, allergies
# next to nuts that are allowed, injuries, diets, EN and FR, topic switches.
CONVERSATIONS: dict[str, list[str]] = {
    "en-peanut": ["I'm allergic to peanuts, what should I eat?", "Nothing to add", "Give me a dinner idea"],
    "en-half-marathon": ["I want to run a half marathon, 4 days a week", "My left shoulder hurts", "Nothing to add"],
    "en-breakfast-vegan": ["What should I eat for breakfast?", "I'm vegan", "thanks, looks good"],
    "en-home-dumbbells": ["Give me a home workout with dumbbells", "What about protein after training?", "ok"],
    "en-lactose-cut": ["I want to lose fat, lactose intolerant", "And a 3 day gym plan?", "Perfect, thanks"],
    "fr-muscle-genou": ["Je veux prendre du muscle, 3 séances par semaine", "J'ai mal au genou", "Rien à ajouter"],
    "fr-repas-arachides": ["Que dois-je manger le soir ?", "Je suis allergique aux arachides", "Merci, c'est parfait"],
    "fr-vege-muscu": ["Je suis végétarien, propose-moi des repas", "Et un programme de musculation ?", "Rien à ajouter"],
    "fr-dos-maison": ["J'ai mal au dos, quels exercices faire ?", "Je n'ai pas de matériel", "Ok merci"],
    "fr-noix": ["Je suis allergique aux noix, que manger pour prendre du muscle ?", "Rien à ajouter"],
}


async def _turn(runner: CoachRunner, thread: str, text: str, user: str = "u-1") -> list[Any]:
    return [event async for event in runner.run_turn(thread, text, user_id=user)]


def _store() -> ReceiptStore:
    return ReceiptStore(get_settings().receipts_db_url, secrets=secret_values())


def _verdicts(store: ReceiptStore, contract: str | None = None) -> list[VerdictCode]:
    return [
        classify(row.receipt).verdict
        for row in store.list()
        if contract is None or row.receipt.route_contract == contract
    ]


@pytest.mark.slow
async def test_ordinary_conversations_raise_no_alarm() -> None:
    store = _store()
    runner = CoachRunner(build_coach_graph(None, InMemorySaver()), receipts=store)
    for thread, turns in CONVERSATIONS.items():
        for text in turns:
            await _turn(runner, thread, text)
    rows = store.list()
    judged = [(row.thread_id, row.receipt.route_contract, classify(row.receipt)) for row in rows]
    alarms = [(t, c, v.verdict.value, v.deciding.reason) for t, c, v in judged if v.verdict not in GOOD]
    assert alarms == []  # false-alarm count: 0
    turns = sum(len(t) for t in CONVERSATIONS.values())
    assert len([j for j in judged if j[1] == ROUTER]) == turns  # one route receipt per turn
    assert {row.route_contract for row in store.receipts()} == {ROUTER, HUMAN}
    routes = [row.receipt for row in rows if row.receipt.route_contract == ROUTER]
    assert all(r.route_rule for r in routes) and all(r.result for r in routes)
    # the route is the router's own declaration; the sender is the author of the last reply
    assert routes[1].sender == routes[0].recipient
    for receipt in store.receipts():
        assert_no_content(receipt, [t for ts in CONVERSATIONS.values() for t in ts if len(t) > 12])


# --- the fault matrix -----------------------------------------------------------------------------

PLAN_CALL = {"name": "workout_plan", "args": {"goal": "muscle"}, "id": "call_w1", "type": "tool_call"}
MEAL_CALL = {"name": "meal_plan", "args": {"goal": "general"}, "id": "call_m1", "type": "tool_call"}


class DownWorkoutAPI:
    def workout_plan(self, request: Any) -> Any:
        raise ConnectionError("workout API unreachable")


def _runner(model: Any = None, **providers: Any) -> tuple[CoachRunner, ReceiptStore]:
    store = _store()
    return CoachRunner(build_coach_graph(model, InMemorySaver(), **providers), receipts=store), store


async def _route_verdict(runner: CoachRunner, store: ReceiptStore, text: str) -> VerdictCode:
    await _turn(runner, "t-fault", text)
    verdicts = _verdicts(store, ROUTER)
    assert len(verdicts) == 1
    return verdicts[0]


async def test_fault_advisor_raising_is_destination_not_started() -> None:
    runner, store = _runner(ScriptedChatModel([RuntimeError("advisor bug")]))
    assert await _route_verdict(runner, store, "Build muscle, 3 days a week") is (
        VerdictCode.DESTINATION_NOT_STARTED
    )


async def test_fault_tool_error_is_open_tool_protocol() -> None:
    runner, store = _runner(None, workout_provider=DownWorkoutAPI())
    assert await _route_verdict(runner, store, "Build muscle, 3 days a week") is (
        VerdictCode.OPEN_TOOL_PROTOCOL
    )


async def test_fault_provider_down_mid_turn_is_false_complete() -> None:
    """The tool ran, then the model provider went down before the reply: work began, no result."""
    model = ScriptedChatModel([AIMessage("", tool_calls=[PLAN_CALL]), ConnectionError("provider down")])
    runner, store = _runner(model)
    assert await _route_verdict(runner, store, "Build muscle, 3 days a week") is VerdictCode.FALSE_COMPLETE
    receipt = store.receipts()[0]
    assert receipt.destination_start is not None
    assert receipt.result and receipt.result.verifier == "destination_finished"


@pytest.mark.parametrize(
    "reply",
    [
        "Breakfast: oats with peanut butter, 400 kcal.\nLunch: chicken and rice.\nDinner: salmon.",
        "Petit-déjeuner : tartines au beurre de cacahuète.\nDéjeuner : poulet et riz.",
    ],
)
async def test_fault_allergen_placed_in_the_plan_by_the_model_is_false_complete(reply: str) -> None:
    model = ScriptedChatModel([AIMessage("", tool_calls=[MEAL_CALL]), AIMessage(reply)])
    runner, store = _runner(model)
    verdict = await _route_verdict(runner, store, "I'm allergic to peanuts, what should I eat?")
    assert verdict is VerdictCode.FALSE_COMPLETE
    assert "respects_food_restrictions" in store.receipts()[0].result.verifier


async def test_the_same_model_plan_without_the_allergen_is_healthy() -> None:
    """The control of the previous case: the verifier is not failing on everything."""
    reply = "Breakfast: oats with almonds (peanut-free), 400 kcal.\nLunch: chicken and rice."
    model = ScriptedChatModel([AIMessage("", tool_calls=[MEAL_CALL]), AIMessage(reply)])
    runner, store = _runner(model)
    assert await _route_verdict(runner, store, "I'm allergic to peanuts, what should I eat?") is (
        VerdictCode.HEALTHY
    )


async def test_fault_allergen_placed_in_the_plan_by_a_provider_is_false_complete() -> None:
    """A nutrition provider that ignores the allergy: the structured plan itself is checked."""
    from coach.nutrition_rules import RuleBasedNutritionProvider
    from coach.plans import MealRequest

    class Careless(RuleBasedNutritionProvider):
        def meal_plan(self, request: MealRequest) -> Any:
            return super().meal_plan(request.model_copy(update={"allergies": [], "avoid": []}))

    runner, store = _runner(None, nutrition_provider=Careless())
    verdict = await _route_verdict(runner, store, "I'm allergic to dairy, what should I eat?")
    assert verdict is VerdictCode.FALSE_COMPLETE


async def test_fault_dropped_context_key_is_context_incomplete(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    import coach.runner

    def forgets_constraints(destination: str, received: Any) -> dict[str, Any]:
        context = advisor_context(destination, received)
        context.pop("constraints")
        return context

    monkeypatch.setattr(  # where the runner reads it
        coach.runner,
        "COACH_ROUTER_CONTRACT",
        dataclasses.replace(COACH_ROUTER_CONTRACT, context_of=forgets_constraints),
    )
    runner, store = _runner()
    assert await _route_verdict(runner, store, "Build muscle, 3 days a week") is (
        VerdictCode.CONTEXT_INCOMPLETE
    )
    assert classify(store.receipts()[0]).deciding.reason == "missing required keys: constraints"


async def test_fault_agent_ending_without_done_is_false_complete() -> None:
    audit = ForwardAudit(thread_id="t", turn=1, session_mode="NORMAL")
    audit.decided("ALTER")
    audit.persisted(before="NORMAL", after="ALTER")
    audit.sent(message="plan", user_id="u", history=[])

    async def events() -> Any:
        yield TextChunk("Here is the start of a plan")  # and then the stream just ends

    async for _ in audit.watch(events()):
        pass
    assert classify(audit.receipt()).verdict is VerdictCode.FALSE_COMPLETE


async def test_fault_resume_after_the_deadline_is_uncertain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COACH_INTERRUPT_TTL_S", "1")
    clear_settings_caches()
    runner, store = _runner()
    await _turn(runner, "t", "Build muscle, 3 days a week")
    time.sleep(1.2)
    await _turn(runner, "t", "Nothing to add")
    waits = [r for r in store.receipts("t") if r.route_contract == HUMAN]
    assert classify(waits[0]).verdict is VerdictCode.UNCERTAIN
    assert classify(waits[1]).verdict is VerdictCode.WAITING_ON_APPROVAL


async def test_a_resume_in_time_closes_the_wait() -> None:
    runner, store = _runner()
    await _turn(runner, "t", "Build muscle, 3 days a week")
    await _turn(runner, "t", "Nothing to add")
    waits = [r for r in store.receipts("t") if r.route_contract == HUMAN]
    assert [classify(w).verdict for w in waits] == [VerdictCode.HEALTHY, VerdictCode.WAITING_ON_APPROVAL]


# --- the coach's verifiers ----------------------------------------------------------------------


def _outcome(said: list[str], reply: str, destination: str = "nutrition_advisor") -> TurnOutcome:
    messages = [HumanMessage(text) for text in said]
    return TurnOutcome(destination=destination, reply=reply, state={"messages": messages})


@pytest.mark.parametrize(
    "said, reply, ok",
    [
        (["I'm allergic to peanuts"], "Snack: almonds and an apple.", True),
        (["I'm allergic to peanuts"], "Snack: peanut butter on toast.", False),
        (["I'm allergic to peanuts"], "Allergies: peanuts (respected in every meal).", True),
        (["I'm allergic to nuts"], "Snack: almonds and an apple.", False),
        (["I'm allergic to nuts"], "Coconut yogurt with berries.", True),
        (["Je suis allergique aux arachides"], "Collation : amandes et une pomme.", True),
        (["Je suis allergique aux arachides"], "Tartine au beurre de cacahuète.", False),
        (["I'm vegetarian"], "Lunch: grilled chicken breast with quinoa.", False),
        (["I'm vegetarian"], "Use tofu instead of chicken; no meat or fish.", True),
        (["Je suis végétarien"], "Déjeuner : lentilles et riz, sans viande.", True),
        (["I'm vegan"], "Oat milk porridge, soy yogurt.", True),
        (["I'm vegan"], "Greek yogurt with honey.", False),
        (["I'm lactose intolerant"], "Lactose-free milk with oats.", True),
        (["I eat everything"], "Chicken, peanut butter, cheese.", True),
    ],
)
def test_food_restrictions_follow_the_coach_exclusions(said: list[str], reply: str, ok: bool) -> None:
    assert respects_food_restrictions(_outcome(said, reply)) is ok


def test_an_acknowledgement_turn_is_not_judged_as_a_plan() -> None:
    from handoff_audit.verifiers import verify

    ack = TurnOutcome(
        destination="workout_advisor",
        reply="Great — your plan stays as it is.",
        produced=(AIMessage("Great — your plan stays as it is.", name="workout_advisor"),),
        state={"messages": [HumanMessage("Build muscle"), HumanMessage("Nothing to add")]},
    )
    check = verify(ack, COACH_ROUTER_CONTRACT.verifiers)
    assert check is not None and check.verifier == "answered" and check.passed


@pytest.mark.parametrize(
    "reply, ok",
    [
        ("Legs: walking lunges 3x12, then leg press.", False),
        ("Avoid walking lunges; do glute bridges 3x12.", True),
        ("Fentes marchées 3x12.", False),
    ],
)
def test_injury_verifier_uses_the_coach_catalogue(reply: str, ok: bool) -> None:
    from coach.audit import respects_injuries

    outcome = _outcome(["My knee hurts, build muscle"], reply, destination="workout_advisor")
    assert respects_injuries(outcome) is ok


def test_context_requires_history_and_constraints_but_not_a_goal() -> None:
    assert COACH_ROUTER_CONTRACT.required_for("nutrition_advisor") == ["history", "constraints"]
    context = advisor_context("nutrition_advisor", {"messages": [HumanMessage("What should I eat?")]})
    assert context["history"] and context["constraints"] is not None and context["goal"] is None
    assert advisor_context("nutrition_advisor", {"messages": []})["history"] is None


