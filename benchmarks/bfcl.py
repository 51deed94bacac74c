"""The Berkeley Function Calling Leaderboard data: obtained from the pinned `bfcl-eval` wheel,
its tools' parameters converted to JSON Schema as BFCL sends them to OpenAI-style APIs, and
its ground-truth answers turned into the arguments of real calls.

The wheel is never installed (it pulls in very large dependencies): it is downloaded with
`pip download --no-deps` and only `bfcl_eval/data/` is unzipped into the git-ignored cache.
"""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "bfcl"
#: Pinned so the corpus is the same in every run; the digest guards against a changed file.
VERSION = "2026.3.23"
WHEEL = f"bfcl_eval-{VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a"

#: The categories whose ground truth lists acceptable values per parameter. Multi-turn,
#: memory and web-search answers are call strings over a changing state, not arguments.
CATEGORIES = (
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
    "parallel_multiple", "live_simple", "live_multiple", "live_parallel",
    "live_parallel_multiple",
)

#: BFCL's own type names -> JSON Schema, as `GORILLA_TO_OPENAPI` in
#: bfcl_eval/constants/type_mappings.py has them. Note "any" becomes "string" there, and a
#: name missing from the table also becomes "string" (see `_openai_property`).
OPENAPI_TYPE = {
    "integer": "integer", "number": "number", "float": "number", "string": "string",
    "boolean": "boolean", "bool": "boolean", "array": "array", "list": "array",
    "dict": "object", "object": "object", "tuple": "array", "any": "string",
    "byte": "integer", "short": "integer", "long": "integer", "double": "number",
    "char": "string", "ArrayList": "array", "Array": "array", "HashMap": "object",
    "Hashtable": "object", "Queue": "array", "Stack": "array", "Any": "string",
    "String": "string", "Bigint": "integer",
}


class CorpusUnavailable(Exception):
    """The BFCL data could not be obtained; a benchmark must never run without it."""


def obtain_data() -> Path:
    """The folder `bfcl_eval/data` of the pinned wheel, downloading it when not cached."""
    data = CACHE / VERSION / "data"
    if (data / "possible_answer").is_dir():
        return data
    wheel = _download_wheel()
    partial = data.with_name("data.partial")
    shutil.rmtree(partial, ignore_errors=True)
    prefix = "bfcl_eval/data/"
    with zipfile.ZipFile(wheel) as archive:
        members = [name for name in archive.namelist()
                   if name.startswith(prefix) and not name.endswith("/")]
        if not members:
            raise CorpusUnavailable(f"{wheel} holds no {prefix} folder")
        for name in members:
            target = partial / name[len(prefix):]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(name))
    partial.rename(data)
    return data


def _download_wheel() -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    wheel = CACHE / WHEEL
    if not wheel.is_file():
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
             f"bfcl-eval=={VERSION}", "-d", str(CACHE)],
            capture_output=True, text=True)
        if done.returncode != 0 or not wheel.is_file():
            raise CorpusUnavailable(
                f"pip download of bfcl-eval=={VERSION} failed:\n{done.stderr[-2000:]}")
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != WHEEL_SHA256:
        raise CorpusUnavailable(f"{wheel} has sha256 {digest}, expected {WHEEL_SHA256}")
    return wheel


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def load_category(data: Path, category: str) -> list[tuple[dict, dict]]:
    """Each test entry of a category with its ground-truth answer, sorted by id."""
    entries = {e["id"]: e for e in read_lines(data / f"BFCL_v4_{category}.json")}
    answers = read_lines(data / "possible_answer" / f"BFCL_v4_{category}.json")
    return sorted(((entries[a["id"]], a) for a in answers), key=lambda pair: pair[0]["id"])


def tool_schema(function: dict, category: str) -> dict:
    """The function's `parameters` as BFCL offers them to an OpenAI-style API: first its
    Java/JavaScript pre-processing (every top-level argument is sent as text), then its
    cast of type names. Description texts BFCL appends are left out: no validator reads
    them."""
    parameters = copy.deepcopy(function["parameters"])
    if category.endswith(("_java", "_javascript")):
        _arguments_as_text(parameters["properties"], category.endswith("_java"))
    parameters["type"] = "object"
    _openai_properties(parameters["properties"])
    return parameters


def _arguments_as_text(properties: dict, java: bool) -> None:
    # BFCL passes Java and JavaScript values as source text, so the element and member
    # schemas of lists and maps are dropped along with the declared type.
    for schema in properties.values():
        if schema["type"] in (("ArrayList", "Array") if java else ("array",)):
            del schema["items"]
        if not java and schema["type"] == "dict":
            schema.pop("properties", None)
        schema["type"] = "string"


def _openai_properties(properties: dict) -> dict:
    for schema in properties.values():
        _openai_property(schema)
    return properties


def _openai_property(schema: dict) -> None:
    declared = schema.get("type")
    if declared == "float":
        schema["format"] = "float"
    schema["type"] = OPENAPI_TYPE.get(declared, "string")
    if schema["type"] not in ("array", "object"):
        return
    # BFCL follows `properties` first, else `items`, and looks only two levels into items.
    if "properties" in schema:
        _openai_properties(schema["properties"])
        return
    items = schema.get("items")
    if items is None:
        return
    items["type"] = OPENAPI_TYPE[items["type"]]
    if items["type"] == "array" and "items" in items:
        items["items"]["type"] = OPENAPI_TYPE[items["items"]["type"]]
    elif items["type"] == "object" and "properties" in items:
        _openai_properties(items["properties"])


OMITTED = object()


def first_acceptable(alternatives: list, resolve: bool = True) -> object:
    """The first acceptable value; "" only marks the argument as optional (BFCL's
    convention), so an argument whose only alternative is "" is left out."""
    for value in alternatives:
        if value != "":
            return _resolved(value) if resolve else value
    return OMITTED


def _resolved(value: object) -> object:
    # BFCL's dict and list-of-dict answers again list acceptable values per key, one level
    # deep (its `dict_checker` and `list_dict_checker`); the values chosen there are literal.
    if isinstance(value, dict) and all(isinstance(v, list) for v in value.values()):
        return _arguments(value, resolve=False)
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [_resolved(item) for item in value]
    return value


def _arguments(alternatives_by_name: dict, resolve: bool = True) -> dict:
    chosen = {name: first_acceptable(alts, resolve) for name, alts in alternatives_by_name.items()}
    return {name: value for name, value in chosen.items() if value is not OMITTED}


def ground_truth_calls(entry: dict, answer: dict, category: str) -> list[tuple[str, dict, dict]]:
    """(tool name, JSON Schema, arguments) of each call in the entry's ground truth."""
    functions = {function["name"]: function for function in entry["function"]}
    calls = []
    for call in answer["ground_truth"]:
        (name, alternatives_by_name), = call.items()
        schema = tool_schema(functions[name], category)
        calls.append((name, schema, _arguments(alternatives_by_name)))
    return calls


def offered_schemas(entry: dict, category: str) -> list[dict]:
    """Every tool schema the entry offers, called or not: what a host compiles."""
    return [tool_schema(function, category) for function in entry["function"]]
