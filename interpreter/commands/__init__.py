"""One module per `runebook` subcommand."""
