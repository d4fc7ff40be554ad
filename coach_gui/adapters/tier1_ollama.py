"""The `Tier1Model` port over Ollama: the configured model, its options, its schema."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from coach_gui.adapters.ollama import ChatStream, OllamaClient

# Tokens: a 1,000-character challenge in JSON is ~300 in English, up to ~1,500 in scripts a
# tokenizer splits finely (CJK, Indic); the stream is cut at the length limit anyway.
NUM_PREDICT = 2048


class OllamaTier1:
    def __init__(
        self,
        client: OllamaClient,
        model: str,
        *,
        temperature: float,
        seed: int | None,
        keep_alive: str,
    ) -> None:
        self._client = client
        self._model = model
        # num_predict: the model stops by itself well before a reply could outgrow the
        # longest challenge allowed (the stream is also cut there, issue 21).
        self._options: dict[str, Any] = {"temperature": temperature, "num_predict": NUM_PREDICT}
        if seed is not None:
            self._options["seed"] = seed
        self._keep_alive = keep_alive

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def client(self) -> OllamaClient:
        return self._client

    def stream(
        self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, Any]
    ) -> ChatStream:
        return self._client.chat_stream(
            self._model,
            messages,
            format_schema=schema,
            options=self._options,
            keep_alive=self._keep_alive,
        )

    def cancel(self) -> None:
        self._client.cancel()

    def close(self) -> None:
        self._client.close()
