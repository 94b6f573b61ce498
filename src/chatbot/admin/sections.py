"""The sections of the admin page: a small registry, so another feature adds its own section
(`register_section(AdminSection("analytics", "Analytics", render))`) without touching the shell.

A section renders an HTML fragment for `GET /admin/<key>`; the shell (`chatbot.admin.page`)
adds the navigation and the styles. Renderers must escape what they show (`html.escape`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

SectionRenderer = Callable[[Request, Any], Awaitable[str]]


@dataclass(frozen=True)
class AdminSection:
    """`key` is the URL segment (`/admin/<key>`), `title` the navigation label, `order` its place."""

    key: str
    title: str
    render: SectionRenderer
    order: int = 100


_SECTIONS: dict[str, AdminSection] = {}


def register_section(section: AdminSection) -> AdminSection:
    """Add (or replace, by key) a section of the admin page."""
    if not section.key.replace("-", "").isalnum():
        raise ValueError(f"section key must be a URL segment: {section.key!r}")
    _SECTIONS[section.key] = section
    return section


def sections() -> list[AdminSection]:
    return sorted(_SECTIONS.values(), key=lambda s: (s.order, s.key))


def section(key: str) -> AdminSection | None:
    return _SECTIONS.get(key)


__all__ = ["AdminSection", "SectionRenderer", "register_section", "section", "sections"]
