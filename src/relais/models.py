"""The model seam: which chat model answers, chosen by settings.

- `MISTRAL_API_KEY` set → `ChatMistralAI` (`MISTRAL_MODEL`, temperature 0);
- `RELAIS_MODEL=provider:model` → `init_chat_model` (any LangChain provider installed);
- neither → the offline engine: `chat_model()` returns None and each feature answers with
  its offline strategy (extractive RAG, nearest-example intents, the coach's rule tools).

Tests inject a `ScriptedChatModel` wherever a model is accepted.

One retry budget per call: every caller retries through `relais.retry.RetryPolicy` (tenacity,
`LLM_MAX_RETRIES` attempts in all), so the provider client's own retries are switched off here
(`max_retries=0`). Left on, they would multiply: 3 tenacity attempts × 3 client attempts.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain.chat_models import init_chat_model
from langchain_core.language_models import BaseChatModel

from relais.settings import Settings, get_settings

OFFLINE = "offline"
# init_chat_model providers whose client retries on its own (`max_retries`): set to 0 here
PROVIDERS_WITH_OWN_RETRIES = frozenset(
    {"openai", "azure_openai", "anthropic", "mistralai", "groq", "fireworks", "together", "xai", "deepseek",
     "google_genai", "perplexity"}
)


class ModelNotConfigured(RuntimeError):
    """Raised where a feature needs a generative model and none is configured."""

    HOW_TO = (
        "This needs a generative model. Set MISTRAL_API_KEY (Mistral, default model "
        "mistral-small-latest) or RELAIS_MODEL=provider:model (any LangChain provider, e.g. "
        "openai:gpt-4o-mini with its key) in .env, then restart."
    )

    def __init__(self, what: str = "This feature") -> None:
        super().__init__(f"{what}: {self.HOW_TO}")


@dataclass(frozen=True)
class EngineInfo:
    """Which engine answers, as shown discreetly in the UI and in `--json` output."""

    kind: str  # "mistral" | "init_chat_model" | "offline"
    model: str

    @property
    def label(self) -> str:
        return OFFLINE if self.kind == OFFLINE else f"{self.kind}:{self.model}"


def engine_info(settings: Settings | None = None, model_name: str | None = None) -> EngineInfo:
    settings = settings or get_settings()
    if model_name:
        return EngineInfo("init_chat_model", model_name)
    if settings.mistral_api_key is not None:
        return EngineInfo("mistral", settings.mistral_model)
    if settings.relais_model:
        return EngineInfo("init_chat_model", settings.relais_model)
    return EngineInfo(OFFLINE, OFFLINE)


def is_offline(settings: Settings | None = None) -> bool:
    return engine_info(settings).kind == OFFLINE


def chat_model(
    settings: Settings | None = None,
    *,
    model_name: str | None = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> BaseChatModel | None:
    """A LangChain chat model per settings (or `model_name`), or None for the offline engine."""
    settings = settings or get_settings()
    info = engine_info(settings, model_name)
    temp = settings.relais_temperature if temperature is None else temperature
    if info.kind == OFFLINE:
        return None
    if info.kind == "mistral":
        from langchain_mistralai import ChatMistralAI  # lazy: +2.9 s, only for the Mistral provider

        return ChatMistralAI(
            model=info.model,
            api_key=settings.mistral_api_key,
            temperature=temp,
            max_tokens=max_tokens,
            timeout=int(settings.llm_timeout_s),
            max_retries=0,  # the caller's RetryPolicy is the one retry budget
        )
    kwargs: dict = {"temperature": temp, "timeout": settings.llm_timeout_s}
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    if info.model.split(":", 1)[0] in PROVIDERS_WITH_OWN_RETRIES:
        kwargs["max_retries"] = 0  # the caller's RetryPolicy is the one retry budget
    if info.model.startswith("mistralai:") and settings.mistral_api_key is not None:
        kwargs["api_key"] = settings.mistral_api_key
    return init_chat_model(info.model, **kwargs)


def require_chat_model(what: str, settings: Settings | None = None, **kwargs: object) -> BaseChatModel:
    """Like `chat_model`, but raises `ModelNotConfigured` with how-to text when offline."""
    model = chat_model(settings, **kwargs)  # type: ignore[arg-type]
    if model is None:
        raise ModelNotConfigured(what)
    return model
