"""Errors of Tier 1 (challenges written by the local Ollama model).

Defined in the domain so that services can catch them without importing the adapter.
Each message says what happened and what to do next.
"""

from __future__ import annotations

from coach_gui.domain.errors import CoachError, ConfigError

_FALLBACK = "you can practise with the built-in challenges meanwhile"


class Tier1Error(CoachError):
    """Tier 1 could not write a challenge or follow-up."""


class Tier1Unavailable(Tier1Error):
    """Tier 1 cannot be used until the learner fixes something: offer built-in challenges."""


class OllamaNotRunning(Tier1Unavailable):
    """Nothing answers at the configured Ollama URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        super().__init__(
            f"Ollama is not running at {url} — start it (run “ollama serve” in a terminal); "
            f"{_FALLBACK}."
        )


class ModelMissing(Tier1Unavailable):
    """Ollama runs but does not have the configured model (HTTP 404)."""

    def __init__(self, model: str) -> None:
        self.model = model
        super().__init__(
            f"The model '{model}' is not installed in Ollama — run `ollama pull {model}` "
            f"(or use Download model); {_FALLBACK}."
        )


class ModelPullFailed(Tier1Error):
    """Ollama could not download a model."""

    def __init__(self, model: str, detail: str) -> None:
        self.model = model
        self.detail = detail
        super().__init__(
            f"Ollama could not download '{model}': {detail}. Check the model name "
            "(Local model, in Settings) and the internet connection, then try again."
        )


class OllamaNotLoopback(ConfigError, Tier1Unavailable):
    """The Ollama URL is not on this computer; Coach never sends a note anywhere else."""

    def __init__(self, url: str) -> None:
        self.url = url
        super().__init__(
            "Ollama must run on this computer, so Coach refuses to contact "
            f"{url}: set it to http://127.0.0.1:11434 (or another localhost address)",
            key="tier1.ollamaUrl",
            label="Local server address",
        )


class OllamaTimeout(Tier1Error):
    """Ollama accepted the request but did not answer in time."""

    def __init__(self, url: str, seconds: float) -> None:
        self.url = url
        self.seconds = seconds
        super().__init__(
            f"Ollama at {url} did not answer within {seconds:g} s (it may still be loading "
            "the model). Try again; if it keeps happening, allow it more time (Read "
            "timeout, in Settings) or choose a smaller model."
        )


class OllamaServerError(Tier1Error):
    """Ollama answered with an error (an HTTP error status or an error line mid-stream)."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(
            f"Ollama reported an error: {detail}. Try again; if it keeps happening, "
            "restart Ollama (“ollama serve”) and look at its log."
        )


class StreamCut(Tier1Error):
    """The reply stream ended before Ollama said it was done."""

    def __init__(self) -> None:
        super().__init__(
            "The connection to Ollama closed before the reply was finished. Try again; "
            "if it keeps happening, restart Ollama (“ollama serve”)."
        )


class InvalidOllamaReply(Tier1Error):
    """Ollama sent something that is not the JSON it documents."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(
            f"Ollama sent a reply Coach cannot read ({detail}). Try again; if it keeps "
            "happening, update Ollama or check that the Local server address in Settings is "
            "Ollama's."
        )


class InvalidChallengeReply(Tier1Error):
    """The model's reply was not the JSON challenge it was asked for."""

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(
            f"The local model did not write a usable challenge ({detail}). Try again; if it "
            "keeps happening, choose another model in Settings."
        )


class GenerationCancelled(Tier1Error):
    """The learner cancelled generation; whatever was streamed so far is discarded."""

    def __init__(self) -> None:
        super().__init__("Generation was cancelled.")


class ServerNotRunning(OllamaNotRunning):
    """Nothing answers at the configured OpenAI-compatible server's address."""

    def __init__(self, url: str) -> None:
        Tier1Unavailable.__init__(
            self,
            f"No model server answers at {url} — start it (LM Studio: Developer tab, Start "
            f"server; llama.cpp: run llama-server; Jan: Local API Server), or change Local "
            f"model server in Settings; {_FALLBACK}.",
        )
        self.url = url


class ServerModelMissing(ModelMissing):
    """The OpenAI-compatible server runs but does not serve the configured model."""

    def __init__(self, model: str, url: str) -> None:
        Tier1Unavailable.__init__(
            self,
            f"The model server at {url} has no model '{model}' loaded — load it there (in LM "
            f"Studio: the Developer tab), or choose one of its models in Settings; "
            f"{_FALLBACK}.",
        )
        self.model = model


# --- the same faults on an OpenAI-compatible server (issue 31): named as a model server, with
# what to do there, never "Ollama" to someone running LM Studio or llama.cpp. Subclasses, so
# every caller that handles the Ollama error handles these the same way.
_RESTART = "restart the model server (LM Studio, llama-server, Jan) and look at its log"


class ServerReportedError(OllamaServerError):
    def __init__(self, detail: str) -> None:
        Tier1Error.__init__(
            self, f"The model server reported an error: {detail}. Try again; if it keeps "
            f"happening, {_RESTART}."
        )  # fmt: skip
        self.detail = detail


class ServerStreamCut(StreamCut):
    def __init__(self) -> None:
        Tier1Error.__init__(
            self, "The connection to the model server closed before the reply was finished. "
            f"Try again; if it keeps happening, {_RESTART}."
        )  # fmt: skip


class ServerInvalidReply(InvalidOllamaReply):
    def __init__(self, detail: str) -> None:
        Tier1Error.__init__(
            self, f"The model server sent a reply Coach cannot read ({detail}). Try again; "
            "if it keeps happening, check that the Local server address in Settings "
            "is the server's."
        )  # fmt: skip
        self.detail = detail


class ServerTimeout(OllamaTimeout):
    def __init__(self, url: str, seconds: float) -> None:
        Tier1Error.__init__(
            self, f"The model server at {url} did not answer within {seconds:g} s (it may "
            "still be loading the model). Try again; if it keeps happening, allow it more "
            "time (Read timeout, in Settings) or choose a smaller model."
        )  # fmt: skip
        self.url = url
        self.seconds = seconds


def in_server_words(error: Tier1Error) -> Tier1Error:
    """`error` as said for an OpenAI-compatible server rather than for Ollama."""
    if isinstance(error, (ServerReportedError, ServerStreamCut, ServerInvalidReply,
                          ServerTimeout)):  # fmt: skip
        return error
    if isinstance(error, OllamaServerError):
        return ServerReportedError(error.detail)
    if isinstance(error, StreamCut):
        return ServerStreamCut()
    if isinstance(error, InvalidOllamaReply):
        return ServerInvalidReply(error.detail)
    if isinstance(error, OllamaTimeout):
        return ServerTimeout(error.url, error.seconds)
    return error


class ServerKeyRefused(Tier1Unavailable):
    """The OpenAI-compatible server wants a key (HTTP 401/403): Jan does, by default."""

    def __init__(self, url: str) -> None:
        super().__init__(
            f"The model server at {url} wants a key (in Jan: Settings, Local API Server, API "
            "key): store the same key with `coach key set --local-server`; "
            f"{_FALLBACK}."
        )
        self.url = url
