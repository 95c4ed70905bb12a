"""One module per `runebook` subcommand, and the exit codes they share with the command."""

__all__ = ["EXIT_ERRORS", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE"]

EXIT_OK = 0
EXIT_ERRORS = 1  # the input has errors; diagnostics were printed
EXIT_USAGE = 2  # bad arguments, or a file that cannot be read
EXIT_INTERNAL = 3  # a bug in runebook
