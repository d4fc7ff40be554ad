"""`coach.config.json`: the schema, its defaults, loading and saving, with errors that name the key.

The file at the repository root is the documented default; it is exactly what
`default_config_text()` writes (a test keeps the two the same).
"""

from __future__ import annotations

import difflib
import ipaddress
import json
import shutil
import stat
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from coach_gui.domain.errors import ConfigError
from coach_gui.paths import CONFIG_FILE_NAME as CONFIG_FILE_NAME
from coach_gui.paths import MAX_CONFIG_BYTES as MAX_CONFIG_BYTES
from coach_gui.paths import config_file


class _Section(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        populate_by_name=True,
        validate_default=True,
        allow_inf_nan=False,
    )


LOCALHOST_ADDRESS = "127.0.0.1"


def loopback_address(host: str) -> str | None:
    """The loopback IP address Coach connects to for `host`, or None when `host` is not
    loopback. Coach connects by address only (issue 21): an IP literal in 127.0.0.0/8 or
    ::1, or the name `localhost` (any case), which means 127.0.0.1 without asking any
    resolver, so neither DNS nor a hosts-file line can send a request elsewhere. Anything
    else that would reach a resolver — `localhost.`, `127.0.0.1.`, other names — is not
    loopback, and neither is an address with a zone id."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if bare.lower() == "localhost":
        return LOCALHOST_ADDRESS
    if "%" in bare:
        return None
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return None
    return str(address) if address.is_loopback else None


def is_loopback_host(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1, the only hosts Tier 1 may talk to."""
    return loopback_address(host) is not None


def _host_as_written(url: str) -> str:
    """urlsplit lowercases and unbrackets the host; this is it as the URL has it."""
    netloc = urlsplit(url).netloc.rsplit("@", 1)[-1]
    if netloc.startswith("["):
        return netloc[: netloc.find("]") + 1] if "]" in netloc else netloc
    return netloc.rsplit(":", 1)[0] if ":" in netloc else netloc


def check_loopback_url(url: str) -> str:
    """`url` unchanged when it is an http(s) URL to a loopback host; otherwise ValueError."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        given = f"not “{url}”" if url.strip() else "it is empty"
        raise ValueError(f"must be an http:// address such as http://127.0.0.1:11434; {given}")
    host = _host_as_written(url)
    if not is_loopback_host(host):
        raise ValueError(
            "Ollama must run on this computer: use localhost, 127.0.0.1 or [::1] "
            f"as its address, with no dot at the end, not “{host}”"
        )
    try:
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as exc:
        raise ValueError(f"has a bad port ({url!r})") from exc
    return url


class KnowledgeBaseConfig(_Section):
    path: str | None = Field(
        default=None,
        description="Folder of Markdown notes; null means <data>/kb.",
    )
    new_notes_folder: str | None = Field(
        default=None,
        alias="newNotesFolder",
        description=(
            "Where new notes go, relative to the notes folder (as Obsidian's 'Default "
            "location for new notes'); null means the folder of the note open."
        ),
    )


class Tier1Config(_Section):
    # Which wire format the local model server speaks (DESIGN §5, issue 31): Ollama's own
    # API, or OpenAI's (LM Studio, llama.cpp's llama-server, Jan, vLLM, GPT4All, Ollama's /v1).
    server: Literal["ollama", "openai"] = "ollama"
    # The server's loopback address; "url" and its old name "ollamaUrl" are both read.
    ollama_url: str = Field(default="http://127.0.0.1:11434", alias="ollamaUrl")
    model: str = Field(default="llama3.2:3b", min_length=1)
    temperature: float = Field(default=0.7, ge=0.0, le=2.0)
    seed: int | None = None
    keep_alive: str = Field(default="10m", alias="keepAlive", min_length=1)
    connect_timeout_seconds: float = Field(default=2.0, gt=0, le=60, alias="connectTimeoutSeconds")
    read_timeout_seconds: float = Field(default=120.0, gt=0, le=3600, alias="readTimeoutSeconds")
    challenges_per_session: int = Field(default=3, ge=1, le=20, alias="challengesPerSession")
    follow_ups: bool = Field(default=True, alias="followUps")
    max_regenerations: int = Field(default=2, ge=0, le=10, alias="maxRegenerations")

    @model_validator(mode="before")
    @classmethod
    def _url_by_either_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and "url" in data:
            data = dict(data)
            url = data.pop("url")
            if "ollamaUrl" in data and data["ollamaUrl"] != url:
                raise ValueError(
                    "give the server's address once, as url (ollamaUrl is its old name)"
                )
            data["ollamaUrl"] = url
        return data

    @field_validator("ollama_url")
    @classmethod
    def _loopback_only(cls, value: str) -> str:
        return check_loopback_url(value)

    @property
    def url(self) -> str:
        return self.ollama_url


def local_model_name(model: str) -> str:
    """How a verdict, the outbox and a report name a model on this computer."""
    return f"local:{model}"


class JudgeConfig(_Section):
    enabled: bool = True
    include_assertions: bool = Field(default=True, alias="includeAssertions")
    # Which judge grades: Google Gemini, or a model on this computer (Ollama at
    # tier1.ollamaUrl, loopback only), for learners who want nothing to leave (issue 22).
    provider: Literal["gemini", "local"] = "gemini"
    local_model: str = Field(default="qwen2.5:7b", min_length=1, alias="localModel")
    local_timeout_seconds: float = Field(default=300.0, gt=0, le=3600, alias="localTimeoutSeconds")
    local_batch_size: int = Field(default=1, ge=1, le=4, alias="localBatchSize")
    model: str = Field(default="gemini-2.5-flash", min_length=1)
    base_url: str | None = Field(default=None, alias="baseUrl")
    api_version: str = Field(default="v1beta", alias="apiVersion", pattern=r"^v[0-9a-z]+$")
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    # Gemini's `seed` (null: the service picks one) and thinking budget in tokens (null:
    # the model's default; 0 switches thinking off where the model allows; -1 lets the
    # model decide). Both are sent as configured, recorded in the outbox with each request
    # and sealed in each session's config digest.
    seed: int | None = Field(default=None, ge=0, le=2**31 - 1)
    thinking_budget: int | None = Field(default=None, ge=-1, le=32768, alias="thinkingBudget")
    timeout_seconds: float = Field(default=30.0, gt=0, le=600, alias="timeoutSeconds")
    max_retries: int = Field(default=2, ge=0, le=10, alias="maxRetries")
    review_payloads: bool = Field(default=False, alias="reviewPayloads")
    # What an answer must show for a key point to count as explained (issue 36): said in
    # the judge's instructions, sealed in each session's config digest.
    strictness: Literal["lenient", "standard", "strict"] = "standard"

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        """https:// anywhere, or http:// to this computer only (a test or local server):
        the payload and the key never travel in clear text over a network (issue 21)."""
        if value is None:
            return None
        if any(ch.isspace() or not ch.isprintable() for ch in value):
            raise ValueError(f"must not contain spaces or control characters (got {value!r})")
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"must be an https:// URL or null (got {value!r})")
        try:
            parts.hostname.encode("idna")
            parts.port  # noqa: B018 - raises ValueError on a malformed port
        except (UnicodeError, ValueError):
            raise ValueError(
                f"has a host name or port that cannot be used (got {value!r})"
            ) from None
        if parts.scheme == "http" and not is_loopback_host(_host_as_written(value)):
            raise ValueError(
                "must be https:// (plain http:// would send your answers and the key in "
                f"clear text); http:// is only for a server on this computer (got {value!r})"
            )
        return value

    def endpoint(self) -> str:
        """Where judge requests go, as the learner should see it."""
        if self.provider == "local":
            return f"this computer ({self.local_model} on Ollama)"
        return self.base_url or "https://generativelanguage.googleapis.com (Google Gemini)"

    @property
    def local(self) -> bool:
        """The judge runs on this computer: nothing leaves it."""
        return self.provider == "local"

    @property
    def sent_thinking_budget(self) -> int | None:
        """The thinking budget the judge is given: Gemini's; none for the local judge."""
        return None if self.local else self.thinking_budget

    @property
    def judge_model(self) -> str:
        """The model that grades, as verdicts, the outbox and reports name it."""
        return local_model_name(self.local_model) if self.local else self.model


class NoQuoteConfig(_Section):
    max_shared_words: int = Field(default=6, ge=2, le=50, alias="maxSharedWords")
    max_containment: float = Field(default=0.5, gt=0.0, le=1.0, alias="maxContainment")
    shingle_words: int = Field(default=3, ge=1, le=10, alias="shingleWords")


class ScheduleConfig(_Section):
    # The chance of recalling an assertion when it falls due (FSRS): higher, more reviews.
    desired_retention: float = Field(default=0.9, ge=0.7, le=0.99, alias="desiredRetention")
    # Notes never practised that Today brings in per day, and in which order (issue 19).
    new_per_day: int = Field(default=5, ge=0, le=500, alias="newPerDay")
    new_order: Literal["oldest", "newest", "file", "random"] = Field(
        default="oldest", alias="newOrder"
    )
    # An assertion forgotten this many times is a leech: flagged, worth rewording.
    leech_lapses: int = Field(default=4, ge=1, le=100, alias="leechLapses")


class JournalConfig(_Section):
    # Backups of the journal kept in <data>/backups (daily, before migrations and restores).
    keep_backups: int = Field(default=7, ge=1, le=365, alias="keepBackups")


class SyncConfig(_Section):
    # A folder the learner's own sync tool carries (issue 20, ADR 0027); null: sync is off.
    folder: str | None = Field(
        default=None,
        description="Folder your sync tool carries to your other computers; null: off.",
    )

    @field_validator("folder")
    @classmethod
    def _full_path(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.strip() or any(not ch.isprintable() for ch in value):
            raise ValueError("must be the full path of a folder, or empty to sync nothing")
        if not Path(value).expanduser().is_absolute():
            raise ValueError(
                f"must be the full path of a folder, such as ~/Sync/coach (got {value!r})"
            )
        return value

    def path(self) -> Path | None:
        return None if self.folder is None else Path(self.folder).expanduser()


class Config(_Section):
    kb: KnowledgeBaseConfig = KnowledgeBaseConfig()
    tier1: Tier1Config = Tier1Config()
    judge: JudgeConfig = JudgeConfig()
    no_quote: NoQuoteConfig = Field(default=NoQuoteConfig(), alias="noQuote")
    schedule: ScheduleConfig = ScheduleConfig()
    journal: JournalConfig = JournalConfig()
    sync: SyncConfig = SyncConfig()

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def with_changes(self, changes: dict[str, Any]) -> Config:
        """A validated copy with dotted-key `changes` (``{"judge.enabled": False}``)."""
        data = self.to_json_dict()
        for dotted, value in changes.items():
            section, _, key = dotted.partition(".")
            data[section][key] = value
        return parse_config(json.dumps(data))


# Each setting as Settings and the learner name it: a message in the window names the
# setting this way, never by its key (a test keeps one name for every key).
SECTION_NAMES = {
    "kb": "Notes",
    "tier1": "Local model",
    "judge": "Judge",
    "noQuote": "No-quote check",
    "schedule": "Schedule",
    "journal": "Practice journal",
    "sync": "Sync",
}
SETTING_NAMES = {
    "kb.path": "Notes folder",
    "kb.newNotesFolder": "Folder for new notes",
    "tier1.server": "Local model server",
    "tier1.ollamaUrl": "Local server address",
    "tier1.model": "Local model",
    "tier1.temperature": "Local model temperature",
    "tier1.seed": "Local model seed",
    "tier1.keepAlive": "How long Ollama keeps the model loaded",
    "tier1.connectTimeoutSeconds": "Connect timeout",
    "tier1.readTimeoutSeconds": "Read timeout",
    "tier1.challengesPerSession": "Challenges per session",
    "tier1.followUps": "Follow-up challenges",
    "tier1.maxRegenerations": "Tries at a challenge that does not quote the note",
    "judge.enabled": "Judge answers",
    "judge.includeAssertions": "Send core assertions to the judge",
    "judge.strictness": "How strictly the judge grades",
    "judge.provider": "Who grades",
    "judge.localModel": "Local judge model",
    "judge.localTimeoutSeconds": "Local judge time limit",
    "judge.localBatchSize": "Answers the local judge grades at once",
    "judge.model": "Gemini model",
    "judge.baseUrl": "Judge address",
    "judge.apiVersion": "Gemini API version",
    "judge.temperature": "Judge temperature",
    "judge.seed": "Judge seed",
    "judge.thinkingBudget": "Judge thinking budget",
    "judge.timeoutSeconds": "Gemini timeout",
    "judge.maxRetries": "Judge retries",
    "judge.reviewPayloads": "Review each payload before it is sent",
    "noQuote.maxSharedWords": "Longest shared run",
    "noQuote.maxContainment": "Most overlap allowed",
    "noQuote.shingleWords": "Word group size",
    "schedule.desiredRetention": "Desired retention",
    "schedule.newPerDay": "New notes per day",
    "schedule.newOrder": "Order of new notes",
    "schedule.leechLapses": "Flag a key point after this many misses",
    "journal.keepBackups": "Backups kept",
    "sync.folder": "Sync folder",
}


def setting_name(key: str) -> str | None:
    """The learner's name for a dotted key (a whole section reads "the Judge part")."""
    if key in SETTING_NAMES:
        return SETTING_NAMES[key]
    section = SECTION_NAMES.get(key)
    return f"The {section} part" if section else None


def _unknown_entry(loc: tuple[int | str, ...]) -> str:
    section = SECTION_NAMES.get(str(loc[0])) if len(loc) > 1 else None
    where = f" in its {section} part" if section else ""
    return (
        f"The settings file has an entry Coach does not know{where}. Remove it or check "
        "its spelling, or reset the settings to the defaults; the log file names the entry."
    )


def default_config_text() -> str:
    return json.dumps(Config().to_json_dict(), indent=2, ensure_ascii=False) + "\n"


def _dotted(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc) or "(top level)"


def _known_keys(loc: tuple[int | str, ...]) -> list[str]:
    model: type[BaseModel] = Config
    for part in loc[:-1]:
        field = next((f for name, f in model.model_fields.items() if part in (name, f.alias)), None)
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return []
        model = annotation
    return [f.alias or name for name, f in model.model_fields.items()]


def _message(error: dict[str, Any]) -> str:
    kind = error["type"]
    loc = tuple(error["loc"])
    got = error.get("input")
    if kind == "extra_forbidden":
        close = difflib.get_close_matches(str(loc[-1]), _known_keys(loc), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown key{hint}; remove it or check its spelling"
    text = str(error["msg"])
    text = text.removeprefix("Value error, ")
    if kind in ("model_type", "model_attributes_type", "dict_type"):  # names our classes
        return f"must be a group of settings in braces, {{...}} (got {json.dumps(got)})"
    if kind.endswith("_type"):
        return f"{text.lower()} (got {json.dumps(got)})"
    if isinstance(got, (str, int, float, bool)) or got is None:
        return f"{text} (got {json.dumps(got)})" if "(got" not in text else text
    return text


def parse_config(text: str, *, path: str | None = None) -> Config:
    """Validate the JSON text of a config file; ConfigError names the first bad key."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix the file or reset it to the defaults",
            path=path,
        ) from None
    except RecursionError:  # nesting deeper than the parser can follow
        raise ConfigError(
            "is nested too deeply to be a Coach config; fix the file or reset it to the defaults",
            path=path,
        ) from None
    except ValueError:  # e.g. a number of thousands of digits
        raise ConfigError(
            "holds a value too large to read (a number with thousands of digits?); fix the "
            "file or reset it to the defaults",
            path=path,
        ) from None
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object ({...})", path=path)
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc, key = tuple(first["loc"]), _dotted(tuple(first["loc"]))
        raise ConfigError(
            _message(dict(first)),
            key=key,
            path=path,
            label=setting_name(key),
            learner=_unknown_entry(loc) if first["type"] == "extra_forbidden" else None,
        ) from None


def config_path() -> Path:
    """`COACH_CONFIG` if set, else coach.config.json in the user's config folder."""
    return config_file()


def load_config(path: Path | None = None, *, create: bool = True) -> Config:
    """Load the config; on first run write the defaults there and return them."""
    from coach_gui.files import NotARegularFile, read_limited

    path = path or config_path()
    try:
        raw = read_limited(path, MAX_CONFIG_BYTES)  # never a pipe's or a device's endless read
    except FileNotFoundError:
        if not create:
            raise ConfigError("file not found", path=str(path)) from None
        save_config(Config(), path)
        return Config()
    except NotARegularFile as exc:
        raise ConfigError(
            f"is {exc.kind}, not a settings file; point COACH_CONFIG at a file, or unset it "
            "to use the usual one",
            path=str(path),
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot be read ({exc.strerror})", path=str(path)) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"is over {MAX_CONFIG_BYTES // 1_000_000} MB, far more than Coach's settings "
            "(a few kilobytes); reset it to the defaults",
            path=str(path),
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError("is not UTF-8 text; reset it to the defaults", path=str(path)) from None
    return parse_config(text, path=str(path))


def save_config(config: Config, path: Path | None = None) -> Path:
    """Write the config atomically (temp file, fsync, replace)."""
    from coach_gui.files import atomic_write

    path = path or config_path()
    text = json.dumps(config.to_json_dict(), indent=2, ensure_ascii=False) + "\n"
    atomic_write(path, text.encode("utf-8"))
    return path


def reset_config(path: Path | None = None) -> Path:
    """Replace the config with the defaults, keeping the old file as ``.bak`` next to it."""
    path = path or config_path()
    if path.exists() and stat.S_ISREG(path.stat().st_mode):  # a pipe or a device holds none
        # Whole, however big, and copied in pieces: a file over the read limit may be one
        # COACH_CONFIG named by mistake, and it is the learner's.
        shutil.copyfile(path, path.with_suffix(path.suffix + ".bak"))
    return save_config(Config(), path)
