"""The `coach` sub-commands, one module each; `cli.py` parses and dispatches."""
