"""Lineup's OpenAPI document, taken from the app in-process, and the actions it describes.

`live_document` is the one place the generation reaches into Lineup: it builds the app as `make run` would (the
app factory, with a throwaway data directory and no base path) and asks it for its document. Everything else
reads the document alone, as a channel's own generator would. A merge that renames the factory mends this
function and nothing else."""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Schema = dict[str, Any]  # a JSON Schema object of the document, as json.loads gives it
REF = "#/components/schemas/"


def live_document() -> Schema:
    """The document the app serves at /openapi.json, its keys sorted (so what is generated from it is stable)."""
    from api.main import create_app  # imported here: the templates and the checks of the output need no app
    from models.settings import Settings

    with tempfile.TemporaryDirectory() as data_dir:
        # base_path "": channels' paths are the groups' own (the client's base URL carries any prefix)
        settings = Settings(_env_file=None, data_dir=Path(data_dir), base_path="")
        document: Schema = json.loads(json.dumps(create_app(settings).openapi(), sort_keys=True))
    return document


def document_text(document: Schema) -> str:
    """The document as committed beside the TypeScript client (the input of its type generator)."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class Action:
    """One action as the generated methods see it."""

    name: str  # its name (aliases are for call(); the methods use the name the catalog declares)
    path: str  # where it is posted: the first of its paths, alphabetically, when it has several
    request: str  # the request schema's name
    answer: str  # the answer envelope schema's name
    summary: str


def ref_name(ref: str) -> str:
    assert ref.startswith(REF), ref
    return ref.removeprefix(REF)


def answer_name(action: str) -> str:
    """The answer schema of an action, as the document names it (api.openapi.answer_name)."""
    return "".join(word.capitalize() for word in action.split("_")) + "Answer"


def version(document: Schema) -> str:
    found = document["info"]["version"]
    assert isinstance(found, str)
    return found


def actions(document: Schema) -> list[Action]:
    """Every action of the document, by name. An action is a name of a path's request mapping that has an
    answer schema of its own there; the other names of the mapping are aliases of one of them."""
    found: dict[str, Action] = {}
    for path, item in sorted(document["paths"].items()):
        operation = item.get("post", {})
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
        mapping: dict[str, str] = body.get("discriminator", {}).get("mapping", {})
        answers = {ref_name(entry["$ref"]) for entry in _answers(operation)}
        summaries = _summaries(operation.get("description", ""))
        for name, ref in sorted(mapping.items()):
            if answer_name(name) in answers and name not in found:
                found[name] = Action(name, path, ref_name(ref), answer_name(name), summaries.get(name, ""))
    return sorted(found.values(), key=lambda action: action.name)


def _answers(operation: Schema) -> list[Schema]:
    schema = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {})
    listed: list[Schema] = schema.get("schema", {}).get("oneOf", [])
    return listed


def _summaries(description: str) -> dict[str, str]:
    """api.openapi writes a path's description as one `**name**: summary` paragraph per action."""
    found = (re.fullmatch(r"\*\*(\w+)\*\*: (.*)", chunk, re.S) for chunk in description.split("\n\n"))
    return {match[1]: " ".join(match[2].split()) for match in found if match}
