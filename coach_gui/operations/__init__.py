"""Each use case once, for the window and the terminal alike (no Qt; ADR 0018)."""
