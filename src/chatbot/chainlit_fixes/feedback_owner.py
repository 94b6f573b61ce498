"""Thumbs on one's own answers only.

Chainlit's `PUT /feedback` and `DELETE /feedback` check that someone is logged in, not that the
rated message belongs to them: any user could rate, or erase the rating of, another user's
answer by its id. These two routes take their place (registered ahead of Chainlit's router) and
check that the message's thread is the caller's before handing over to Chainlit's own handler.
"""

# no `from __future__ import annotations`: FastAPI must see the route annotations as objects
from typing import Any

from chainlit import server
from chainlit.data import get_data_layer
from chainlit.data.acl import is_thread_author
from chainlit.types import DeleteFeedbackRequest, UpdateFeedbackRequest
from fastapi import HTTPException, Request

from chatbot.chainlit_fixes.route_order import add_route

FEEDBACK_PATH = "/feedback"


async def thread_of_message(layer: Any, message_id: str) -> str | None:
    rows = await layer.execute_sql('SELECT "threadId" FROM steps WHERE "id" = :id', {"id": message_id})
    return str(rows[0]["threadId"]) if isinstance(rows, list) and rows else None


async def thread_of_feedback(layer: Any, feedback_id: str) -> str | None:
    rows = await layer.execute_sql('SELECT "threadId" FROM feedbacks WHERE "id" = :id', {"id": feedback_id})
    return str(rows[0]["threadId"]) if isinstance(rows, list) and rows else None


def register_feedback_routes() -> None:
    """Put the ownership-checked feedback routes in front of Chainlit's (idempotent)."""
    async def _own(user: Any, thread_id: str | None) -> None:
        if user is None:
            raise HTTPException(status_code=401, detail="login required")
        if not thread_id:  # unknown message: same answer as someone else's
            raise HTTPException(status_code=404, detail="not found")
        try:
            await is_thread_author(user.identifier, thread_id)
        except HTTPException as exc:
            raise HTTPException(status_code=404, detail="not found") from exc

    async def relais_update_feedback(request: Request, update: UpdateFeedbackRequest,
                                     current_user: server.UserParam) -> Any:
        layer = get_data_layer()
        if layer is not None:
            thread_id = await thread_of_message(layer, update.feedback.forId)
            await _own(current_user, thread_id)
            update.feedback.threadId = thread_id  # the server's answer, not the client's
        return await server.update_feedback(request, update, current_user)

    async def relais_delete_feedback(request: Request, payload: DeleteFeedbackRequest,
                                     current_user: server.UserParam) -> Any:
        layer = get_data_layer()
        if layer is not None:
            await _own(current_user, await thread_of_feedback(layer, payload.feedbackId))
        return await server.delete_feedback(request, payload, current_user)

    # ahead of Chainlit's own PUT/DELETE /feedback, which check no ownership
    add_route(FEEDBACK_PATH, relais_update_feedback, ["PUT"], first=True, name="relais_update_feedback")
    add_route(FEEDBACK_PATH, relais_delete_feedback, ["DELETE"], first=True, name="relais_delete_feedback")
