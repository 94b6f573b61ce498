"""The debate graph end to end: real SQLite checkpointer, real files, scripted model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from debate import events as ev
from debate.memory import DebateMemory
from debate.runner import run_debate
from tests.debate.fakes import (
    Call,
    DebateScript,
    ProviderError,
    collect,
    default_draft,
    default_persona,
    default_thinking,
    factory_for,
    fast_config,
)

MOTION = "Cities should ban private cars from their centres"


async def run(script: DebateScript, out: Path, **config: Any) -> list[Any]:
    return await collect(
        run_debate(
            MOTION,
            out_dir=out,
            config=fast_config(**config),
            model_factory=factory_for(script.model()),
        )
    )


def shared(out: Path) -> list[dict[str, Any]]:
    return json.loads((out / "shared_memory.json").read_text())["arguments"]


def final(events: list[Any]) -> Any:
    assert isinstance(events[-1], (ev.DebateFinished, ev.DebateFailed))
    return events[-1]


@pytest.mark.parametrize("rounds", [1, 3])
async def test_all_approved_publishes_2n_arguments_in_pros_cons_order(
    tmp_path: Path, rounds: int
) -> None:
    script = DebateScript()
    events = await run(script, tmp_path / "run", rounds=rounds)

    published = shared(tmp_path / "run")
    assert [(a["round"], a["team"]) for a in published] == [
        (r, t) for r in range(1, rounds + 1) for t in ("pros", "cons")
    ]
    assert [a["argument"] for a in published] == [
        f"{t} argument r{r} pass 1" for r in range(1, rounds + 1) for t in ("pros", "cons")
    ]
    per_turn = ["draft", "persona", "thinking", "critique"]
    assert [f"{c.team}_{c.node}" for c in script.log] == [
        f"{t}_{n}" for _ in range(rounds) for t in ("pros", "cons") for n in per_turn
    ]
    done = final(events)
    assert isinstance(done, ev.DebateFinished)
    assert done.metrics["arguments_approved"] == 2 * rounds
    assert done.metrics["loop_lock_rate"] == 0.0
    assert done.metrics["mean_refinements_per_approved"] == 0.0
    assert done.metrics["llm_calls"] == 8 * rounds
    assert [e.team for e in events if isinstance(e, ev.ArgumentPublished)] == [
        "pros",
        "cons",
    ] * rounds
    run_record = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run_record["status"] == "completed" and run_record["motion"] == MOTION
    assert "Round 1 · Pros" in (tmp_path / "run" / "transcript.md").read_text()


async def test_rejection_restarts_the_loop_at_persona_and_only_approved_text_is_published(
    tmp_path: Path,
) -> None:
    def critique(call: Call, n: int) -> Any:
        if call.team == "pros" and call.round == 1 and n == 0:
            return {
                "is_approved": False,
                "critique_feedback": "Circular: the premise assumes the conclusion.",
                "revised_argument": None,
                "reasons": ["circular_logic"],
            }
        return {"is_approved": True, "critique_feedback": "ok"}

    script = DebateScript(critique=critique)
    events = await run(script, tmp_path / "run", rounds=1)

    assert script.nodes("pros") == [
        "pros_draft",
        "pros_persona",
        "pros_thinking",
        "pros_critique",
        "pros_persona",
        "pros_thinking",
        "pros_critique",
    ]
    second_persona = [c for c in script.log if c.team == "pros" and c.node == "persona"][1]
    assert "Circular: the premise assumes the conclusion." in second_persona.prompt
    second_thinking = [c for c in script.log if c.team == "pros" and c.node == "thinking"][1]
    assert "Circular: the premise assumes the conclusion." in second_thinking.prompt

    texts = [a["argument"] for a in shared(tmp_path / "run")]
    assert texts == ["pros argument r1 pass 2", "cons argument r1 pass 1"]
    assert "pros argument r1 pass 1" not in (tmp_path / "run" / "shared_memory.json").read_text()

    critiques = json.loads((tmp_path / "run" / "pros" / "critique.json").read_text())["entries"]
    assert [(c["attempt"], c["is_approved"]) for c in critiques] == [(1, False), (2, True)]
    assert critiques[0]["audited_argument"] == "pros argument r1 pass 1"
    assert critiques[0]["reasons"] == ["circular_logic"]
    metrics = final(events).metrics
    assert metrics["mean_refinements_per_approved"] == 0.5  # pros needed 1, cons 0
    assert metrics["mean_passes_per_approved"] == 1.5


async def test_critic_wording_on_approval_is_what_gets_published(tmp_path: Path) -> None:
    def critique(call: Call, n: int) -> Any:
        return {
            "is_approved": True,
            "critique_feedback": "tightened",
            "revised_argument": f"FINAL {call.team} r{call.round}",
        }

    await run(DebateScript(critique=critique), tmp_path / "run", rounds=1)
    assert [a["argument"] for a in shared(tmp_path / "run")] == ["FINAL pros r1", "FINAL cons r1"]


async def test_always_reject_hits_the_cap_records_loop_lock_and_the_team_forfeits(
    tmp_path: Path,
) -> None:
    def critique(call: Call, n: int) -> Any:
        if call.team == "pros":
            return {
                "is_approved": False,
                "critique_feedback": f"reuses round evidence (pass {n + 1})",
            }
        return {"is_approved": True, "critique_feedback": "ok"}

    script = DebateScript(critique=critique)
    events = await run(script, tmp_path / "run", rounds=2, refinement_cap=2)

    for rnd in (1, 2):
        nodes = [c.node for c in script.log if c.team == "pros" and c.round == rnd]
        assert nodes == [
            "draft",
            "persona",
            "thinking",
            "critique",
            "persona",
            "thinking",
            "critique",
        ]
    locks = [e for e in events if isinstance(e, ev.LoopLocked)]
    assert [(e.team, e.round, e.attempts, e.policy) for e in locks] == [
        ("pros", 1, 2, "forfeit"),
        ("pros", 2, 2, "forfeit"),
    ]
    assert locks[0].last_feedback == "reuses round evidence (pass 2)"
    # the policy: nothing published for Pros, the debate goes on with Cons
    assert [(a["round"], a["team"]) for a in shared(tmp_path / "run")] == [(1, "cons"), (2, "cons")]
    metrics = final(events).metrics
    assert isinstance(final(events), ev.DebateFinished)
    assert metrics["loop_locks"] == 2 and metrics["loop_lock_rate"] == 0.5
    assert metrics["loop_lock_events"][0] == {
        "round": 1,
        "team": "pros",
        "attempts": 2,
        "last_feedback": "reuses round evidence (pass 2)",
        "policy": "forfeit",
    }
    assert "Forfeited: loop-lock after 2" in (tmp_path / "run" / "transcript.md").read_text()


async def test_malformed_output_is_retried_then_fails_clearly_with_files_intact(
    tmp_path: Path,
) -> None:
    def thinking(call: Call, n: int) -> Any:
        if call.team == "cons" and call.round == 2:
            return {"logical_gaps": "not a list", "notes": "missing revised_argument"}
        return default_thinking(call, n)

    script = DebateScript(thinking=thinking)
    events = await run(script, tmp_path / "run", rounds=2, max_retries=3)

    cons_r2 = [c.node for c in script.log if c.team == "cons" and c.round == 2]
    assert cons_r2 == ["draft", "persona", "thinking", "thinking", "thinking"]
    retries = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert [(r.node, r.failed_try, r.max_tries) for r in retries] == [
        ("thinking", 1, 3),
        ("thinking", 2, 3),
    ]
    assert "ValidationError" in retries[0].error
    failed = final(events)
    assert isinstance(failed, ev.DebateFailed)
    assert failed.message.startswith(
        "Cons thinking (round 2, pass 1) failed after 3 attempt(s): ValidationError"
    )

    out = tmp_path / "run"
    for path in out.rglob("*.json"):
        json.loads(path.read_text())  # every file parses: nothing half-written
    assert [(a["round"], a["team"]) for a in shared(out)] == [(1, "pros"), (1, "cons"), (2, "pros")]
    thinking_entries = json.loads((out / "cons" / "thinking.json").read_text())["entries"]
    assert [(e["round"], e["attempt"]) for e in thinking_entries] == [
        (1, 1)
    ]  # the bad reply never landed
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "failed" and "ValidationError" in record["error"]
    transcript = (out / "transcript.md").read_text()
    assert "Status: failed" in transcript and "Round 2 · Pros" in transcript


async def test_invalid_json_then_valid_reply_succeeds(tmp_path: Path) -> None:
    def critique(call: Call, n: int) -> Any:
        if call.team == "pros" and n == 0:
            return '{"is_approved": tru'  # truncated reply
        return {"is_approved": True, "critique_feedback": "ok"}

    events = await run(DebateScript(critique=critique), tmp_path / "run", rounds=1)
    assert isinstance(final(events), ev.DebateFinished)
    assert [e.error.split(":")[0] for e in events if isinstance(e, ev.RetryScheduled)] == [
        "ModelOutputError"
    ]
    assert final(events).metrics["retries"] == 1


@pytest.mark.parametrize(
    "error",
    [
        ProviderError(503, "overloaded"),
        ProviderError(429, "rate limit"),
        TimeoutError("read timeout"),
    ],
)
async def test_transient_provider_error_is_retried(tmp_path: Path, error: Exception) -> None:
    def persona(call: Call, n: int) -> Any:
        if call.team == "cons" and call.round == 1 and n == 0:
            return error
        return default_persona(call, n)

    script = DebateScript(persona=persona)
    events = await run(script, tmp_path / "run", rounds=1)
    assert isinstance(final(events), ev.DebateFinished)
    assert [c.node for c in script.log if c.team == "cons"] == [
        "draft",
        "persona",
        "persona",
        "thinking",
        "critique",
    ]
    assert final(events).metrics["retries"] == 1
    assert len(shared(tmp_path / "run")) == 2


async def test_non_transient_provider_error_fails_at_once(tmp_path: Path) -> None:
    def draft(call: Call, n: int) -> Any:
        return ProviderError(401, "invalid api key")

    script = DebateScript(draft=draft)
    events = await run(script, tmp_path / "run", rounds=1, max_retries=5)
    assert len(script.log) == 1
    assert (
        final(events).message
        == "Pros draft (round 1) failed after 1 attempt(s): ProviderError: 401 invalid api key"
    )


@pytest.mark.slow
async def test_a_call_that_hangs_times_out_and_is_retried(tmp_path: Path) -> None:
    import time

    def draft(call: Call, n: int) -> Any:
        if n == 0:
            time.sleep(1.0)
        return default_draft(call, n)

    script = DebateScript(draft=draft)
    events = await run(script, tmp_path / "run", rounds=1, call_timeout_s=0.3)
    assert isinstance(final(events), ev.DebateFinished)
    assert any(isinstance(e, ev.RetryScheduled) and "TimeoutError" in e.error for e in events)


async def test_isolation_no_prompt_of_one_team_contains_the_other_teams_private_text(
    tmp_path: Path,
) -> None:
    def persona(call: Call, n: int) -> Any:
        card = {
            "name": f"{call.team.upper()}-PRIVATE-persona-{call.round}-{n}",
            "identity": f"{call.team.upper()}-PRIVATE-identity",
            "strategy": f"{call.team.upper()}-PRIVATE-strategy",
            "constraints": [f"{call.team.upper()}-PRIVATE-rule"],
        }
        return {
            "decision": "evolve",
            "persona": card,
            "rationale": f"{call.team.upper()}-PRIVATE-rationale",
        }

    def thinking(call: Call, n: int) -> Any:
        tag = call.team.upper()
        revised = (
            f"{tag}-PRIVATE-rejected-draft r{call.round}"
            if n == 0
            else f"{call.team} public argument r{call.round}"
        )
        return {
            "logical_gaps": [f"{tag}-PRIVATE-gap"],
            "weak_evidence": [f"{tag}-PRIVATE-weak"],
            "rhetorical_inconsistencies": [],
            "notes": f"{tag}-PRIVATE-notes",
            "revised_argument": revised,
            "evidence": [f"{call.team} public evidence r{call.round}"],
        }

    def critique(call: Call, n: int) -> Any:
        tag = call.team.upper()
        if n == 0:
            return {
                "is_approved": False,
                "critique_feedback": f"{tag}-PRIVATE-feedback",
                "revised_argument": f"{tag}-PRIVATE-suggestion",
            }
        return {"is_approved": True, "critique_feedback": f"{tag}-PRIVATE-approval-note"}

    script = DebateScript(persona=persona, thinking=thinking, critique=critique)
    await run(script, tmp_path / "run", rounds=2)

    cons_prompts = [c.prompt for c in script.log if c.team == "cons"]
    pros_prompts = [c.prompt for c in script.log if c.team == "pros"]
    assert cons_prompts and pros_prompts
    assert not [p for p in cons_prompts if "PROS-PRIVATE" in p]
    assert not [p for p in pros_prompts if "CONS-PRIVATE" in p]
    # the check is meaningful: public arguments do cross over, private text stays home
    assert any("pros public argument r1" in p for p in cons_prompts)
    assert any("PROS-PRIVATE-feedback" in p for p in pros_prompts)
    assert any("PROS-PRIVATE-strategy" in p for p in pros_prompts)
    assert "PRIVATE" not in (tmp_path / "run" / "shared_memory.json").read_text()


async def test_resume_after_a_failure_in_round_2_does_not_redo_round_1(tmp_path: Path) -> None:
    out = tmp_path / "run"

    def broken_critique(call: Call, n: int) -> Any:
        if call.team == "cons" and call.round == 2:
            return RuntimeError("provider crashed hard")  # not transient: fails at once
        return {"is_approved": True, "critique_feedback": "ok"}

    first = DebateScript(critique=broken_critique)
    events = await run(first, out, rounds=2)
    assert isinstance(final(events), ev.DebateFailed)
    assert len(first.log) == 16  # 15 answered + the failing critique

    second = DebateScript()
    resumed = await collect(
        run_debate(None, out_dir=out, resume=True, model_factory=factory_for(second.model()))
    )
    started = resumed[0]
    assert (
        isinstance(started, ev.RunStarted) and started.resumed and started.resume_at == (2, "cons")
    )
    assert [(c.team, c.node, c.round) for c in second.log] == [("cons", "critique", 2)]
    done = final(resumed)
    assert isinstance(done, ev.DebateFinished)
    assert [(a["round"], a["team"]) for a in shared(out)] == [
        (1, "pros"),
        (1, "cons"),
        (2, "pros"),
        (2, "cons"),
    ]
    assert done.metrics["arguments_approved"] == 4 and done.metrics["llm_calls"] == 16
    assert json.loads((out / "run.json").read_text())["status"] == "completed"

    third = DebateScript()
    again = await collect(
        run_debate(None, out_dir=out, resume=True, model_factory=factory_for(third.model()))
    )
    assert isinstance(final(again), ev.DebateFinished) and third.log == []


async def test_model_name_from_config_reaches_the_model_factory(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    script = DebateScript()
    config = fast_config(
        rounds=1,
        model_name="anthropic:claude-3-5-sonnet-20241022",
        temperature=0.3,
        max_tokens=1500,
        thinking_budget=700,
    )
    await collect(
        run_debate(
            MOTION,
            out_dir=tmp_path / "a",
            config=config,
            model_factory=factory_for(script.model(), seen),
        )
    )
    assert seen and {s["model_name"] for s in seen} == {"anthropic:claude-3-5-sonnet-20241022"}
    assert {s["temperature"] for s in seen} == {0.3}
    assert {s["max_tokens"] for s in seen} == {1500, 700}  # debaters, thinker (thinking_budget)

    seen.clear()
    switched = config.model_copy(update={"model_name": "openai:gpt-4o"})
    await collect(
        run_debate(
            MOTION,
            out_dir=tmp_path / "b",
            config=switched,
            model_factory=factory_for(DebateScript().model(), seen),
        )
    )
    assert {s["model_name"] for s in seen} == {"openai:gpt-4o"}
    assert (
        json.loads((tmp_path / "b" / "run.json").read_text())["config"]["model_name"]
        == "openai:gpt-4o"
    )


async def test_without_a_model_nothing_runs_and_no_files_are_written(tmp_path: Path) -> None:
    from relais.models import ModelNotConfigured

    with pytest.raises(ModelNotConfigured) as info:
        await collect(run_debate(MOTION, out_dir=tmp_path / "run", config=fast_config()))
    assert ModelNotConfigured.HOW_TO in str(info.value)
    assert not (tmp_path / "run").exists()


async def test_persona_changes_are_counted_per_team(tmp_path: Path) -> None:
    def persona(call: Call, n: int) -> Any:
        evolve = call.team == "pros" and call.round > 1
        first = "(none yet)" in call.prompt.split("## Your persona", 1)[1][:40]
        card = {"name": f"{call.team} v{call.round}", "identity": "x", "strategy": "y"}
        if first or evolve:
            return {"decision": "evolve", "persona": card, "rationale": "opponent shifted"}
        return {"decision": "keep", "rationale": "still fits"}

    script = DebateScript(persona=persona)
    events = await run(script, tmp_path / "run", rounds=3)
    assert final(events).metrics["persona_changes"] == {"pros": 2, "cons": 0}
    memory = DebateMemory(tmp_path / "run")
    assert memory.private("pros").persona().name == "pros v3"  # type: ignore[union-attr]
    assert memory.private("cons").persona().name == "cons v1"  # type: ignore[union-attr]
    # the anchor reaches later prompts of the same team
    assert any("pros v2" in c.prompt for c in script.log if c.team == "pros" and c.round == 3)


async def test_keep_without_any_persona_is_a_malformed_reply_and_is_retried(tmp_path: Path) -> None:
    def persona(call: Call, n: int) -> Any:
        if call.team == "pros" and n == 0:
            return {"decision": "keep", "rationale": "nothing to keep"}
        return default_persona(call, n)

    events = await run(DebateScript(persona=persona), tmp_path / "run", rounds=1)
    assert isinstance(final(events), ev.DebateFinished)
    retry = [e for e in events if isinstance(e, ev.RetryScheduled)]
    assert len(retry) == 1 and retry[0].node == "persona" and "no persona exists" in retry[0].error


async def test_critic_sees_evidence_repeated_from_the_previous_round(tmp_path: Path) -> None:
    def thinking(call: Call, n: int) -> Any:
        return {
            "revised_argument": f"{call.team} r{call.round}",
            "evidence": ["OECD 2019 report on urban congestion costs"],
        }

    script = DebateScript(thinking=thinking)
    await run(script, tmp_path / "run", rounds=2)
    critique_r2 = [
        c for c in script.log if c.team == "pros" and c.node == "critique" and c.round == 2
    ][0]
    section = critique_r2.prompt.split("## Automatic check", 1)[1]
    assert "OECD 2019 report on urban congestion costs" in section.split("##")[0]
    critique_r1 = [
        c for c in script.log if c.team == "pros" and c.node == "critique" and c.round == 1
    ][0]
    assert "(none)" in critique_r1.prompt.split("## Automatic check", 1)[1].split("##")[0]


async def test_graph_picture_is_written_with_both_conditional_edges(tmp_path: Path) -> None:
    await run(DebateScript(), tmp_path / "run", rounds=1)
    picture = (tmp_path / "run" / "graph.mmd").read_text()
    for team in ("pros", "cons"):
        assert f"{team}_critique -. &nbsp;approved&nbsp; .-> {team}_publish" in picture
        assert f"{team}_critique -. &nbsp;rejected&nbsp; .-> {team}_persona" in picture
        assert f"{team}_critique -. &nbsp;loop_lock&nbsp; .-> {team}_forfeit" in picture
