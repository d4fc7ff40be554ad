"""Use cases over ports. Imports the domain, never adapters or the GUI."""
