"""Background work waits for the turns in flight (`chatbot.activity`)."""

from __future__ import annotations

import threading
import time

from chatbot.activity import TurnActivity


def test_waiting_for_quiet_lasts_until_the_turn_in_flight_has_ended() -> None:
    activity = TurnActivity(quiet_s=0.05)
    returned: list[float] = []
    with activity.turn():
        assert activity.running == 1
        waiter = threading.Thread(target=lambda: returned.append((activity.wait_quiet(), time.monotonic())[1]))
        waiter.start()
        waiter.join(timeout=0.3)
        assert waiter.is_alive() and not returned  # a turn runs: the background work waits
        ended = time.monotonic()
    waiter.join(timeout=10)
    assert not waiter.is_alive()
    assert activity.running == 0 and returned[0] > ended


def test_a_failing_turn_still_counts_as_ended() -> None:
    activity = TurnActivity(quiet_s=0.0)
    try:
        with activity.turn():
            raise ValueError("the turn failed")
    except ValueError:
        pass
    assert activity.running == 0
    assert activity.wait_quiet() >= 0.0  # returns: nothing in flight


def test_turns_overlapping_keep_it_waiting_until_the_last_ends() -> None:
    activity = TurnActivity(quiet_s=0.0)
    first, second = activity.turn(), activity.turn()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    waiter = threading.Thread(target=activity.wait_quiet)
    waiter.start()
    waiter.join(timeout=0.3)
    assert waiter.is_alive()  # one turn still runs
    second.__exit__(None, None, None)
    waiter.join(timeout=10)
    assert not waiter.is_alive()
