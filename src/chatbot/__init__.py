"""The Chainlit app only: handlers, one thin module per profile, the renderer of relais.events, admin pages, and every repair of Chainlit (chainlit_fixes)."""
