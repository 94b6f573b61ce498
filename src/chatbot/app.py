"""Chainlit entry point: handlers only; every decision is delegated to `chatbot.handlers`."""

from __future__ import annotations

from typing import Any

import chainlit as cl

from chatbot import handlers
from chatbot.ui.render import CHOICE_ACTION

handlers.startup()


@cl.on_app_shutdown
async def on_app_shutdown() -> None:
    await handlers.shutdown()


@cl.data_layer
def data_layer() -> Any:
    return handlers.data_layer()


@cl.password_auth_callback
async def password_auth(username: str, password: str) -> cl.User | None:
    return await handlers.authenticate(username, password)


@cl.set_chat_profiles
async def chat_profiles(user: cl.User | None, language: str | None = None) -> list[cl.ChatProfile]:
    return handlers.chat_profiles(language)


@cl.set_starters
async def starters(user: cl.User | None, language: str | None = None) -> list[cl.Starter]:
    return handlers.starters(language)


@cl.on_chat_start
async def on_chat_start() -> None:
    await handlers.on_chat_start()


@cl.on_chat_resume
async def on_chat_resume(thread: dict) -> None:
    await handlers.on_chat_resume(thread)


@cl.on_message
async def on_message(message: cl.Message) -> None:
    await handlers.on_message(message)


@cl.action_callback(CHOICE_ACTION)
async def on_choice(action: cl.Action) -> None:
    await handlers.on_choice(action)
