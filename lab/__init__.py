"""Virtual robot lab: procedural snake, eel and tracked robots on PyBullet, driven by published
controllers, pushed by per-step force laws, and checked against the papers' analytic models."""

__version__ = "0.1.0"
