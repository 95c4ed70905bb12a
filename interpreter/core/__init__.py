"""The evaluation core: values, dice, expressions and their exact distributions.

- ``values``: the values an expression yields (numbers, levels, records, tables ...).
- ``limits``: the bounds every evaluation keeps to.
- ``trace``: what a run records, step by step.
- ``dice``: dice pools and the oracles that give their faces (seeded, given, every world).
- ``hexgrid``: the grid builtins (hex cells, distances, shapes, paths, lines of sight).
- ``evaluate``: expressions compiled and evaluated; the builtins.
- ``distribution``: exact distributions, and the joint one of several pools.

Nothing here imports the rules layer (``interpreter.rules``) or the command line.
"""
