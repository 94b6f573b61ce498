"""kb_update package."""
