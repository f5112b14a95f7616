"""A user's own code, loaded wherever the lab runs: Python entry points, ``--plugin`` and ``plugins = [...]``.

Three routes, one loader:

* **Entry points** (the standard way for an installed package): a package declares

      [project.entry-points."lab.plugins"]
      my_gaits = "my_gaits.controllers"

  and every lab process (the CLI, ``lab.run``, sweeps, regress, report, each Dask worker) imports
  ``my_gaits.controllers`` the first time any registry is looked up (:meth:`lab.registry.Registry.load`
  calls :func:`load_entry_points`). An entry point naming a callable (``"my_gaits:register"``) is called
  with no arguments after its module is imported.
* ``--plugin MODULE_OR_FILE.py`` on every command (repeatable): a dotted module name (imported) or a
  ``.py`` file, relative to the working directory.
* ``plugins = ["my_controller.py", "my_pkg.mod"]`` at the top of a scenario, sweep or suite file:
  files relative to *that file's* folder.

A plugin module registers what it defines with the public decorators (``lab.register_controller``,
``lab.register_force``, ``lab.register_robot``), exactly as a built-in does.

Sweeps on a cluster: :func:`shipped` is the list of plugins this process has loaded, as a worker needs
it (a file plugin carries its source, so a worker with no shared file system imports the same code
under the same module name); :func:`load_shipped` is what the worker runs before it unpickles a task
(the task's scenario holds instances of the plugin's classes). Module plugins must be importable on
the worker (installed there); entry points are found there by themselves.

Every failure is one :class:`~lab.errors.LabError` naming the plugin and what failed
(``error: --plugin my_ctl.py: cannot import: NameError: name 'np' is not defined``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import logging
import re
import sys
import threading
import traceback
import types
from dataclasses import dataclass
from pathlib import Path

from lab.core.errors import LabError

log = logging.getLogger(__name__)

GROUP = "lab.plugins"  # the entry-point group an installed package declares its plugin modules in
_MODULE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass(frozen=True)
class Plugin:
    """One loaded plugin: ``module`` (the name it is imported under), ``path`` (a file plugin's absolute
    path, else ""), ``source`` (a file plugin's text, shipped to workers), ``origin`` (how it was asked
    for, for messages: ``--plugin x.py``, ``scenario.toml:plugins[0]``, ``entry point name``)."""

    module: str
    path: str = ""
    source: str = ""
    origin: str = ""


_lock = threading.RLock()
_loaded: dict[str, Plugin] = {}  # module name → plugin (file plugins and modules; entry points separately)
_entry_points_done = False
_entry_points: list[str] = []  # "name = value" of every entry point loaded


def _fail(where: str, what: str, exc: BaseException) -> LabError:
    """The one-line error: the plugin, what failed, and the exception's first line (the traceback is
    logged at debug level)."""
    log.debug("plugin %s failed", where, exc_info=exc)
    text = (str(exc).strip().splitlines() or [""])[0]
    # the line of the plugin's own code that raised, when the exception came from inside it
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "importlib" not in f.filename
              and not f.filename.endswith(("user_plugins.py", "registry.py"))]
    at = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    if isinstance(exc, LabError):
        text = f"{exc.where}: {exc.what}"
    return LabError(where, f"{what}: {type(exc).__name__}: {text}{at}".rstrip(": "))


def file_module_name(path: Path) -> str:
    """The module name a file plugin is imported under: its stem and a hash of its absolute path, so two
    ``controller.py`` files in two folders stay two modules, and a worker uses the same name."""
    stem = re.sub(r"\W", "_", path.stem) or "plugin"
    return f"lab_plugin_{stem}_{hashlib.sha1(str(path).encode()).hexdigest()[:8]}"


def _exec_module(name: str, path: str, source: str | None, where: str) -> types.ModuleType:
    """Import ``path`` (or, if ``source`` is given and the file is not there, that text) as module ``name``."""
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module  # before exec: dataclasses and pickling look the module up by name
    try:
        text = source if source is not None else Path(path).read_text(encoding="utf-8")
        code = compile(text, path, "exec")
        exec(code, module.__dict__)
    except BaseException as exc:
        sys.modules.pop(name, None)
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise _fail(where, "cannot import", exc) from None
    return module


def load(spec: str, base: str | Path | None = None, where: str | None = None) -> Plugin:
    """Load one plugin: a ``.py`` file (relative to ``base``, the folder of the file that names it, or
    the working directory) or a dotted module name. Loading the same plugin twice is a no-op.
    ``where`` names it in errors (default ``--plugin <spec>``)."""
    where = where or f"--plugin {spec}"
    if not isinstance(spec, str) or not spec.strip():
        raise LabError(where, f"must be a module name or a .py file, got {spec!r}")
    spec = spec.strip()
    is_file = spec.endswith(".py") or "/" in spec or "\\" in spec
    with _lock:
        if is_file:
            p = Path(spec).expanduser()
            if not p.is_absolute():
                p = Path(base or Path.cwd()) / p
            p = p.resolve()
            if not p.is_file():
                what = "is a folder" if p.is_dir() else "no such file"
                raise LabError(where, f"{what}: {p} (a plugin is a module name or a .py file; in a file, paths "
                                      "are relative to that file's folder, on the command line to the working "
                                      "directory)")
            name = file_module_name(p)
            if name in _loaded:
                return _loaded[name]
            source = p.read_text(encoding="utf-8")
            if name not in sys.modules:
                _exec_module(name, str(p), source, where)
            plugin = Plugin(module=name, path=str(p), source=source, origin=where)
        else:
            if not _MODULE_RE.match(spec):
                raise LabError(where, f"must be a dotted module name (my_pkg.controllers) or a .py file, got {spec!r}")
            if spec in _loaded:
                return _loaded[spec]
            try:
                importlib.import_module(spec)
            except ModuleNotFoundError as exc:
                if exc.name and spec.startswith(exc.name):
                    raise LabError(where, f"no module named {exc.name!r} (install the package, or give the "
                                          "path of a .py file)") from None
                raise _fail(where, "cannot import", exc) from None
            except Exception as exc:  # noqa: BLE001 - a user's module may raise anything on import
                raise _fail(where, "cannot import", exc) from None
            plugin = Plugin(module=spec, origin=where)
        _loaded[plugin.module] = plugin
        log.info("plugin %s loaded (%s)", plugin.module, where)
        return plugin


def load_all(specs, base: str | Path | None = None, where: str = "plugins") -> tuple[Plugin, ...]:
    """Load the plugins a file lists (``where`` is ``<file>:plugins``; items are named ``…[i]``)."""
    if specs is None:
        return ()
    if not isinstance(specs, (list, tuple)) or not all(isinstance(s, str) for s in specs):
        raise LabError(where, f"must be a list of module names or .py files, got {specs!r}")
    return tuple(load(s, base, f"{where}[{i}] {s}") for i, s in enumerate(specs))


def load_entry_points() -> None:
    """Import every installed package's ``lab.plugins`` entry point, once per process. Called by the
    registries on their first lookup, so a user's package joins wherever the lab runs."""
    global _entry_points_done
    with _lock:
        if _entry_points_done:
            return
        _entry_points_done = True  # first: a plugin that looks a registry up must not recurse here
        from importlib.metadata import entry_points

        for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
            where = f"plugin {ep.name} (entry point {ep.value!r} of group {GROUP!r})"
            try:
                obj = ep.load()
                if callable(obj) and not isinstance(obj, type) and ep.attr:
                    obj()
            except LabError as exc:
                raise LabError(where, f"{exc.where}: {exc.what}") from None
            except Exception as exc:  # noqa: BLE001
                raise _fail(where, "cannot load", exc) from None
            _entry_points.append(f"{ep.name} = {ep.value}")
            log.info("plugin %s loaded (entry point)", ep.name)


def loaded() -> list[str]:
    """What this process has loaded, for ``lab list`` and provenance: entry points, modules, files."""
    return [*(f"entry point {e}" for e in _entry_points),
            *((p.path or p.module) for p in _loaded.values())]


def shipped() -> tuple[tuple[str, str, str], ...]:
    """The loaded ``--plugin`` / ``plugins = [...]`` plugins as a worker needs them: (module, path, source)."""
    with _lock:
        return tuple((p.module, p.path, p.source) for p in _loaded.values())


def load_shipped(plugins) -> None:
    """Worker side: import the client's plugins before a task is unpickled. A file plugin is imported
    from its path when the worker sees the same file, else from the shipped source, under the client's
    module name (so the task's pickled classes resolve)."""
    load_entry_points()
    for module, path, source in plugins or ():
        with _lock:
            if module in _loaded or module in sys.modules and not path:
                continue
            where = f"plugin {path or module} (sent with the task)"
            if path:
                if module not in sys.modules:
                    same = Path(path).is_file() and Path(path).read_text(encoding="utf-8") == source
                    _exec_module(module, path, None if same else source, where)
                _loaded[module] = Plugin(module=module, path=path, source=source, origin=where)
            else:
                load(module, where=where)


__all__ = ["GROUP", "Plugin", "file_module_name", "load", "load_all", "load_entry_points", "load_shipped",
           "loaded", "shipped"]
