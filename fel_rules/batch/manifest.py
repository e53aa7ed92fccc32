"""``manifest.json``: what a batch did with every file (schema-versioned; JSON Schema in docs/)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from ..core.inputs import read_own
from ..core.report import Counts, RulesetRef, SchemaInfo

__all__ = ["MANIFEST_VERSION", "Entry", "Manifest", "RunStats", "Summary", "first_error", "manifest_json_schema"]

MANIFEST_VERSION = 1


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Entry(_Model):
    """One input file and everything the batch produced for it."""

    path: str = Field(description="Path of the input, relative to the input folder (POSIX separators).")
    sha256: str | None = Field(description="sha256 of the input bytes (null when they could not be read).")
    tipo: str | None = None
    numero_autorizacion: str | None = None
    valid: bool
    complete: bool
    counts: Counts
    report: str | None = Field(description="The report file, relative to the output folder.")
    pdf: str | None = Field(description="The PDF, relative to the output folder; null when none was made.")
    pdf_note: str | None = Field(default=None, description="Why there is no PDF.")
    error: str | None = Field(default=None, description="Why the file could not be processed.")
    pdf_warnings: list[str] = Field(
        default_factory=list,
        description="What the reader of the PDF should know, in the batch's language: characters its font could "
                    "not draw, printed as [U+XXXX]. Left out when there is nothing to say.")

    @model_serializer(mode="wrap")
    def _without_empty_warnings(self, handler: SerializerFunctionWrapHandler) -> dict:
        """The entry's fields, ``pdf_warnings`` only when there are some (manifests without warnings read as
        before the field existed)."""
        data = handler(self)
        if not data.get("pdf_warnings"):
            data.pop("pdf_warnings", None)
        return data


class Summary(_Model):
    """Totals over all entries."""

    files: int
    valid: int
    invalid: int
    errors: int
    rendered: int


class RunStats(_Model):
    """Volatile facts about the run (snapshots leave them out)."""

    started_at: str
    duration_ms: float
    executor: str
    workers: int
    reused: int = Field(description="Files skipped by --resume because nothing they depend on changed.")
    engine_version: str


class Manifest(_Model):
    """The whole manifest."""

    manifest_version: int = MANIFEST_VERSION
    render: bool
    recursive: bool
    rulesets: list[RulesetRef]
    schema_: SchemaInfo = Field(alias="schema")
    renderer_version: str
    summary: Summary
    entries: list[Entry]
    run: RunStats | None = None

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def to_json(self, *, include_run: bool = True) -> str:
        """Indented JSON, keys in model order."""
        data = self.model_dump(mode="json", by_alias=True)
        if not include_run:
            data.pop("run", None)
        return json.dumps(data, ensure_ascii=False, indent=2)


def first_error(out_dir: Path, entry: Entry, *, roots: Sequence[Path] = ()) -> tuple[str | None, str] | None:
    """What is first wrong with the document of ``entry``: (rule id, message) of the first error of the report
    the batch wrote in ``out_dir``, or (None, why it could not be processed); ``None`` for a valid document
    (or a report that can no longer be read, or, with ``roots``, one that is not inside them once open)."""
    if entry.error:
        return None, entry.error
    if entry.valid or entry.report is None:
        return None
    try:
        issues = json.loads(read_own(out_dir / entry.report, roots=roots)).get("issues", [])
    except (OSError, ValueError, AttributeError):
        return None
    first = next((i for i in issues if isinstance(i, dict) and i.get("severity") == "error"), None)
    return (first.get("rule_id"), first.get("message", "")) if first else None


def manifest_json_schema() -> dict:
    """JSON Schema of ``manifest.json`` (written to docs/manifest.schema.json)."""
    schema = Manifest.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "fel-rules batch manifest"
    return schema
