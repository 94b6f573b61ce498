"""Logging set-up with a filter that scrubs configured secrets from every record."""

from __future__ import annotations

import logging
from typing import Iterable

REDACTED = "***"


class SecretScrubber(logging.Filter):
    """Replaces any configured secret value in a record's message and arguments."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            record.msg = self.scrub(record.getMessage())
            record.args = None
            if record.exc_text:
                record.exc_text = self.scrub(record.exc_text)
        return True


def configure_logging(level: str = "INFO", secrets: Iterable[str] = ()) -> SecretScrubber:
    """Root logging with secret scrubbing on every handler (idempotent)."""
    scrubber = SecretScrubber(secrets)
    root = logging.getLogger()
    if not root.handlers:
        logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    root.setLevel(level)
    for handler in root.handlers:
        for old in [f for f in handler.filters if isinstance(f, SecretScrubber)]:
            handler.removeFilter(old)
        handler.addFilter(scrubber)
    return scrubber
