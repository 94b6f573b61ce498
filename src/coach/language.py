"""The coach speaks the person's language: EN/FR detection comes from the kit."""

from relais.language import Language, conversation_language, detect_language

__all__ = ["Language", "conversation_language", "detect_language"]
