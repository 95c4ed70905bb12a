import sys

from runebook.interpreter.cli.main import main

sys.exit(main())
