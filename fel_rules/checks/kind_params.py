"""The base of every check kind's params model (pydantic): imported only when rule params are validated."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["KindParams"]


class KindParams(BaseModel):
    """Base of every check kind's params model: unknown keys are errors."""

    # validators are built when a rule's params are first validated
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)
