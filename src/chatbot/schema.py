"""The chat database's tables: Chainlit ships no schema for its SQLAlchemy data layer.

The DDL has Postgres types from Chainlit's docs, with TEXT stand-ins on SQLite, plus a `blobs`
table for element files (`chatbot.chainlit_fixes.element_store`). Created on first start.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from relais.sql_table import switch_to_wal

_POSTGRES_DDL = """
CREATE TABLE IF NOT EXISTS users (
    "id" UUID PRIMARY KEY, "identifier" TEXT NOT NULL UNIQUE, "metadata" JSONB NOT NULL,
    "createdAt" TEXT);
CREATE TABLE IF NOT EXISTS threads (
    "id" UUID PRIMARY KEY, "createdAt" TEXT, "name" TEXT, "userId" UUID, "userIdentifier" TEXT,
    "tags" TEXT[], "metadata" JSONB,
    FOREIGN KEY ("userId") REFERENCES users("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS steps (
    "id" UUID PRIMARY KEY, "name" TEXT NOT NULL, "type" TEXT NOT NULL, "threadId" UUID NOT NULL,
    "parentId" UUID, "streaming" BOOLEAN NOT NULL, "waitForAnswer" BOOLEAN, "isError" BOOLEAN,
    "metadata" JSONB, "tags" TEXT[], "input" TEXT, "output" TEXT, "createdAt" TEXT,
    "command" TEXT, "start" TEXT, "end" TEXT, "generation" JSONB, "showInput" TEXT,
    "language" TEXT, "indent" INT, "defaultOpen" BOOLEAN, "autoCollapse" BOOLEAN, "modes" JSONB,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS elements (
    "id" UUID PRIMARY KEY, "threadId" UUID, "type" TEXT, "url" TEXT, "chainlitKey" TEXT,
    "name" TEXT NOT NULL, "display" TEXT, "objectKey" TEXT, "size" TEXT, "page" INT,
    "language" TEXT, "forId" UUID, "mime" TEXT, "props" JSONB, "autoPlay" BOOLEAN,
    "playerConfig" JSONB,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS blobs (
    "objectKey" TEXT PRIMARY KEY, "mime" TEXT, "data" BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS feedbacks (
    "id" UUID PRIMARY KEY, "forId" UUID NOT NULL, "threadId" UUID NOT NULL, "value" INT NOT NULL,
    "comment" TEXT,
    FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE);
"""


def _sqlite_ddl() -> str:
    """The Postgres DDL with SQLite-friendly types (UUID/JSONB/arrays stored as TEXT)."""
    ddl = _POSTGRES_DDL.replace(" BYTEA", " BLOB")
    for pg_type in ("UUID", "JSONB", "TEXT[]"):
        ddl = ddl.replace(f" {pg_type}", " TEXT")
    return ddl


async def ensure_schema(engine: AsyncEngine) -> None:
    """Create Chainlit's tables if they are missing (idempotent)."""
    ddl = _sqlite_ddl() if engine.url.get_backend_name() == "sqlite" else _POSTGRES_DDL
    if engine.url.get_backend_name() == "sqlite":  # readers never block the writer
        await switch_to_wal(engine)
    async with engine.begin() as conn:
        for statement in filter(None, (s.strip() for s in ddl.split(";"))):
            await conn.execute(text(statement))
        if engine.url.get_backend_name() != "sqlite":
            # Older databases created from Chainlit's docs lack the newest step columns.
            for column, kind in (("autoCollapse", "BOOLEAN"), ("modes", "JSONB")):
                await conn.execute(text(f'ALTER TABLE steps ADD COLUMN IF NOT EXISTS "{column}" {kind}'))
