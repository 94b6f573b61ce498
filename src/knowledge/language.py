"""Language helpers of the knowledge base: the kit's EN/FR guess and accent folding."""

from relais.language import Language, detect_language, fold_accents, words

__all__ = ["Language", "detect_language", "fold_accents", "words"]
