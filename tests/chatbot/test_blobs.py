"""Element files in the chat database: the store on a real SQLite file (Postgres in the scale run),
and the headers they are served with. The route itself is exercised in test_app_e2e."""

from __future__ import annotations

import uuid

import pytest

from chatbot.chainlit_fixes.element_store import (
    MAX_BLOB_BYTES,
    DatabaseBlobStore,
    blob_url,
    owner_of,
    response_headers,
)
from chatbot.persistence import create_data_layer
from relais.settings import get_settings


async def test_store_keeps_reads_overwrites_and_deletes(backend: str) -> None:
    layer = await create_data_layer(get_settings())
    store = layer.storage_provider
    assert isinstance(store, DatabaseBlobStore)
    key = f"{uuid.uuid4()}/{uuid.uuid4()}/plans-and-pricing.md"
    try:
        saved = await store.upload_file(key, "The Base plan costs $10 per month.", mime="text/plain")
        assert saved == {"object_key": key, "url": blob_url(key)}
        blob = await store.read(key)
        assert blob is not None and blob.data == b"The Base plan costs $10 per month." and blob.mime == "text/plain"

        await store.upload_file(key, b"\x00binary\xff", mime="application/octet-stream")
        assert (await store.read(key)).data == b"\x00binary\xff"  # overwritten, bytes kept exactly
        await store.upload_file(key, b"ignored", overwrite=False)
        assert (await store.read(key)).data == b"\x00binary\xff"

        assert await store.get_read_url(key) == blob_url(key)
        assert await store.delete_file(key)
        assert await store.read(key) is None
    finally:
        await layer.engine.dispose()


async def test_oversized_element_is_not_kept(backend: str) -> None:
    layer = await create_data_layer(get_settings())
    key = f"{uuid.uuid4()}/{uuid.uuid4()}/huge.txt"
    try:
        assert await layer.storage_provider.upload_file(key, b"x" * (MAX_BLOB_BYTES + 1)) == {}
        assert await layer.storage_provider.read(key) is None
    finally:
        await layer.engine.dispose()


def test_keys_urls_and_owner(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "user-1/element-9/Plans and pricing (plans-and-pricing.md)"
    assert owner_of(key) == "user-1"
    assert blob_url(key) == "/relais/blobs/user-1/element-9/Plans%20and%20pricing%20%28plans-and-pricing.md%29"
    monkeypatch.setenv("CHAINLIT_ROOT_PATH", "/chat")
    assert blob_url("u/e/n").startswith("/chat/relais/blobs/")


@pytest.mark.parametrize(
    "stored, served, attachment",
    [
        ("text/plain", "text/plain; charset=utf-8", False),
        ("text/html", "text/plain; charset=utf-8", False),  # stored HTML never renders as a page
        ("image/png", "image/png", False),
        ("application/pdf", "application/pdf", False),
        ("application/x-sh", "application/octet-stream", True),
        ("image/svg+xml", "application/octet-stream", True),  # SVG can carry scripts
    ],
)
def test_served_types_are_safe(stored: str, served: str, attachment: bool) -> None:
    media_type, headers = response_headers(stored)
    assert media_type == served
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert (headers.get("Content-Disposition") == "attachment") is attachment
