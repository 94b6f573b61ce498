"""Element files (the source excerpts shown beside answers) kept in the chat database itself.

Chainlit's SQLAlchemy data layer persists an element only through a blob store (S3, GCS, Azure)
and silently drops it otherwise, so a resumed thread lost its source panels. Our elements are
small text excerpts: they go into a `blobs` table of the same database (SQLite by default,
Postgres when scaled out — then every instance sees them), and `GET /relais/blobs/{key}` serves
them to their owner only. Chainlit builds each key as `{user id}/{element id}/{name}`, which is
what the ownership check reads.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from chainlit.auth import get_current_user
from chainlit.data.storage_clients.base import BaseStorageClient
from fastapi import Depends, HTTPException
from fastapi.responses import Response
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from chatbot.chainlit_fixes.route_order import add_route

logger = logging.getLogger(__name__)

BLOB_ROUTE = "/relais/blobs"
MAX_BLOB_BYTES = 2_000_000  # excerpts are a few kB; anything bigger is not ours to keep
# Served as is; every other type becomes a download, so stored text can never run as a page.
_INLINE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf")


@dataclass(frozen=True)
class Blob:
    data: bytes
    mime: str


def blob_url(object_key: str) -> str:
    """Where the browser fetches an element (below Chainlit's root path, if any)."""
    root = os.getenv("CHAINLIT_PARENT_ROOT_PATH", "") + os.getenv("CHAINLIT_ROOT_PATH", "")
    return f"{root}{BLOB_ROUTE}/{quote(object_key)}"


def owner_of(object_key: str) -> str:
    """The user id a key belongs to (its first segment)."""
    return object_key.split("/", 1)[0]


class DatabaseBlobStore(BaseStorageClient):
    """Chainlit's storage-client interface over one table of the data layer's own database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def upload_file(self, object_key: str, data: bytes | str, mime: str = "application/octet-stream",
                          overwrite: bool = True, content_disposition: str | None = None) -> dict[str, Any]:
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if len(payload) > MAX_BLOB_BYTES:
            logger.warning("element %s not kept: %d bytes (limit %d)", object_key, len(payload), MAX_BLOB_BYTES)
            return {}  # Chainlit then logs that the element was not persisted; the answer is unaffected
        conflict = 'DO UPDATE SET "mime" = excluded."mime", "data" = excluded."data"' if overwrite else "DO NOTHING"
        async with self.engine.begin() as conn:
            await conn.execute(
                text(f'INSERT INTO blobs ("objectKey", "mime", "data") VALUES (:key, :mime, :data) '
                     f'ON CONFLICT ("objectKey") {conflict}'),
                {"key": object_key, "mime": mime or "application/octet-stream", "data": payload},
            )
        return {"object_key": object_key, "url": blob_url(object_key)}

    async def read(self, object_key: str) -> Blob | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(text('SELECT "data", "mime" FROM blobs WHERE "objectKey" = :key'),
                                      {"key": object_key})).first()
        return Blob(bytes(row[0]), str(row[1] or "application/octet-stream")) if row else None

    async def delete_file(self, object_key: str) -> bool:
        async with self.engine.begin() as conn:
            await conn.execute(text('DELETE FROM blobs WHERE "objectKey" = :key'), {"key": object_key})
        return True

    async def get_read_url(self, object_key: str) -> str:
        return blob_url(object_key)

    async def close(self) -> None:
        """Nothing to do: the engine belongs to the data layer, which disposes of it."""


def response_headers(mime: str) -> tuple[str, dict[str, str]]:
    """The content type to serve a stored blob with, and hardening headers."""
    headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": "private, max-age=3600"}
    if mime.startswith("text/"):
        return "text/plain; charset=utf-8", headers
    if mime in _INLINE_TYPES:
        return mime, headers
    return "application/octet-stream", {**headers, "Content-Disposition": "attachment"}


def register_blob_route(store_for_request: Any) -> None:
    """Add `GET /relais/blobs/{key}` to Chainlit's server, ahead of its catch-all UI route
    (routes added after it are never reached: Chainlit issue #1819).

    `store_for_request()` returns the current `DatabaseBlobStore` (or None without a data layer).
    """
    async def read_blob(object_key: str, user: Any = Depends(get_current_user)) -> Response:
        if user is None:
            raise HTTPException(status_code=401, detail="login required")
        store = store_for_request()
        # someone else's key gets the same answer as a missing one: nothing to learn from it
        blob = await store.read(object_key) if store is not None and owner_of(object_key) == getattr(user, "id", None) else None
        if blob is None:
            raise HTTPException(status_code=404, detail="not found")
        media_type, headers = response_headers(blob.mime)
        return Response(blob.data, media_type=media_type, headers=headers)

    add_route(BLOB_ROUTE + "/{object_key:path}", read_blob, ["GET"])
