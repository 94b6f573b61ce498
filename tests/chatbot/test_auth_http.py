"""The login limits over HTTP on the real app: two instances on one chat database share their
counts; forwarded headers count only from a trusted proxy; cookies are Secure behind HTTPS.

Instance A trusts 127.0.0.1 as its proxy (X-Forwarded-For/-Proto honoured), instance B trusts
nobody (the same headers are ignored). Both use one SQLite chat database (one data folder).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from tests.chainlit_driver import ServerProcess, chainlit_server

pytestmark = pytest.mark.slow

USERS = "alice:alice-long-pass-1,bob:bob-long-pass-22"
BACKOFF = 1.5  # per user: backoff after 1 failure, lock at 3; per address: backoff after 1, lock at 4
LIMITS = {"RELAIS_LOGIN_MAX_FAILURES": "3", "RELAIS_LOGIN_MAX_FAILURES_PER_ADDRESS": "4",
          "RELAIS_LOGIN_BACKOFF_S": str(BACKOFF), "RELAIS_LOGIN_LOCK_MINUTES": "2", "RELAIS_USERS": USERS}


@pytest.fixture(scope="module")
def instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    work = tmp_path_factory.mktemp("auth-http")
    data = work / "data"
    a = chainlit_server(data, work, RELAIS_TRUSTED_PROXIES="127.0.0.1", **LIMITS)
    b = chainlit_server(data, work, **LIMITS)
    try:
        a.start(timeout=180)
        b.start(timeout=180)
        for server in (a, b):  # the first login opens the chat database: keep that out of the timings
            assert post_login(server, "bob", "bob-long-pass-22", **{"X-Forwarded-For": "192.0.2.1"}).status_code == 200
        yield a, b
    finally:
        a.stop()
        b.stop()


def post_login(server: ServerProcess, user: str, password: str, **headers: str) -> httpx.Response:
    return httpx.post(server.url + "/login", data={"username": user, "password": password}, headers=headers, timeout=30)


def backoff(k: int) -> None:
    time.sleep(BACKOFF * 2**k + 0.15)


def test_failed_logins_on_two_instances_lock_the_user_with_a_clear_answer(instances) -> None:
    a, b = instances
    proxy = {"X-Forwarded-For": "203.0.113.7"}  # through A's trusted proxy: one address for every try
    assert post_login(a, "alice", "guess-1", **proxy).status_code == 401
    too_fast = post_login(b, "alice", "guess-2")  # straight away, on the other instance
    assert too_fast.status_code == 429 and too_fast.json()["detail"] == "toomanyattempts"
    assert int(too_fast.headers["Retry-After"]) >= 1
    backoff(0)
    assert post_login(b, "alice", "guess-3").status_code == 401  # B's failure counts on A's
    backoff(1)
    locked = post_login(a, "alice", "guess-4", **proxy)  # the third failure locks
    assert locked.status_code == 429 and locked.json()["detail"] == "locked"
    right = post_login(b, "alice", "alice-long-pass-1")  # even the right password waits for the lock
    assert right.status_code == 429 and right.json()["detail"] == "locked" and "access_token" not in right.cookies
    assert 60 < int(right.headers["Retry-After"]) <= 120
    assert post_login(a, "bob", "bob-long-pass-22", **{"X-Forwarded-For": "203.0.113.8"}).status_code == 200

    logs = a.logs() + b.logs()
    assert "login locked for 2 min: user 'alice' after 3 failed attempts" in logs
    assert "login: user 'bob' signed in from 203.0.113.8" in logs
    assert not [g for g in ("guess-1", "guess-2", "guess-3", "guess-4", "alice-long-pass-1", "bob-long-pass-22") if g in logs]


def test_an_address_is_locked_only_as_a_trusted_proxy_reports_it(instances) -> None:
    a, b = instances
    attacker = {"X-Forwarded-For": "198.51.100.66"}
    for i in range(4):  # four usernames, one address (as A's proxy reports it)
        response = post_login(a, f"nobody-{i}", "guess", **attacker)
        assert response.status_code == (401 if i < 3 else 429), (i, response.text)
        backoff(i)
    refused = post_login(a, "bob", "bob-long-pass-22", **attacker)
    assert refused.status_code == 429 and refused.json()["detail"] == "locked"
    assert post_login(a, "bob", "bob-long-pass-22", **{"X-Forwarded-For": "198.51.100.67"}).status_code == 200
    # B trusts no proxy: the same header from the same peer is ignored (B sees 127.0.0.1)
    assert post_login(b, "bob", "bob-long-pass-22", **attacker).status_code == 200
    assert "login locked for 2 min: client address 198.51.100.66" in a.logs()
    assert "nobody-" not in a.logs() + b.logs()  # unknown usernames are never logged


def test_cookies_are_secure_over_https_per_a_trusted_proxy_only(instances) -> None:
    a, b = instances
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "192.0.2.44"}
    behind_tls = post_login(a, "bob", "bob-long-pass-22", **https).headers.get_list("set-cookie")
    assert behind_tls and all("; Secure" in c for c in behind_tls), behind_tls
    plain = post_login(a, "bob", "bob-long-pass-22").headers.get_list("set-cookie")
    assert plain and not any("secure" in c.lower() for c in plain), plain
    spoofed = post_login(b, "bob", "bob-long-pass-22", **https).headers.get_list("set-cookie")
    assert spoofed and not any("secure" in c.lower() for c in spoofed), spoofed
