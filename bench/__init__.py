"""`make bench`: measure the engine against the limits of its own stack (see BENCHMARKS.md).

Every figure is printed as a ratio against a baseline measured in the same run on the same
machine, so that the numbers survive a noisy or differently sized machine.
"""
