"""Names a module hands out from the modules that define them, each imported when first asked for (PEP 562): the
front ends name one module, and a CLI command still loads only what it uses."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy(module: str, table: Mapping[str, tuple[str, ...]]) -> tuple[list[str], Callable[[str], Any]]:
    """(`__all__`, `__getattr__`) for `module`, which hands out `table`'s names (defining module -> names)."""
    home = {name: where for where, names in table.items() for name in names}
    if len(home) != sum(len(names) for names in table.values()):
        raise ValueError(f"{module}: a name is handed out from two modules")

    def get(name: str) -> Any:
        where = home.get(name)
        if where is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(import_module(where), name)
        setattr(sys.modules[module], name, value)  # asked once
        return value

    return sorted(home), get
