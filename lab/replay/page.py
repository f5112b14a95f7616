"""The replay page of one run folder: a self-contained HTML file (three.js scene, uPlot charts, the
run's summary and scenario) built from what the folder holds — replay.npz (lab.replay.capture),
timeseries.csv, metrics.json and scenario.toml — never from a new simulation.

The vendored libraries (lab/replay/vendor/, versions in :data:`VENDOR`) are inlined: three.js as ES
modules turned into Blob URLs at load time, uPlot as a classic script. The numbers travel as
base64 float32 arrays inside one JSON block. The page exposes ``window.labReplay`` (seek, time,
headPosition, setArrows …) for the browser tests (tests/tools/test_replay_browser.py).
"""

from __future__ import annotations

import base64
import csv
import html
import json
import math
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lab.core.errors import LabError
from lab.replay.capture import FORMAT

HERE = Path(__file__).parent
VENDOR_DIR = HERE / "vendor"
# name → (npm package@version, file): pinned; docs/replay.md says how to update them
VENDOR = {
    "three-core": ("three@0.183.2", "three.core.min.js"),
    "three-module": ("three@0.183.2", "three.module.min.js"),
    "orbit": ("three@0.183.2", "OrbitControls.js"),  # examples/jsm/controls/OrbitControls.js
    "uplot": ("uplot@1.6.32", "uPlot.iife.min.js"),
}
REQUIRED = ("scenario.toml", "metrics.json", "timeseries.csv", "replay.npz")
MAX_PLOT_POINTS = 3000  # per channel: the charts' samples are strided down to this
MAX_JOINT_CURVES = 16  # joint angle/torque curves per chart (a 30-joint user's robot shows the first 16)


@dataclass
class RunFolder:
    path: Path
    scenario_toml: str
    metrics: dict
    columns: dict[str, np.ndarray]
    replay: dict[str, np.ndarray]
    scene: dict


def load_run(folder: Path | str) -> RunFolder:
    """Read a run folder, refusing (LabError: one ``error:`` line) one that lacks what the page needs."""
    folder = Path(folder)
    if not folder.is_dir():
        raise LabError(str(folder), "not a folder; expected a run folder written by `lab run` (or a sweep's)")
    missing = [n for n in REQUIRED if not (folder / n).is_file()]
    if missing:
        hint = (" (a run recorded with replay.rate_hz = 0, or by a lab before replays: run it again)"
                if missing == ["replay.npz"] else "")
        raise LabError(str(folder), f"not a complete run folder: no {', '.join(missing)}{hint}")
    try:
        with np.load(folder / "replay.npz", allow_pickle=False) as z:
            replay = {k: z[k] for k in z.files}
        scene = json.loads(bytes(replay.pop("scene")).decode("utf-8"))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise LabError(str(folder / "replay.npz"), f"unreadable: {exc}") from None
    if scene.get("format") != FORMAT:
        raise LabError(str(folder / "replay.npz"), f"format {scene.get('format')!r}; this lab reads format {FORMAT}")
    for key in ("t", "p_W", "quat_W"):
        if key not in replay:
            raise LabError(str(folder / "replay.npz"), f"holds no {key!r} array")
    n = len(replay["t"])
    if n == 0 or replay["p_W"].shape[:1] != (n,) or replay["quat_W"].shape[:1] != (n,):
        raise LabError(str(folder / "replay.npz"), f"t, p_W and quat_W disagree or are empty "
                                                    f"({replay['t'].shape}, {replay['p_W'].shape}, {replay['quat_W'].shape})")
    try:
        metrics = json.loads((folder / "metrics.json").read_text(encoding="utf-8"))
        columns = read_columns(folder / "timeseries.csv")
        toml = (folder / "scenario.toml").read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise LabError(str(folder), f"unreadable run file: {exc}") from None
    return RunFolder(folder, toml, metrics, columns, replay, scene)


def read_columns(path: Path) -> dict[str, np.ndarray]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    if not rows or "t" not in rows[0]:
        raise ValueError(f"{path.name}: no header with a t column")
    data = np.array(rows[1:], dtype=float).reshape(-1, len(rows[0]))
    return {name: data[:, i] for i, name in enumerate(rows[0])}


def _b64(a) -> str:
    return base64.b64encode(np.ascontiguousarray(a, np.float32).tobytes()).decode("ascii")


def nice_scale(target_m: float, F: np.ndarray) -> float:
    """Arrow scale [m per N] on a 1-2-5 ladder: the 95th percentile of |F| drawn about ``target_m`` long."""
    mag = np.linalg.norm(F.reshape(-1, 3), axis=1)
    ref = float(np.percentile(mag[mag > 0], 95)) if np.any(mag > 0) else 1.0
    raw = target_m / ref
    e = math.floor(math.log10(raw))
    for m in (5, 2, 1):
        if m * 10.0**e <= raw:
            return m * 10.0**e
    return 10.0**e


def _charts(run: RunFolder, max_points: int = MAX_PLOT_POINTS) -> list[dict]:
    """The headline channels: the energy ledger, the joints' angles and torques, the trial's channels."""
    cols = run.columns
    t = cols["t"]
    stride = max(1, math.ceil(len(t) / max_points))
    ts = t[::stride]

    def chart(title, unit, series):
        return {"title": title, "unit": unit, "t": _b64(ts),
                "series": [{"label": k, "data": _b64(v[::stride])} for k, v in series]}

    charts = []
    ledger = [("ΔE kinetic", cols["E"] - cols["E"][0])] if "E" in cols else []
    ledger += [(k, cols[k]) for k in cols if k.startswith("W_") and k not in ("W_in", "W_d")]
    if "balance_residual_J" in cols:
        ledger.append(("residual", cols["balance_residual_J"]))
    if ledger:
        charts.append(chart("energy ledger (cumulative work)", "J", ledger))
    names = run.scene.get("joint_names", [])
    nq = sum(1 for k in cols if k.startswith("q_"))
    label = lambda j: names[j] if j < len(names) else f"joint {j}"  # noqa: E731
    if nq:
        charts.append(chart("joint angles", "rad", [(label(j), cols[f"q_{j}"]) for j in range(min(nq, MAX_JOINT_CURVES))]))
        charts.append(chart("joint torques", "N·m", [(label(j), cols[f"tau_{j}"]) for j in range(min(nq, MAX_JOINT_CURVES))]))
    for name in run.scene.get("channels", []):
        data = run.replay.get(f"channel.{name}")
        if data is not None:
            charts.append({"title": name, "unit": "", "t": _b64(run.replay["t"]),
                           "series": [{"label": name, "data": _b64(data)}], "steps": True})
    return charts


def page_data(run: RunFolder, max_points: int = MAX_PLOT_POINTS) -> dict:
    r, scene = run.replay, run.scene
    p0 = r["p_W"][0].astype(float)
    gaps = np.linalg.norm(np.diff(p0, axis=0), axis=1) if len(p0) > 1 else np.array([0.1])
    link_len = float(np.median(gaps)) if np.any(gaps > 0) else 0.1
    laws = []
    for name in scene.get("laws", []):
        F = r.get(f"F_W.{name}")
        if F is None or not np.any(F):  # a law that applied nothing (engine friction instead): no toggle
            continue
        laws.append({"name": name, "scale": nice_scale(1.5 * link_len, F), "data": _b64(F)})
    meshes = {k[:-2]: {"V": _b64(r[k]), "F": base64.b64encode(np.ascontiguousarray(r[k[:-2] + "_F"], np.int32).tobytes()).decode()}
              for k in r if k.startswith("mesh") and k.endswith("_V")}
    head = scene.get("head")
    m = run.metrics
    return {
        "name": run.path.name, "status": m.get("status", "?"),
        "t": _b64(r["t"]), "n_frames": int(len(r["t"])), "n_links": int(r["p_W"].shape[1]),
        "p": _b64(r["p_W"]), "q": _b64(r["quat_W"]),
        "extra_p": _b64(r.get("extra_p_W", np.zeros((len(r["t"]), 0, 3)))),
        "extra_q": _b64(r.get("extra_quat_W", np.zeros((len(r["t"]), 0, 4)))),
        "head": head if head is not None else 0, "head_named": head is not None,
        "link_names": scene.get("link_names", []), "bodies": scene.get("bodies", []), "extras": scene.get("extras", []),
        "meshes": meshes, "laws": laws, "link_length": link_len, "rate_hz": scene.get("rate_hz"),
        "charts": _charts(run, max_points),
        "metrics": [[k, _fmt(v)] for k, v in sorted(m.items())],
        "scenario": run.scenario_toml,
    }


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _script_safe(text: str) -> str:
    """Inline text that cannot close its <script> element early (``</`` only occurs in strings and
    regular expressions there, where ``<\\/`` means the same)."""
    return text.replace("</", "<\\/")


def _vendor_text(key: str) -> str:
    return (VENDOR_DIR / VENDOR[key][1]).read_text(encoding="utf-8")


def vendor_lib_js() -> str:
    """The vendored libraries as one classic script (the docs site's pages share it): uPlot's own
    IIFE, then the three.js modules' sources as strings in ``window.LAB_VENDOR``."""
    sources = {f"src-{k}": _vendor_text(k) for k in ("three-core", "three-module", "orbit")}
    versions = ", ".join(sorted({v for v, _ in VENDOR.values()}))
    return (f"/* lab replay: {versions} (MIT; licences in lab/replay/vendor/) */\n" + _vendor_text("uplot") + "\n"
            + "window.LAB_VENDOR = " + json.dumps(sources) + ";\n")


def page_html(folder: Path | str, back_link: str | None = None, shared_lib: str | None = None,
              max_frames: int | None = None, max_points: int = MAX_PLOT_POINTS,
              max_link_frames: int | None = None) -> str:
    """The whole page of one run folder, as text. ``shared_lib``: the URL of :func:`vendor_lib_js`'s
    file instead of inlining the libraries (the docs site); ``max_frames`` / ``max_points``: keep every
    n-th frame / chart sample so a committed page stays small; ``max_link_frames``: at most this many
    frames × links (a page's poses and force arrows grow with both: a 28-link wheeled snake keeps fewer
    frames than a 10-link one)."""
    run = load_run(folder)
    if max_link_frames is not None:
        p = run.replay.get("p_W")
        n_links = int(p.shape[1]) if p is not None and np.ndim(p) == 3 and p.shape[1] else 1
        cap = max(2, max_link_frames // n_links)
        max_frames = cap if max_frames is None else min(max_frames, cap)
    if max_frames is not None and len(run.replay["t"]) > max_frames:
        stride = math.ceil(len(run.replay["t"]) / max_frames)
        n = len(run.replay["t"])
        keep = np.unique(np.r_[np.arange(0, n, stride), n - 1])  # the last frame stays
        run.replay = {k: (v[keep] if v.ndim and len(v) == n and not k.startswith("mesh") else v)
                      for k, v in run.replay.items()}
    data = json.dumps(page_data(run, max_points), separators=(",", ":"), allow_nan=False)
    tpl = (HERE / "template.html").read_text(encoding="utf-8")
    css = (VENDOR_DIR / "uPlot.min.css").read_text(encoding="utf-8")
    versions = ", ".join(sorted({v for v, _ in VENDOR.values()}))
    back = f'<a href="{html.escape(back_link)}">← all runs</a> · ' if back_link else ""
    if shared_lib:
        vendor = f'<script src="{html.escape(shared_lib)}"></script>'
    else:
        vendor = "\n".join(
            [f'<script type="text/plain" id="src-{k}">{_script_safe(_vendor_text(k))}</script>'
             for k in ("three-core", "three-module", "orbit")] + [f"<script>{_script_safe(_vendor_text('uplot'))}</script>"])
    fill = {"UPLOT_CSS": css, "TITLE": html.escape(run.path.name), "BACK": back, "VERSIONS": html.escape(versions),
            "DATA": _script_safe(data), "VENDOR": vendor}
    return re.sub(r"%%([A-Z_]+)%%", lambda m: fill[m.group(1)], tpl)  # one pass: no filling is read twice


def write_page(folder: Path | str, target: Path | str, overwrite: bool = False, label: str = "--html") -> Path:
    """Check ``target`` (lab.outputs' single-file rule), read the run, write the page by the write protocol."""
    from lab.core.outputs import check_file, write_file

    path = check_file(target, label, overwrite=overwrite)
    text = page_html(folder)
    write_file(path, text, f"{label} {path}")
    return path


def is_sweep(folder: Path) -> bool:
    return (Path(folder) / "runs.json").is_file() and (Path(folder) / "runs").is_dir()


def write_sweep(folder: Path | str, out: Path | str, select: list[str] | None = None, overwrite: bool = False,
                max_pages: int = 50) -> Path:
    """A sweep's pages: ``index.html`` (every run with its point and headline metrics, linking the
    pages) and ``runs/<run_id>.html`` for each selected run (default: all, at most ``max_pages``)."""
    from lab.core.outputs import prepare

    folder = Path(folder)
    try:
        runs = json.loads((folder / "runs.json").read_text(encoding="utf-8"))
        ids = [str(r["run_id"]) for r in runs]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise LabError(str(folder / "runs.json"), f"unreadable: {exc}") from None
    have = [i for i in ids if (folder / "runs" / i / "replay.npz").is_file()]
    if select:
        unknown = [s for s in select if s not in ids]
        if unknown:
            raise LabError("--runs", f"no run {', '.join(unknown)} in {folder}; runs: {', '.join(ids[:20])}"
                                     + (" …" if len(ids) > 20 else ""))
        lacking = [s for s in select if s not in have]
        if lacking:
            raise LabError("--runs", f"run {', '.join(lacking)} has no replay.npz (not finished, or replay.rate_hz = 0)")
        chosen = list(select)
    else:
        if not have:
            raise LabError(str(folder), "no run of this sweep has a replay.npz (replay.rate_hz = 0, or none finished)")
        if len(have) > max_pages:
            raise LabError("--runs", f"the sweep has {len(have)} replayable runs; name at most {max_pages} "
                                     f"(e.g. --runs {','.join(have[:3])}) rather than writing a page for each")
        chosen = have
    output = prepare(out, "replay", overwrite=overwrite, label="--html")

    def build(tmp: Path) -> None:
        (tmp / "runs").mkdir()
        for rid in chosen:
            (tmp / "runs" / f"{rid}.html").write_text(page_html(folder / "runs" / rid, back_link="../index.html"),
                                                     encoding="utf-8")
        (tmp / "index.html").write_text(sweep_index(folder, runs, set(chosen)), encoding="utf-8")

    return output.write_all(build)


def sweep_index(folder: Path, runs: list[dict], pages: set[str]) -> str:
    """The sweep's table: run id (linked where a page was written), the point, status and metrics."""
    rows, keys = [], []
    for r in runs:
        rid = str(r["run_id"])
        try:
            m = json.loads((folder / "runs" / rid / "metrics.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            m = {}
        rows.append((rid, r.get("point", {}), m))
        for k, v in m.items():
            if isinstance(v, (int, float)) and k not in keys and k not in ("steps",):
                keys.append(k)
    keys = keys[:12]
    pts = sorted({k for _, p, _ in rows for k in (p or {})})
    e = html.escape
    head = "".join(f"<th>{e(k)}</th>" for k in ["run", *pts, "status", *keys])
    body = []
    for rid, p, m in rows:
        link = f'<a href="runs/{e(rid)}.html">{e(rid)}</a>' if rid in pages else e(rid)
        cells = [link, *[e(_fmt((p or {}).get(k, ""))) for k in pts], e(str(m.get("status", "—"))),
                 *[e(_fmt(m.get(k, ""))) for k in keys]]
        body.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{e(folder.name)}: replays</title><style>"
            "body{font:14px system-ui,sans-serif;margin:1em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee}</style></head><body>"
            f"<h1>{e(folder.name)}</h1><p>{len(rows)} runs; a linked run opens its replay (lab replay).</p>"
            f"<table><tr>{head}</tr>{''.join(body)}</table></body></html>\n")
