"""coach package."""
