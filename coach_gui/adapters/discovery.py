"""Finding the local model servers already running on this computer (issue 31): each
runtime's default port on loopback, asked what it is and which models it serves, with no
learner data. Used by the Welcome and Settings (`ui/settings/server_finder.py`), off the GUI thread.

Only 127.0.0.1 is ever contacted, with the same clients (and rules: no proxy, no redirect)
as practice uses. A port where nothing listens is simply not found; a server that answers
but cannot be used yet is found with a sentence saying what to do there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from coach_gui.adapters.ollama import OllamaClient
from coach_gui.adapters.openai_compat import OpenAIClient
from coach_gui.domain.local_servers import DEFAULT_CANDIDATES, Candidate, FoundServer
from coach_gui.domain.tier1_errors import OllamaNotRunning, ServerKeyRefused, Tier1Error


def probe(candidate: Candidate, *, timeout: float = 1.5) -> FoundServer | None:
    """What answers at `candidate`'s address; None when nothing listens there."""
    kind = OpenAIClient if candidate.wire == "openai" else OllamaClient
    name, url = candidate.name, candidate.url
    try:
        with kind(url, connect_timeout=timeout, read_timeout=timeout) as client:
            models = tuple(client.models())
    except OllamaNotRunning:  # (ServerNotRunning too): nothing listens there
        return None
    except ServerKeyRefused:
        return FoundServer(name, url, candidate.wire, problem=(
            f"{name} is running at {url} but wants a key: copy it from {name}'s settings "
            "(Local API Server) and store it with `coach key set --local-server`"))  # fmt: skip
    except Tier1Error:
        return FoundServer(name, url, candidate.wire, problem=(
            f"Something answers at {url}, {name}'s usual address, but not as {name} does: "
            f"if it is {name}, restart it; otherwise give its address in Settings"))  # fmt: skip
    if not models:
        return FoundServer(name, url, candidate.wire, problem=(
            f"{name} is running at {url} but no model is loaded: "
            f"{candidate.load_a_model}"))  # fmt: skip
    return FoundServer(name, url, candidate.wire, models)


def find_servers(
    candidates: Sequence[Candidate] = DEFAULT_CANDIDATES,
    *,
    cancelled: Callable[[], bool] = lambda: False,
    timeout: float = 1.5,
) -> list[FoundServer]:
    """Every candidate that answered, in the candidates' order (a cancel stops early)."""
    found: list[FoundServer] = []
    for candidate in candidates:
        if cancelled():
            break
        server = probe(candidate, timeout=timeout)
        if server is not None:
            found.append(server)
    return found
