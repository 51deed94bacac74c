"""Checking: a compiled schema's `check` (the verdict on one call's arguments), its refusal
text, its casts, and the cache of compiled schemas."""
