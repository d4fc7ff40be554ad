"""Fixtures for integration tests: loopback servers that speak real wire formats."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes.ollama_server import FakeOllama


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A fake Ollama on 127.0.0.1 with the default model installed; stopped afterwards."""
    with FakeOllama() as server:
        yield server
