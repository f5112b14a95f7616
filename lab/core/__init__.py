"""The core: the World (the only door to the engine), the state snapshot, the run loop, the recorder,
the compiled kernels, the registry, the scenario loader and the write protocol. It imports no paper, no
library module by name and no tool."""
