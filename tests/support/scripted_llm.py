"""A scripted stand-in for an LLM, in graphiti's LLM slot, so `Graphiti.add_episode` runs offline.

graphiti-core 0.31.1 asks its LLM, per episode: extract entities (`ExtractedEntities`), resolve them against
similar existing entities (`NodeResolutions`), extract facts (`ExtractedEdges`), date a fact that came without
dates (`EdgeTimestamps`), resolve each new fact against facts between the same entities and against other
similar facts, i.e. duplicates and contradictions (`EdgeDuplicate`), and summarise entities that got no new
fact (`SummarizedEntities`). `ScriptedLLM` answers each of these from a `Script`; anything else raises
`UnscriptedPrompt` naming the response model, so a graphiti upgrade that adds or renames a prompt fails loudly.

How an answer is keyed: by the `response_model` graphiti asks for, and by the episode:
- prompts that carry the episode text (entity extraction and resolution, fact extraction, summaries): the
  scripted episode whose content appears in the prompt; earlier episodes appear there too as context, so the
  latest one in script order wins (graphiti ingests one episode at a time, in order);
- prompts that carry only one fact (fact resolution, fact dating): the scripted fact with that exact text,
  which belongs to one episode.

graphiti swallows some LLM errors (a failed fact dating is only logged), so every failure is also kept in
`ScriptedLLM.failures`; a test asserts that list is empty.
"""

from __future__ import annotations

import ast
import contextvars
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import DEFAULT_MAX_TOKENS, LLMConfig, ModelSize
from graphiti_core.nodes import EpisodeType
from graphiti_core.prompts.dedupe_edges import EdgeDuplicate
from graphiti_core.prompts.dedupe_nodes import NodeDuplicate, NodeResolutions
from graphiti_core.prompts.extract_edges import Edge, EdgeTimestamps, ExtractedEdges
from graphiti_core.prompts.extract_nodes import (
    ExtractedEntities,
    ExtractedEntity,
    SummarizedEntities,
    SummarizedEntity,
)
from graphiti_core.prompts.models import Message
from pydantic import BaseModel

DEFAULT_ENTITY_TYPE_ID = 0  # graphiti's plain `Entity` type when no custom entity types are given


class UnscriptedPrompt(RuntimeError):
    """graphiti asked something the script does not answer (not retried: graphiti retries only rate-limit,
    empty-response and JSON errors)."""


@dataclass(frozen=True)
class ScriptedFact:
    """One fact the script extracts from its episode, and how the script resolves it."""

    source: str  # entity names, as extracted in the same episode
    target: str
    relation: str  # SCREAMING_SNAKE_CASE, graphiti's `name` of the edge
    fact: str  # unique across the script: fact-only prompts are keyed by it
    valid_at: str | None  # ISO 8601; None makes graphiti ask the fact-dating prompt, answered by `dated_at`
    invalid_at: str | None = None
    dated_at: str | None = None
    duplicate_of: tuple[str, ...] = ()  # texts of facts already in the graph that say the same thing
    contradicts: tuple[str, ...] = ()  # texts of facts already in the graph this one makes false


@dataclass(frozen=True)
class ScriptedEpisode:
    name: str
    content: str
    source: EpisodeType
    source_description: str
    reference_time: datetime
    entities: tuple[str, ...]  # extraction answer, in order (for a message, the speaker first)
    facts: tuple[ScriptedFact, ...] = ()
    duplicates: Mapping[str, str] = field(default_factory=dict)  # extracted name -> existing entity's name
    summaries: Mapping[str, str] = field(default_factory=dict)  # summary answers, by entity name


@dataclass(frozen=True)
class Script:
    episodes: tuple[ScriptedEpisode, ...]

    def __post_init__(self) -> None:
        times = [e.reference_time for e in self.episodes]
        if times != sorted(times) or len(set(times)) != len(times):
            raise ValueError("scripted episodes must have distinct reference times, in order")
        contents = [e.content for e in self.episodes]
        if len(set(contents)) != len(contents) or any(a in b for a in contents for b in contents if a is not b):
            raise ValueError("scripted episode contents must be distinct and none inside another")
        seen: set[str] = set()
        for episode in self.episodes:
            for fact in episode.facts:
                if fact.fact in seen:
                    raise ValueError(f"fact scripted twice: {fact.fact!r}")
                seen.add(fact.fact)
                if fact.source not in episode.entities or fact.target not in episode.entities:
                    raise ValueError(f"{episode.name}: fact endpoints must be entities of the episode: {fact.fact!r}")
                if fact.valid_at is None and fact.dated_at is None:
                    raise ValueError(f"{episode.name}: an undated fact needs `dated_at`: {fact.fact!r}")
                if unknown := set(fact.duplicate_of + fact.contradicts) - seen:
                    raise ValueError(f"{episode.name}: resolves against facts not scripted before: {unknown}")

    def fact(self, text: str) -> tuple[ScriptedEpisode, ScriptedFact] | None:
        for episode in self.episodes:
            for fact in episode.facts:
                if fact.fact == text:
                    return episode, fact
        return None


@dataclass(frozen=True)
class ScriptedCall:
    prompt_name: str | None  # graphiti's name for the prompt, e.g. "extract_nodes.extract_text"
    response_model: str
    episode: str


_PROMPT_NAME: contextvars.ContextVar[str | None] = contextvars.ContextVar("scripted_prompt_name", default=None)


def _section(text: str, tag: str) -> str:
    """The text between <TAG> and </TAG> (graphiti's prompts put each input in such a section)."""
    match = re.search(rf"<{re.escape(tag)}>\n(.*?)\n\s*</{re.escape(tag)}>", text, re.DOTALL)
    if match is None:
        raise UnscriptedPrompt(f"the prompt has no <{tag}> section")
    return match.group(1).strip()


class ScriptedLLM(LLMClient):
    """A scripted stand-in for an LLM: no LLM can be reached here; answers come from the script, keyed by
    episode (and, for graphiti's one-fact prompts, by the fact's text, which belongs to one episode).

    It knows one answer per (response model, episode); a prompt whose response model it does not know, or
    whose episode or fact is not in the script, raises `UnscriptedPrompt` naming the response model.
    """

    def __init__(self, script: Script) -> None:
        super().__init__(LLMConfig(api_key="none", model="scripted", small_model="scripted"), cache=False)
        self.script = script
        self.calls: list[ScriptedCall] = []
        self.failures: list[str] = []
        self._answers: dict[type[BaseModel], Callable[[str], tuple[str, BaseModel]]] = {
            ExtractedEntities: self._extract_entities,
            NodeResolutions: self._resolve_entities,
            ExtractedEdges: self._extract_facts,
            EdgeTimestamps: self._date_fact,
            EdgeDuplicate: self._resolve_fact,
            SummarizedEntities: self._summarise,
        }

    @property
    def scripted_models(self) -> frozenset[str]:
        """Names of the response models this client answers."""
        return frozenset(model.__name__ for model in self._answers)

    async def generate_response(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int | None = None,
        model_size: ModelSize = ModelSize.medium,
        group_id: str | None = None,
        prompt_name: str | None = None,
        *,
        attribute_extraction: bool = False,
        model: str | None = None,
    ) -> dict[str, Any]:
        # graphiti's wrapper (schema appended to the prompt, input cleaning, tracing) runs unchanged; only the
        # prompt's name is noted on the way, for the call record
        token = _PROMPT_NAME.set(prompt_name)
        try:
            return await super().generate_response(
                messages,
                response_model,
                max_tokens,
                model_size,
                group_id,
                prompt_name,
                attribute_extraction=attribute_extraction,
                model=model,
            )
        finally:
            _PROMPT_NAME.reset(token)

    async def _generate_response(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_size: ModelSize = ModelSize.medium,
        *,
        model: str | None = None,
    ) -> dict[str, Any]:
        prompt_name = _PROMPT_NAME.get()
        model_name = response_model.__name__ if response_model is not None else "None (free text)"
        try:
            answer = self._answers.get(response_model) if response_model is not None else None
            if answer is None:
                raise UnscriptedPrompt(
                    f"the scripted LLM has no answer for response_model {model_name} (prompt {prompt_name}); "
                    "script it in tests/support/scripted_llm.py"
                )
            text = "\n".join(m.content for m in messages)
            episode, result = answer(text)
        except UnscriptedPrompt as exc:
            if not str(exc).startswith("the scripted LLM"):
                exc = UnscriptedPrompt(f"response_model {model_name} (prompt {prompt_name}): {exc}")
            self.failures.append(str(exc))
            raise exc from None
        self.calls.append(ScriptedCall(prompt_name, model_name, episode))
        return result.model_dump()

    # --- keys -----------------------------------------------------------------------------------------

    def _episode_in(self, text: str) -> ScriptedEpisode:
        """The current episode: the latest scripted one whose content the prompt carries (as is or as JSON)."""
        found = None
        for episode in self.script.episodes:
            as_json = json.dumps(episode.content, ensure_ascii=False)[1:-1]
            if episode.content in text or as_json in text:
                found = episode
        if found is None:
            raise UnscriptedPrompt("no scripted episode's content appears in the prompt")
        return found

    def _fact_in(self, text: str, tag: str) -> tuple[ScriptedEpisode, ScriptedFact]:
        fact_text = _section(text, tag)
        found = self.script.fact(fact_text)
        if found is None:
            raise UnscriptedPrompt(f"fact not in the script: {fact_text!r}")
        return found

    # --- answers, one per response model ---------------------------------------------------------------

    def _extract_entities(self, text: str) -> tuple[str, BaseModel]:
        episode = self._episode_in(text)
        entities = [ExtractedEntity(name=name, entity_type_id=DEFAULT_ENTITY_TYPE_ID) for name in episode.entities]
        return episode.name, ExtractedEntities(extracted_entities=entities)

    def _resolve_entities(self, text: str) -> tuple[str, BaseModel]:
        episode = self._episode_in(text)
        extracted = json.loads(_section(text, "ENTITIES"))
        candidates = {c["name"]: c["candidate_id"] for c in json.loads(_section(text, "EXISTING ENTITIES"))}
        resolutions = []
        for entity in extracted:
            same_as = episode.duplicates.get(entity["name"])
            if same_as is not None and same_as not in candidates:
                raise UnscriptedPrompt(
                    f"{episode.name}: the script makes {entity['name']!r} a duplicate of {same_as!r}, "
                    f"which graphiti did not offer (candidates: {sorted(candidates)})"
                )
            duplicate_id = candidates[same_as] if same_as is not None else -1  # not scripted as a duplicate: new
            resolutions.append(NodeDuplicate(id=entity["id"], name=entity["name"], duplicate_candidate_id=duplicate_id))
        return episode.name, NodeResolutions(entity_resolutions=resolutions)

    def _extract_facts(self, text: str) -> tuple[str, BaseModel]:
        episode = self._episode_in(text)
        edges = [
            Edge(
                source_entity_name=f.source,
                target_entity_name=f.target,
                relation_type=f.relation,
                fact=f.fact,
                valid_at=f.valid_at,
                invalid_at=f.invalid_at,
            )
            for f in episode.facts
        ]
        return episode.name, ExtractedEdges(edges=edges)

    def _date_fact(self, text: str) -> tuple[str, BaseModel]:
        episode, fact = self._fact_in(text, "FACT")
        return episode.name, EdgeTimestamps(valid_at=fact.dated_at, invalid_at=fact.invalid_at)

    def _resolve_fact(self, text: str) -> tuple[str, BaseModel]:
        episode, fact = self._fact_in(text, "NEW FACT")
        same_pair = ast.literal_eval(_section(text, "EXISTING FACTS"))  # graphiti renders Python lists here
        others = ast.literal_eval(_section(text, "FACT INVALIDATION CANDIDATES"))
        offered = {item["fact"]: item["idx"] for item in [*same_pair, *others]}
        if missing := [f for f in (*fact.duplicate_of, *fact.contradicts) if f not in offered]:
            raise UnscriptedPrompt(f"{episode.name}: graphiti did not offer the scripted facts {missing}")
        same_pair_ids = {item["idx"] for item in same_pair}
        duplicates = [offered[f] for f in fact.duplicate_of]
        if not set(duplicates) <= same_pair_ids:
            raise UnscriptedPrompt(f"{episode.name}: a duplicate must join the same entities: {fact.fact!r}")
        contradicted = [offered[f] for f in fact.contradicts]
        return episode.name, EdgeDuplicate(duplicate_facts=duplicates, contradicted_facts=contradicted)

    def _summarise(self, text: str) -> tuple[str, BaseModel]:
        episode = self._episode_in(text)
        names = [e["name"] for e in json.loads(_section(text, "ENTITIES"))]
        if missing := [n for n in names if n not in episode.summaries]:
            raise UnscriptedPrompt(f"{episode.name}: no scripted summary for {missing}")
        summaries = [SummarizedEntity(name=n, summary=episode.summaries[n]) for n in names]
        return episode.name, SummarizedEntities(summaries=summaries)
