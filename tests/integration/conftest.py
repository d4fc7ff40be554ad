"""Fixtures for integration tests: loopback servers that speak real wire formats."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fakes.gemini_server import FakeGemini
from fakes.ollama_server import FakeOllama


@pytest.fixture
def fake_ollama(wire: str) -> Iterator[FakeOllama]:
    """A fake local model server on 127.0.0.1 with the default model installed, speaking
    the wire format of the test's `wire` (both, unless a test asks for one); stopped
    afterwards."""
    with FakeOllama(wire=wire) as server:
        yield server


@pytest.fixture
def fake_gemini() -> Iterator[FakeGemini]:
    """A fake Gemini API on 127.0.0.1 that accepts the key "test-key"; stopped afterwards."""
    with FakeGemini(api_keys={"test-key"}) as server:
        yield server
