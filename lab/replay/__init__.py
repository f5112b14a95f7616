"""``lab replay``: a run (or a sweep) as one self-contained HTML page — the recorded link poses in a
three.js scene, the run's channels in uPlot charts — that opens from disk with no server and no
network (docs/replay.md). The capture (:mod:`lab.replay.capture`) runs inside ``lab run``; the page
(:mod:`lab.replay.page`) reads only the run folder."""
