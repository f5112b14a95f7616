"""One registry style for every plugin kind: controllers, force and friction laws, arenas, trials,
robots, checks and report sections.

A :class:`Registry` maps the name a scenario (or ``lab check`` / ``lab report``) writes to the thing
registered under it. Registration is a decorator::

    CONTROLLERS = Registry("controller")

    @CONTROLLERS.register("serpenoid")
    class Serpenoid: ...

The lab's own plugins are listed once, by module path, in :mod:`lab.core.plugins`; a registry imports its
kind's modules on its first lookup (``[]``, ``in``, iteration, ``len``), so nothing registers by being
imported from an unrelated module and importing a package does not import every plugin. User code
registers the same way through the public decorators (``lab.register_force``, ``lab.register_controller``,
``lab.register_robot``); its entries follow the built-ins in listing order.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, MutableMapping
from typing import Generic, TypeVar

T = TypeVar("T")


class UnknownName(KeyError):
    """A name no plugin registered; the message lists the known names."""

    def __init__(self, kind: str, name: object, known: list[str]):
        self.kind, self.name, self.known = kind, name, known
        super().__init__(f"unknown {kind} {name!r}; known: {', '.join(known) or '(none)'}")

    def __str__(self) -> str:  # KeyError would print the repr of the message
        return str(self.args[0])


class Registry(MutableMapping[str, T], Generic[T]):
    """Name → entry, in a stable order: the built-ins in :mod:`lab.core.plugins` order, then user entries.

    ``kind`` names the plugin kind in messages and selects the built-in modules of
    :data:`lab.core.plugins.BUILTINS`. Mutating (``reg[name] = …``, ``pop``) is for tests and tools; plugins
    use :meth:`register` or :meth:`add`.
    """

    def __init__(self, kind: str):
        self.kind = kind
        self._entries: dict[str, T] = {}
        self._origin: dict[str, str] = {}  # name → module that registered it (orders the built-ins)
        self._loaded = False
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ registering
    def add(self, name: str, entry: T, origin: str | None = None) -> T:
        """Register ``entry`` under ``name``. A second registration of the same name from another
        module is an error (two plugins would silently shadow each other); the same module registering
        again (a reload, a re-run example) replaces the entry."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"{self.kind} name must be a non-empty string, got {name!r}")
        origin = origin or getattr(entry, "__module__", "") or ""
        with self._lock:
            old = self._origin.get(name)
            if name in self._entries and old != origin:
                raise ValueError(f"{self.kind} {name!r} is already registered by {old}")
            self._entries[name] = entry
            self._origin[name] = origin
        return entry

    def register(self, name: str, wrap: Callable[[object], T] | None = None):
        """Decorator: register the decorated object (or ``wrap(obj)``) under ``name``; returns the
        object unchanged."""

        def deco(obj):
            self.add(name, obj if wrap is None else wrap(obj), origin=getattr(obj, "__module__", None))
            return obj

        return deco

    # ------------------------------------------------------------------ built-ins
    def load(self) -> None:
        """Import this kind's built-in modules (once), then order built-ins by the plugin list."""
        if self._loaded:
            return
        with self._lock:
            if self._loaded:
                return
            self._loaded = True  # set first: a plugin module that looks itself up must not recurse
            from lab.core.plugins import modules as builtin_modules

            modules = builtin_modules(self.kind)
            for mod in modules:
                importlib.import_module(mod)  # errors propagate: a broken built-in is a bug, not optional
            from lab.core.user_plugins import load_entry_points

            load_entry_points()  # installed packages' `lab.plugins` entry points join every registry here
            rank = {m: i for i, m in enumerate(modules)}
            seen = {n: i for i, n in enumerate(self._entries)}
            order = sorted(seen, key=lambda n: (rank.get(self._origin.get(n, ""), len(rank)), seen[n]))
            self._entries = {n: self._entries[n] for n in order}

    def lookup(self, name: str) -> T:
        """The entry registered as ``name``, or :class:`UnknownName` listing the known names."""
        self.load()
        try:
            return self._entries[name]
        except (KeyError, TypeError):
            raise UnknownName(self.kind, name, list(self._entries)) from None

    # ------------------------------------------------------------------ mapping
    def __getitem__(self, name: str) -> T:
        return self.lookup(name)

    def __setitem__(self, name: str, entry: T) -> None:
        self.load()
        self._entries[name] = entry
        self._origin[name] = getattr(entry, "__module__", "") or ""

    def __delitem__(self, name: str) -> None:
        self.load()
        del self._entries[name]
        self._origin.pop(name, None)

    def __contains__(self, name: object) -> bool:
        self.load()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        self.load()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self.load()
        return len(self._entries)

    def __repr__(self) -> str:
        names = ", ".join(self._entries) if self._loaded else "not loaded yet"
        return f"Registry({self.kind!r}: {names})"


_REGISTRIES: dict[str, Registry] = {}
_REGISTRIES_LOCK = threading.Lock()


def registry(kind: str) -> Registry:
    """The one registry of ``kind`` ("controller", "friction law", …), made on first use. The library
    module that defines a kind holds it under a name of its own (``CONTROLLERS = registry("controller")``);
    the core looks entries up by kind, so it names no library module."""
    with _REGISTRIES_LOCK:
        reg = _REGISTRIES.get(kind)
        if reg is None:
            reg = _REGISTRIES[kind] = Registry(kind)
        return reg


__all__ = ["Registry", "UnknownName", "registry"]
