"""Real servers for tests: uvicorn on 127.0.0.1 in a background thread (see `relais.serving`)."""

from relais.serving import serve

__all__ = ["serve"]
