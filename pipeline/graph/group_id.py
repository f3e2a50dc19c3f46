"""What a group_id (a deal's name in the graph) may be: graphiti's own rule, with a length cap."""

from __future__ import annotations

import re

from pipeline.errors import InvalidInput

GROUP_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")  # always with fullmatch: `$` would let a trailing newline in


def validate_group_id(group_id: str) -> str:
    if not isinstance(group_id, str) or not GROUP_ID_PATTERN.fullmatch(group_id):
        raise InvalidInput(f"Deal name {group_id!r} is not valid: use 1-64 letters, digits, '-' or '_'.")
    return group_id
