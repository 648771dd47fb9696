"""curves."""
