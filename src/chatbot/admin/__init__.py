"""Operator pages beside the product, behind an admin role (`RELAIS_ADMINS`).

- `access`: THE access rule (401 anonymous, 403 non-admin) for every /admin route;
- `sections`: the registry of page sections (`register_section`), one URL each: `/admin/<key>`;
- `page`: the HTML shell; `audit`: the handoff receipts section; `routes`: the FastAPI routes.

Another section (e.g. analytics) is a module with an async renderer that calls
`register_section(AdminSection("analytics", "Analytics", render, order=20))` and is imported by
`register_admin_routes` (or by the app's startup) — nothing else changes.
"""

from chatbot.admin.access import check_admin, is_admin, require_admin
from chatbot.admin.routes import register_admin_routes
from chatbot.admin.sections import AdminSection, register_section, sections

__all__ = [
    "AdminSection",
    "check_admin",
    "is_admin",
    "register_admin_routes",
    "register_section",
    "require_admin",
    "sections",
]
