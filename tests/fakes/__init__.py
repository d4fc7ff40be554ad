"""Hand-written fakes for tests: loopback servers that speak real wire formats."""
