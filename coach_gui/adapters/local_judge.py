"""The judge on this computer (issue 22, `judge.provider: local`): the judge port over the
loopback Ollama, for learners who want nothing to leave.

It is held to the same rules as the Gemini judge (DESIGN §4): every payload is rebuilt
through `tier2_payload`, the prompt is the same fenced prompt, the reply must match the same
schema made for each request (`verdict_schema`, sent as Ollama's `format` or
OpenAI's `response_format`), the request body is written to the outbox
(marked `local`) before it is sent, and the reply is returned unparsed for the same verdict
rule. Ollama is reached only through `OllamaClient`, which refuses anything but loopback.
Every Ollama failure leaves as one of our `JudgeError`s, in the learner's words.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Final

from coach_gui.adapters.ollama import OllamaClient
from coach_gui.config import JudgeConfig, Tier1Config, local_model_name
from coach_gui.domain.connections import ConnectionCheck
from coach_gui.domain.errors import CoachError
from coach_gui.domain.fencing import new_boundary
from coach_gui.domain.judge_errors import (
    JudgeCancelled,
    JudgeDisabled,
    JudgeError,
    JudgeReplaced,
    JudgeTruncated,
    LocalJudgeUnavailable,
    MalformedVerdict,
)
from coach_gui.domain.tier1_errors import (
    GenerationCancelled,
    ModelMissing,
    OllamaNotRunning,
    OllamaServerError,
    OllamaTimeout,
    ServerModelMissing,
    ServerNotRunning,
    Tier1Error,
)
from coach_gui.domain.tier2 import (
    OutboxEntry,
    OutboxOutcome,
    Strictness,
    Tier2Payload,
    judge_prompt,
    revalidated,
    verdict_schema,
)
from coach_gui.domain.verdicts import JudgeResponse
from coach_gui.services.ports.judge import JudgeOutbox

log = logging.getLogger(__name__)
LOCAL: Final = "local"
# A verdict with assessments is long; the context must hold the whole prompt (the system
# instruction first: Ollama drops the start of a prompt that does not fit) and the reply.
NUM_PREDICT = 4096
NUM_CTX = 12288


class OllamaJudge:
    """One configured local judge. Safe to share between threads; build it in bootstrap."""

    def __init__(
        self,
        client: OllamaClient,
        *,
        model: str,
        temperature: float,
        seed: int | None,
        keep_alive: str,
        timeout_seconds: float,
        outbox: JudgeOutbox,
        include_assertions: bool | Callable[[], bool] = True,
        enabled_now: Callable[[], bool] | None = None,
        on_progress: Callable[[int], None] | None = None,
        strictness: Strictness = "standard",
        still_current: Callable[[], bool] | None = None,
    ) -> None:
        """`on_progress(characters)`: how much of the reply has streamed in so far (a
        local model may take tens of seconds per answer). `enabled_now` and
        `still_current` (another judge was chosen) are read before and again just before
        each request is sent, like the Gemini judge's."""
        self._client = client
        self.model = model
        self.temperature = temperature
        self.strictness: Strictness = strictness
        self.timeout_seconds = timeout_seconds
        self._options: dict[str, Any] = {
            "temperature": temperature,
            "num_predict": NUM_PREDICT,
            "num_ctx": NUM_CTX,
        }
        if seed is not None:
            self._options["seed"] = seed
        self._keep_alive = keep_alive
        self._outbox = outbox
        allowed = include_assertions
        self._include_assertions = allowed if callable(allowed) else (lambda: bool(allowed))
        self._enabled_now = enabled_now
        self._still_current = still_current
        self.on_progress = on_progress
        self._cancelled = threading.Event()

    @classmethod
    def from_config(
        cls,
        judge: JudgeConfig,
        tier1: Tier1Config,
        outbox: JudgeOutbox,
        *,
        include_assertions: bool | Callable[[], bool] | None = None,
        enabled_now: Callable[[], bool] | None = None,
        still_current: Callable[[], bool] | None = None,
        client: OllamaClient | None = None,
    ) -> OllamaJudge:
        """`client`: the configured model server in its wire format (bootstrap builds it);
        without one, Ollama at `tier1.url`."""
        if not judge.enabled:
            raise JudgeDisabled()
        if client is None:
            client = OllamaClient(
                tier1.url,
                connect_timeout=tier1.connect_timeout_seconds,
                read_timeout=judge.local_timeout_seconds,
            )
        return cls(
            client,
            model=judge.local_model,
            temperature=judge.temperature,
            seed=judge.seed,
            keep_alive=tier1.keep_alive,
            timeout_seconds=judge.local_timeout_seconds,
            outbox=outbox,
            strictness=judge.strictness,
            include_assertions=(
                judge.include_assertions if include_assertions is None else include_assertions
            ),
            enabled_now=enabled_now,
            still_current=still_current,
        )

    @property
    def judge_model(self) -> str:
        """How verdicts and the outbox name the model that grades: "local:<model>"."""
        return local_model_name(self.model)

    def close(self) -> None:
        self._client.close()

    def cancel(self) -> None:
        """Stop the request under way, and any later one (from any thread): they raise
        JudgeCancelled. A cancel that comes before a request starts is not lost."""
        self._cancelled.set()
        self._client.cancel()

    def _refuse_now(self) -> JudgeError | None:
        """Why nothing may be sent now, if anything."""
        if self._cancelled.is_set():
            return JudgeCancelled()
        if self._enabled_now is not None and not self._enabled_now():
            return JudgeDisabled()
        if self._still_current is not None and not self._still_current():
            return JudgeReplaced()
        return None

    # --- judging -----------------------------------------------------------------------------
    def judge(self, payload: Tier2Payload, *, boundary: str | None = None) -> JudgeResponse:
        """Grade one payload on the local model and return its raw reply, unparsed (apply
        `verdicts.parse_verdicts` to it). Raises PayloadRejected (nothing sent) or a
        JudgeError; a request that was sent is in the outbox either way."""
        refused = self._refuse_now()
        if refused is not None:
            raise refused
        checked = revalidated(payload, include_assertions=self._include_assertions())
        system, user = judge_prompt(checked, boundary or new_boundary(), self.strictness)
        try:  # an OpenAI-compatible server may be asked first how it takes a schema (a
            # probe with no learner data): a server down or without the model says so here
            stream = self._client.chat_stream(
                self.model,
                [{"role": "system", "content": system}, {"role": "user", "content": user}],
                format_schema=verdict_schema(checked),
                options=self._options,
                keep_alive=self._keep_alive,
            )
        except Tier1Error as error:
            raise self._translate(error) from None  # nothing of the answer was sent
        body = stream.request_body()
        refused = self._refuse_now()  # switched off, replaced or cancelled meanwhile
        if refused is not None:
            raise refused  # nothing was sent, so nothing is recorded
        outbox_id = self._outbox.record_sent(
            OutboxEntry(
                model=self.judge_model,
                payload=checked.canonical(),
                request_body=body,
                provider=LOCAL,
            )
        )
        started = time.perf_counter()
        failure: JudgeError | None = JudgeCancelled() if self._cancelled.is_set() else None
        try:
            if failure is None:
                for _piece in stream:
                    if self._cancelled.is_set():
                        raise GenerationCancelled()
                    if self.on_progress is not None:
                        self.on_progress(len(stream.text))
        except Tier1Error as error:
            failure = self._translate(error)
        finally:
            stream.close()
        latency_ms = round((time.perf_counter() - started) * 1000)
        stats = stream.stats
        if failure is None and stats is not None and stats.done_reason == "length":
            failure = JudgeTruncated()
        text = stream.text
        if failure is None and not text.strip():
            failure = MalformedVerdict("the judge sent an empty reply")
        self._outbox.record_outcome(
            outbox_id,
            OutboxOutcome(
                status="error" if failure else "ok",
                response=text or None,
                error=str(failure) if failure else None,
                tokens_in=stats.prompt_eval_count if stats else None,
                tokens_out=stats.eval_count if stats else None,
                latency_ms=latency_ms,
            ),
        )
        if failure is not None:
            failure.outbox_id = outbox_id
            raise failure
        return JudgeResponse(
            raw_text=text,
            model=self.judge_model,
            tokens_in=stats.prompt_eval_count if stats else None,
            tokens_out=stats.eval_count if stats else None,
            latency_ms=latency_ms,
            request_body=body,
            outbox_id=outbox_id,
        )

    def test_connection(self) -> ConnectionCheck:
        """Check that Ollama runs and has the judge model, sending no learner data."""
        started = time.perf_counter()
        try:
            present = self._client.has_model(self.model)
        except Tier1Error as error:
            raise self._translate(error) from None
        if not present:
            raise self._translate(ModelMissing(self.model))
        latency_ms = round((time.perf_counter() - started) * 1000)
        return ConnectionCheck(
            self.judge_model, latency_ms, f"Ollama has {self.model} on this computer"
        )

    def _translate(self, error: CoachError) -> JudgeError:
        log.info("local judge request failed: %s", type(error).__name__)
        if isinstance(error, GenerationCancelled):
            return JudgeCancelled()
        if isinstance(error, ServerNotRunning):  # an OpenAI-compatible server (issue 31)
            return LocalJudgeUnavailable(
                f"no model server answers at {error.url}; start it (LM Studio: Developer "
                "tab, Start server; llama.cpp: llama-server; Jan: Local API Server)"
            )
        if isinstance(error, ServerModelMissing):
            return LocalJudgeUnavailable(
                f"the model server has no model '{error.model}' loaded; load it there, or "
                "choose another judge model in Settings"
            )
        if isinstance(error, OllamaNotRunning):
            return LocalJudgeUnavailable(
                f"Ollama is not running at {error.url}; start it with `ollama serve`"
            )
        if isinstance(error, ModelMissing):
            return LocalJudgeUnavailable(
                f"the judge model '{error.model}' is not installed; run `ollama pull "
                f"{error.model}`, or choose another judge model in Settings"
            )
        if isinstance(error, OllamaTimeout):
            return LocalJudgeUnavailable(
                f"it did not answer within {self.timeout_seconds:g} s (a large model on a "
                "laptop can be slow); try a smaller judge model, or allow it more time "
                "(Local judge time limit, in Settings)"
            )
        if isinstance(error, OllamaServerError):  # Ollama's own words stay in its log
            return LocalJudgeUnavailable(
                "Ollama reported an error while grading (its log says why; a model too big "
                "for this computer's memory is a common one); try again, or choose a smaller "
                "judge model in Settings"
            )
        return LocalJudgeUnavailable("Ollama did not finish the reply; try again")
