"""Pure rules and records: no I/O, no Qt, nothing of ours but the domain itself."""
