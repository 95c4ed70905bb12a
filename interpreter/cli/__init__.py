"""The ``runebook`` command line.

- ``main``: argument parsing, dispatch and exit codes (the console script's ``main``).
- ``commands``: one module per subcommand.
- ``render``: traces and distributions as text for people and JSON for programs.
"""
