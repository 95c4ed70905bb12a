import sys

from interpreter.cli.main import main

sys.exit(main())
