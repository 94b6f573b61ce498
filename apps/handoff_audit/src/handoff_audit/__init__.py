"""handoff_audit package."""
