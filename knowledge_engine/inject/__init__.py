"""inject."""
