"""Every repair of Chainlit 2.12 that Relais needs, one module each, named by what it repairs.

| module | what stock Chainlit does | upstream |
|---|---|---|
| `route_order` | a route added after Chainlit's catch-all `/{full_path:path}` is never reached | #1819 |
| `data_layer` | SQLite cannot bind the tags Chainlit writes; concurrent writes wait in SQLite's busy loop; two thumbs rows per message; a rename puts old metadata back | #2528 |
| `element_store` | the SQLAlchemy data layer drops elements without a cloud blob store | #1576 |
| `feedback_owner` | `PUT`/`DELETE /feedback` rate any user's message | — |
| `session_router` | session-bound HTTP calls fail on an instance that does not hold the socket | #592, #2596 |
| `action_route` | a click naming a session whose socket is not (re)connected yet is a bare 500 `Session not found`, or runs with its answer sent to a dead socket | — (issue 24) |
| `reconnect_resume` | a socket reconnect re-shows the thread from a database copy read while a turn still runs: the page loses the turn, or the history, or shows two prompts | — (issue 24) |
| `edge` | the password callback cannot answer 429 nor see the client's address; cookies not `Secure` behind HTTPS | — |
| `translations` | the footer says "LLMs can make mistakes" when no model runs | — |

The pending-prompt restore after a resume (Chainlit #2611, #2477) lives with the prompts it
restores, in `chatbot.ui.pending`. Each module's tests fail when its repair is taken out, so a
Chainlit upgrade shows which ones can go.
"""
