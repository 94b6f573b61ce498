"""debate package."""
