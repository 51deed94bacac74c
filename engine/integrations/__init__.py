"""Whole-turn gates inside the frameworks hosts build agents with: one module per framework,
each an optional extra, each using only the framework's public API and turngate's."""
