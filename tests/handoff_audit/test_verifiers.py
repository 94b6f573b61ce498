"""The result boundary's interface: verifiers come from the package that owns the task (here,
toy ones); `verify` runs those that apply and keeps only names and a boolean. Plus the generic
text scan they may use: negation, prefixes, a domain's own "restating" words."""

from __future__ import annotations

import pathlib

import handoff_audit
from handoff_audit.receipt import ResultCheck
from handoff_audit.textscan import Lexicon, recommended_mentions
from handoff_audit.verifiers import Check, ResultVerifier, TurnOutcome, verify
from tests.handoff_audit.factories import NOW

SHOUTS = Check("no_shouting", lambda o: o.reply != o.reply.upper())
LONG = Check("long_enough", lambda o: len(o.reply) > 10, lambda o: o.destination == "writer")


def test_only_applicable_verifiers_run_and_all_must_pass() -> None:
    calm = TurnOutcome(destination="writer", reply="A calm and long answer.")
    assert verify(calm, [SHOUTS, LONG], NOW) == ResultCheck(
        verifier="no_shouting+long_enough", passed=True, checked_at=NOW
    )
    loud = TurnOutcome(destination="reader", reply="SHORT")
    check = verify(loud, [SHOUTS, LONG], NOW)
    assert check is not None and (check.verifier, check.passed) == ("no_shouting", False)


def test_no_applicable_verifier_gives_no_result() -> None:
    assert verify(TurnOutcome(destination="reader", reply="x"), [LONG]) is None
    assert verify(TurnOutcome(destination="writer", reply="x"), []) is None


def test_a_crashing_verifier_counts_as_failed() -> None:
    def boom(outcome: TurnOutcome) -> bool:
        raise RuntimeError("bug in a verifier")

    check = verify(TurnOutcome(destination="w", reply="fine"), [Check("broken", boom), SHOUTS])
    assert check is not None and not check.passed and check.verifier == "broken+no_shouting"


def test_checks_satisfy_the_protocol() -> None:
    assert isinstance(SHOUTS, ResultVerifier)


def test_the_audit_package_carries_no_domain_vocabulary() -> None:
    """Domain checks (food, training) belong to the packages that own them."""
    source = pathlib.Path(handoff_audit.__file__).parent
    text = " ".join(p.read_text(encoding="utf-8").lower() for p in source.glob("*.py"))
    for word in ("peanut", "vegetarian", "allerg", "lunge", "workout", "nutrition", "meal"):
        assert word not in text, word


def test_scan_negation_prefixes_and_domain_negators() -> None:
    fruit = Lexicon.of(["apple*", "pear"], negators=["hates"])
    assert recommended_mentions("Eat apples and a pear.", fruit) == ["apple*", "pear"]
    assert recommended_mentions("Avoid apples and pears.", fruit) == []
    assert recommended_mentions("Sam hates pears; eat an apple.", fruit) == ["apple*"]
    assert recommended_mentions("Pear-free day, apple-free too.", fruit) == []
    assert recommended_mentions("Skip:\n- pears\n- apples\nEat:\n- pear", fruit) == ["pear"]
