"""The shape of ``messages.yaml`` (pydantic): imported only when the message catalogue is read from YAML (the
user's cache keeps it validated, see :mod:`fel_rules.core.catalogue`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .report import Severity, StageName
from .templates import template_fields

__all__ = ["validated"]


class _Strict(BaseModel):
    # built when messages.yaml is validated
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class _Wording(_Strict):
    es: str = Field(min_length=1)
    en: str = Field(min_length=1)

    @field_validator("es", "en")
    @classmethod
    def _template(cls, text: str) -> str:
        template_fields(text)  # ValueError for anything but {name}
        return text


class _IssueEntry(_Strict):
    stage: StageName
    severity: Severity
    title: _Wording
    message: _Wording
    hint: _Wording | None = None


class _File(_Strict):
    issues: dict[str, _IssueEntry]
    texts: dict[str, _Wording]


def validated(data: Any) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, str]]]:
    """``data`` (the YAML read) validated: (issues by id, each with stage, severity, title, message and hint; phrases
    by id), as plain dicts. ``pydantic.ValidationError`` for anything else."""
    parsed = _File.model_validate(data)
    issues = {id: {"stage": entry.stage, "severity": entry.severity, "title": entry.title.model_dump(),
                   "message": entry.message.model_dump(), "hint": entry.hint.model_dump() if entry.hint else None}
              for id, entry in parsed.issues.items()}
    return issues, {id: wording.model_dump() for id, wording in parsed.texts.items()}
