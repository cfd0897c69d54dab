"""A config that fails its schema, said in a line or two that name the key (not the schema)."""

from __future__ import annotations


def brief(error) -> str:
    """One message for a jsonschema ValidationError: where, which key, what is allowed."""
    if error is None or not hasattr(error, "absolute_path"):
        return f"config: {error}"
    where = "/".join(str(p) for p in error.absolute_path)
    at = f"under {where!r}" if where else "at the top level"
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(k for k in error.instance if k not in known)
        if known and unknown:
            return (f"config: unknown key {', '.join(map(repr, unknown))} {at}; known keys there: "
                    f"{', '.join(known)}")
    message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
    return f"config: {message} ({at}; config/schema/config.schema.yaml says what is allowed)"
