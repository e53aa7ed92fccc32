"""Self-contained JSON Schemas for tool definitions: local ``$ref`` inlined, no ``$defs`` left."""

from __future__ import annotations

from typing import Any

__all__ = ["self_contained"]


def self_contained(schema: dict) -> dict:
    """``schema`` with every ``#/$defs/…`` reference replaced by a copy of its definition."""
    definitions = schema.get("$defs", {})

    def inline(node: Any, trail: tuple[str, ...] = ()) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.split("/")[-1]
                if name in trail:
                    raise ValueError(f"recursive schema {name} cannot be inlined")
                merged = {**definitions[name], **{k: v for k, v in node.items() if k != "$ref"}}
                return inline(merged, (*trail, name))
            return {key: inline(value, trail) for key, value in node.items() if key != "$defs"}
        if isinstance(node, list):
            return [inline(item, trail) for item in node]
        return node

    return inline(schema)
